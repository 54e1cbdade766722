import type { components } from '../../generated/openapi/types.ts';
import { toToolgraphError, type ToolgraphError } from '../errors/index.ts';

/**
 * MCP's CallToolResult as this server answers it (text content only), for MCP and the REST endpoint
 * alike: the document's CallToolResult (generated), open to further keys as the MCP SDK's type is.
 */
export type ToolResult = components['schemas']['CallToolResult'] & { [key: string]: unknown };

/** A successful call: the output as structured content, and the same JSON as text for clients that read only text. */
export function toolSuccess(output: object): ToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output as Record<string, unknown> };
}

/** What a call that needs the caller's consent answers as structured content (beside the text). */
export interface ConsentRequiredContent {
  readonly consent_required: {
    readonly agent: string;
    /** The provider's authorization URL to open in a browser. */
    readonly authorization_url: string;
    /** Seconds the URL stays good. */
    readonly expires_in: number;
    /** The same consent's id in MCP URL-mode elicitation. */
    readonly elicitation_id: string;
  };
}

/** The output schema of that structured content: listed by tools whose agents may ask for consent. */
export const CONSENT_REQUIRED_SCHEMA = Object.freeze({
  type: 'object',
  description: 'The call needs your consent at the agent\'s OAuth provider first: open authorization_url (this server\'s consent link, good once and only for you) in your own browser, sign in as yourself, allow access, then call again.',
  required: ['consent_required'],
  properties: {
    consent_required: {
      type: 'object',
      required: ['agent', 'authorization_url', 'expires_in', 'elicitation_id'],
      properties: {
        agent: { type: 'string' },
        authorization_url: { type: 'string' },
        expires_in: { type: 'integer' },
        elicitation_id: { type: 'string' },
      },
    },
  },
});

/** The consent a TG_CONSENT_REQUIRED error asks for, from its details. */
function consentRequiredOf(error: ToolgraphError): ConsentRequiredContent | undefined {
  if (error.code !== 'TG_CONSENT_REQUIRED') return undefined;
  const d = error.details ?? {};
  const [agent, url, expires, id] = [d['agent'], d['authorizationUrl'], d['expiresInSeconds'], d['elicitationId']];
  if (typeof agent !== 'string' || typeof url !== 'string' || typeof expires !== 'number' || typeof id !== 'string') return undefined;
  return { consent_required: { agent, authorization_url: url, expires_in: expires, elicitation_id: id } };
}

/**
 * A failed call: `isError: true` with the error's message as the text, verbatim (the spec's own
 * texts, such as `No user token available for delegation`, come through unchanged), followed by its
 * fix where it has one. An unexpected fault shows only `Internal server error.`; the log has the
 * rest. A call that needs the caller's consent also carries the authorization URL as structured content.
 */
export function toolError(thrown: unknown): { result: ToolResult; error: ToolgraphError } {
  const error = toToolgraphError(thrown);
  const consent = consentRequiredOf(error);
  return { result: { content: [{ type: 'text', text: textOf(error) }], ...(consent ? { structuredContent: { ...consent } } : {}), isError: true }, error };
}

/**
 * The spec's delegation texts that are a bare sentence, their fix apart in `details.fix` (the others
 * say what to do in their own message).
 */
const FIX_AFTER_TEXT: ReadonlySet<string> = new Set(['TG_NO_USER_TOKEN', 'TG_NO_TOKEN_ENDPOINT']);

/**
 * The message, then for those its `details.fix`: a model or a person reading only the text learns
 * what to do, and the spec's text stays first, verbatim, for whoever matches on it.
 */
function textOf(error: ToolgraphError): string {
  const fix = error.details?.['fix'];
  if (!FIX_AFTER_TEXT.has(error.code) || typeof fix !== 'string') return error.message;
  return `${error.message}${/[.!?]$/.test(error.message) ? '' : '.'} Fix: ${fix}`;
}
