import { ToolgraphError } from '../../errors/index.ts';
import { rememberOpaqueToken } from './remember-token.ts';
import type { SignInFlow, TokenSet } from './token-set.ts';

/**
 * A token set as stored (the operator's file, a caller's entry in the state store): OAuth's own field
 * names, times in epoch seconds like `exp`.
 */
export interface TokenSetJson {
  version: 1;
  agent: string;
  flow: SignInFlow;
  issuer: string;
  client_id: string;
  access_token: string;
  token_type: string;
  refresh_token?: string;
  expires_at?: number;
  refresh_expires_at?: number;
  scope?: string;
  resource?: string;
  obtained_at: number;
}

export function tokenSetToJson(set: TokenSet): TokenSetJson {
  const json: TokenSetJson = {
    version: 1, agent: set.agent, flow: set.flow, issuer: set.issuer, client_id: set.clientId,
    access_token: set.accessToken, token_type: set.tokenType, obtained_at: set.obtainedAt / 1000,
  };
  if (set.refreshToken !== undefined) json.refresh_token = set.refreshToken;
  if (set.expiresAt !== undefined) json.expires_at = set.expiresAt / 1000;
  if (set.refreshExpiresAt !== undefined) json.refresh_expires_at = set.refreshExpiresAt / 1000;
  if (set.scope !== undefined) json.scope = set.scope;
  if (set.resource !== undefined) json.resource = set.resource;
  return json;
}

/**
 * A stored token set, checked field by field. `where` names it in the refusal (`token set file
 * /…/jira.json`), `fix` says how to get a good one again; `details` go with the error.
 */
export function tokenSetFromJson(raw: unknown, where: string, fix: string, details: Record<string, unknown> = {}): TokenSet {
  const bad = (what: string) => new ToolgraphError('TG_CONFIG_INVALID', `${where}: expected ${what}; ${fix}`, { details });
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) throw bad('a JSON object');
  const f = raw as Record<string, unknown>;
  if (f['version'] !== 1) throw bad('version 1');
  const text = (name: string, required: boolean): string | undefined => {
    const value = f[name];
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'string' || value === '') throw bad(`"${name}" to be a non-empty string`);
    return value;
  };
  const seconds = (name: string, required: boolean): number | undefined => {
    const value = f[name];
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'number' || !Number.isFinite(value)) throw bad(`"${name}" to be a number of epoch seconds`);
    return value * 1000;
  };
  const flow = text('flow', true);
  if (flow !== 'authorization_code' && flow !== 'device_code') throw bad('"flow" to be authorization_code or device_code');
  const set: TokenSet = Object.freeze({
    agent: text('agent', true)!, flow, issuer: text('issuer', true)!, clientId: text('client_id', true)!,
    accessToken: text('access_token', true)!, tokenType: text('token_type', true)!, refreshToken: text('refresh_token', false),
    expiresAt: seconds('expires_at', false), refreshExpiresAt: seconds('refresh_expires_at', false), scope: text('scope', false), resource: text('resource', false),
    obtainedAt: seconds('obtained_at', true)!,
  });
  rememberOpaqueToken(set.accessToken);
  rememberOpaqueToken(set.refreshToken);
  return set;
}
