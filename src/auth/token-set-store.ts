import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolgraphError, describeValue } from '../errors/index.ts';
import { rememberOpaqueToken } from './remember-token.ts';
import type { SignInFlow, TokenSet } from './token-set.ts';

/** Agent names become file names: letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
export const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function checkAgentName(name: string): void {
  if (!AGENT_NAME.test(name)) {
    throw new ToolgraphError('TG_CONFIG_INVALID', `agent name: expected 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit, got ${describeValue(name)}`, { details: { agent: name } });
  }
}

/** The file format: OAuth's own field names, times in epoch seconds like `exp`. */
interface TokenSetFile {
  version: 1;
  agent: string;
  flow: SignInFlow;
  issuer: string;
  client_id: string;
  access_token: string;
  token_type: string;
  refresh_token?: string;
  expires_at?: number;
  scope?: string;
  resource?: string;
  obtained_at: number;
}

function toFile(set: TokenSet): TokenSetFile {
  const file: TokenSetFile = {
    version: 1, agent: set.agent, flow: set.flow, issuer: set.issuer, client_id: set.clientId,
    access_token: set.accessToken, token_type: set.tokenType, obtained_at: set.obtainedAt / 1000,
  };
  if (set.refreshToken !== undefined) file.refresh_token = set.refreshToken;
  if (set.expiresAt !== undefined) file.expires_at = set.expiresAt / 1000;
  if (set.scope !== undefined) file.scope = set.scope;
  if (set.resource !== undefined) file.resource = set.resource;
  return file;
}

function fromFile(path: string, raw: unknown): TokenSet {
  const bad = (what: string) => new ToolgraphError('TG_CONFIG_INVALID', `token set file ${path}: expected ${what}; sign in again with \`toolgraph auth login\``, { details: { file: path } });
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
    expiresAt: seconds('expires_at', false), scope: text('scope', false), resource: text('resource', false), obtainedAt: seconds('obtained_at', true)!,
  });
  rememberOpaqueToken(set.accessToken);
  rememberOpaqueToken(set.refreshToken);
  return set;
}

/**
 * Signed-in token sets, one JSON file per agent under `{state_dir}/tokens/` (XDG state dir by
 * default). Files are written with mode 0600 in a 0700 directory, atomically (temporary file,
 * fsync, rename), so a reader never sees half a token set; a file that others can read is refused,
 * as ssh refuses a private key that others can read.
 */
export class TokenSetStore {
  readonly dir: string;

  constructor(stateDir: string) {
    this.dir = join(stateDir, 'tokens');
  }

  pathOf(agent: string): string {
    checkAgentName(agent);
    return join(this.dir, `${agent}.json`);
  }

  /** Changes whenever the file is replaced (a new sign-in by another process); undefined: no file. */
  async version(agent: string): Promise<string | undefined> {
    try {
      const info = await stat(this.pathOf(agent), { bigint: true });
      return `${info.ino}:${info.mtimeNs}:${info.size}`;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async load(agent: string): Promise<TokenSet | undefined> {
    const path = this.pathOf(agent);
    let text: string;
    try {
      const info = await stat(path);
      if ((info.mode & 0o077) !== 0) {
        throw new ToolgraphError('TG_CONFIG_INVALID', `token set file ${path} has mode ${(info.mode & 0o777).toString(8).padStart(4, '0')}: other users could read its tokens, so it is not used. Run \`chmod 600 ${path}\` or sign in again.`, { details: { file: path } });
      }
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      raw = undefined;
    }
    const set = fromFile(path, raw);
    if (set.agent !== agent) throw new ToolgraphError('TG_CONFIG_INVALID', `token set file ${path} belongs to agent ${JSON.stringify(set.agent)}, not ${JSON.stringify(agent)}`, { details: { file: path } });
    return set;
  }

  /** Writes the agent's token set; returns the file's path. */
  async save(set: TokenSet): Promise<string> {
    const path = this.pathOf(set.agent);
    await mkdir(this.dir, { recursive: true, mode: 0o700 });
    const temporary = `${path}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
    const handle = await open(temporary, 'wx', 0o600);
    try {
      await handle.writeFile(`${JSON.stringify(toFile(set), null, 2)}\n`);
      await handle.sync();
    } catch (error) {
      await handle.close();
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    await handle.close();
    await rename(temporary, path);
    return path;
  }

  async remove(agent: string): Promise<void> {
    await rm(this.pathOf(agent), { force: true });
  }
}
