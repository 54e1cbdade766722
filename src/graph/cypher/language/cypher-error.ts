import { ToolgraphError } from '../../../errors/index.ts';

/** Line and column (both 1-based; columns count code points) of a 0-based UTF-16 offset. */
export function positionOf(source: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, source.length);
  for (let i = 0; i < end; i++) {
    if (source.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  let column = 1;
  for (let i = lineStart; i < end; i++) {
    const code = source.charCodeAt(i);
    // A surrogate pair is one character: count only its high half.
    if (code < 0xdc00 || code > 0xdfff) column++;
  }
  return { line, column };
}

/** What a token looks like in an error message: quoted text, cut short, or "end of input". */
function describeFound(text: string | null): string {
  if (text === null) return 'end of input';
  const cut = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return `'${cut}'`;
}

export function syntaxError(source: string, offset: number, expected: string, found: string | null): ToolgraphError {
  const { line, column } = positionOf(source, offset);
  const foundText = describeFound(found);
  return new ToolgraphError('TG_CYPHER_SYNTAX', `Cypher syntax error at line ${line}, column ${column}: expected ${expected} but found ${foundText}.`, {
    details: { line, column, expected, found: foundText },
  });
}

/** A syntax error whose message is a full sentence rather than expected/found. */
export function syntaxProblem(source: string, offset: number, problem: string): ToolgraphError {
  const { line, column } = positionOf(source, offset);
  return new ToolgraphError('TG_CYPHER_SYNTAX', `Cypher syntax error at line ${line}, column ${column}: ${problem}`, {
    details: { line, column },
  });
}

const MODEL = 'one label per node, edges without properties, no temporal values; see docs/graph-model.md';

/**
 * A known Cypher construct the subset lacks. With `outsideModel` (what it needs: 'a node with several
 * labels', 'a node without a label', 'a relationship with properties', 'a temporal value'), the
 * construct needs something the graph model excludes (docs/graph-model.md), not a missing feature:
 * the message says so, and `details.outsideModel` carries the reason.
 */
export function unsupported(source: string, offset: number, construct: string, outsideModel?: string): ToolgraphError {
  const { line, column } = positionOf(source, offset);
  if (outsideModel !== undefined) {
    return new ToolgraphError('TG_CYPHER_UNSUPPORTED', `Cypher at line ${line}, column ${column}: ${construct}: toolgraph's graph model excludes ${outsideModel} (${MODEL}).`, {
      details: { line, column, construct, outsideModel },
    });
  }
  return new ToolgraphError('TG_CYPHER_UNSUPPORTED', `Cypher at line ${line}, column ${column}: ${construct} is outside the supported subset (see docs/cypher.md).`, {
    details: { line, column, construct },
  });
}

/** As `unsupported` with `outsideModel`, for a refusal found while the statement runs (no position). */
export function outsideModel(construct: string, reason: string): ToolgraphError {
  return new ToolgraphError('TG_CYPHER_UNSUPPORTED', `${construct}: toolgraph's graph model excludes ${reason} (${MODEL}).`, {
    details: { construct, outsideModel: reason },
  });
}

/** Cypher's temporal functions (`date`, `datetime`, ... and their `date.truncate`-style forms): the graph model has no temporal values. */
export const TEMPORAL_FUNCTIONS: ReadonlySet<string> = new Set(['date', 'datetime', 'localdatetime', 'time', 'localtime', 'duration']);

/** A value written in the Cypher text that no property or answer can hold (a lone surrogate, say). */
export function valueInvalid(source: string, offset: number, problem: string): ToolgraphError {
  const { line, column } = positionOf(source, offset);
  return new ToolgraphError('TG_VALUE_INVALID', `Cypher at line ${line}, column ${column}: ${problem}`, { details: { line, column } });
}

export function runtimeError(message: string, details?: Record<string, unknown>): ToolgraphError {
  return new ToolgraphError('TG_CYPHER_RUNTIME', message, details === undefined ? {} : { details });
}
