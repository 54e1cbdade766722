import { ToolgraphError, describeValue } from '../../errors/index.ts';
import type { GraphView, NodeRecord, Scalar } from '../engine/index.ts';

const CURSOR_PREFIX = 'c1:';

/**
 * A cursor is a keyset position: the label and the node id, base64url-encoded so clients treat
 * it as opaque. It stays valid while nodes come and go (even its own node): the next page starts
 * after that id in the engine's id order.
 */
export function encodeCursor(label: string, id: string): string {
  return Buffer.from(`${CURSOR_PREFIX}${label}:${id}`, 'utf8').toString('base64url');
}

/**
 * The node id a cursor points at; TG_CURSOR_INVALID when it is malformed or from another label.
 * Messages name connection fields with the graph's namespace `prefix` (`crm_PersonConnection`), if any.
 */
export function decodeCursor(cursor: string, label: string, argument: string, prefix = ''): string {
  const shown = describeValue(cursor);
  const text = /^[A-Za-z0-9_-]*$/.test(cursor) ? Buffer.from(cursor, 'base64url').toString('utf8') : '';
  if (!text.startsWith(CURSOR_PREFIX)) {
    throw new ToolgraphError('TG_CURSOR_INVALID', `${argument}: ${shown} is not a cursor of this server; pass a cursor or pageInfo.startCursor/endCursor from an earlier ${prefix}${label}Connection page.`, {
      details: { argument },
    });
  }
  const rest = text.slice(CURSOR_PREFIX.length);
  const colon = rest.indexOf(':');
  const cursorLabel = colon < 0 ? '' : rest.slice(0, colon);
  const id = colon < 0 ? '' : rest.slice(colon + 1);
  if (cursorLabel !== label || id.length === 0) {
    throw new ToolgraphError('TG_CURSOR_INVALID', `${argument}: the cursor ${shown} belongs to ${cursorLabel === '' ? 'no connection' : `${prefix}${cursorLabel}Connection`}, not ${prefix}${label}Connection.`, {
      details: { argument },
    });
  }
  return id;
}

export interface PageRequest {
  readonly filter: Readonly<Record<string, Scalar>>;
  readonly first: number | undefined;
  readonly last: number | undefined;
  /** Exclusive bounds (node ids). */
  readonly after: string | undefined;
  readonly before: string | undefined;
}

export interface Page {
  readonly nodes: NodeRecord[];
  readonly hasNextPage: boolean;
  readonly hasPreviousPage: boolean;
}

/**
 * One page of a connection, Relay-style over the label's matching nodes R in id order: the window
 * is R strictly between `after` and `before`; `first` keeps its start, then `last` keeps the end of
 * that. The page is a run of R (maybe empty, then sitting at a point of R): hasPreviousPage says R
 * has nodes before the page, hasNextPage says it has nodes after it (bounds ignored).
 */
export function connectionPage(view: GraphView, label: string, request: PageRequest): Page {
  const { filter, first, last, after, before } = request;
  const bounds = { filter, ...(after === undefined ? {} : { after }), ...(before === undefined ? {} : { before }) };
  let nodes: NodeRecord[];
  if (first !== undefined) {
    nodes = view.scan(label, { ...bounds, first });
    if (last !== undefined && nodes.length > last) nodes = nodes.slice(nodes.length - last);
  } else if (last !== undefined) {
    nodes = view.scan(label, { ...bounds, last });
  } else {
    nodes = view.scan(label, bounds);
  }
  const before1 = (id: string): boolean => view.scan(label, { filter, before: id, last: 1 }).length > 0;
  const after1 = (id: string): boolean => view.scan(label, { filter, after: id, first: 1 }).length > 0;
  const isMember = (id: string): boolean => view.scan(label, { filter: { ...filter, id } }).length > 0;
  if (nodes.length > 0) {
    return { nodes, hasPreviousPage: before1(nodes[0]!.id), hasNextPage: after1(nodes[nodes.length - 1]!.id) };
  }
  // An empty page: first: 0 sits at the window's start, last: 0 at its end, else between the bounds.
  const windowStart = view.scan(label, { ...bounds, first: 1 })[0];
  if (windowStart !== undefined) {
    if (first !== undefined) return { nodes, hasPreviousPage: before1(windowStart.id), hasNextPage: true };
    const windowEnd = view.scan(label, { ...bounds, last: 1 })[0]!;
    return { nodes, hasPreviousPage: true, hasNextPage: after1(windowEnd.id) };
  }
  return {
    nodes,
    hasPreviousPage: after !== undefined && (before1(after) || isMember(after)),
    hasNextPage: before !== undefined && (after1(before) || isMember(before)),
  };
}
