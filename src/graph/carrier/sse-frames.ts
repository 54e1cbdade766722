import type { ErrorBody, ToolgraphError } from '../../errors/index.ts';

/**
 * The carrier's SSE events (graphql-sse's distinct-connections shapes, plus a reason on `complete`):
 *
 *   event: next                       a GraphQL result of the Subscription root: {"data": {...}}
 *   data: {"data":{...}}              (with "errors" when a field failed)
 *
 *   event: complete                   the last event of every stream the server ends; the
 *   data: {"reason":"…"}              connection closes after it. With "error" ({code, message})
 *                                     when the reason is a failure.
 *
 *   :                                 a keepalive comment, every keepalive interval
 */
export type EndReason =
  | 'session-expired'
  | 'access-revoked'
  | 'frame-too-large'
  | 'graph-dropped'
  | 'evaluation-failed'
  | 'over-budget'
  | 'server-closing';

/** Spec, Limits: each serialised SSE data frame is at most 8 MiB. */
export const MAX_FRAME_BYTES = 8 * 1024 * 1024;

const NEXT_HEAD = 'event: next\ndata: ';
const NEXT_OVERHEAD = Buffer.byteLength(NEXT_HEAD) + 2;

export const KEEPALIVE_FRAME: Buffer = Buffer.from(':\n\n');

/** The headers of an accepted stream; no CORS headers, ever. */
export const STREAM_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-store',
  // A reverse proxy in front (nginx) must pass frames on at once, not buffer them.
  'x-accel-buffering': 'no',
  connection: 'close',
});

/**
 * The `next` frame of a serialised result, or null when it would be over 8 MiB. JSON.stringify
 * output holds no raw newline, so one `data:` line carries it.
 */
export function nextFrame(payload: string): Buffer | null {
  const bytes = Buffer.byteLength(payload) + NEXT_OVERHEAD;
  if (bytes > MAX_FRAME_BYTES) return null;
  const frame = Buffer.allocUnsafeSlow(bytes);
  frame.write(NEXT_HEAD, 0, 'latin1');
  frame.write(payload, NEXT_HEAD.length, 'utf8');
  frame.write('\n\n', bytes - 2, 'latin1');
  return frame;
}

const plainEnds = new Map<EndReason, Buffer>();

/** The final `complete` frame; frames without an error are shared. */
export function completeFrame(reason: EndReason, error?: ToolgraphError): Buffer {
  if (error === undefined) {
    let frame = plainEnds.get(reason);
    if (!frame) {
      frame = Buffer.from(`event: complete\ndata: ${JSON.stringify({ reason })}\n\n`);
      plainEnds.set(reason, frame);
    }
    return frame;
  }
  const body: ErrorBody['error'] = { code: error.code, message: error.message };
  return Buffer.from(`event: complete\ndata: ${JSON.stringify({ reason, error: body })}\n\n`);
}
