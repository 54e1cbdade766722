import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Session } from './subscription-hub.ts';

/**
 * The carrier's ServerResponse (node:http `ServerResponse` option): it carries its session, so one
 * shared close handler serves every connection instead of a closure per subscriber.
 */
export class CarrierResponse extends ServerResponse<IncomingMessage> {
  session: Session | null = null;
}
