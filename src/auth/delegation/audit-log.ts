import { mkdir, open, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ToolgraphError } from '../../errors/index.ts';
import type { Principal } from '../../principal/index.ts';

/** The spec's "user identity": who signed in, as the IdP's claims say. Never a token. */
export interface AuditUser {
  readonly sub: string;
  readonly iss?: string;
  readonly email?: string;
  readonly preferred_username?: string;
  readonly name?: string;
}

/** One line of the audit log. */
export interface PassthroughAuditRecord {
  /** ISO 8601, UTC. */
  readonly time: string;
  readonly event: 'identity_passthrough';
  /** The downstream agent called with its API keys. */
  readonly agent: string;
  /** What the tool did there, when the caller says (e.g. `traces.list`). */
  readonly operation?: string;
  /** The SSO user behind the call; null when the request carried no verified identity. */
  readonly user: AuditUser | null;
}

const IDENTITY_CLAIMS = ['iss', 'email', 'preferred_username', 'name'] as const;

/** The identity claims of a verified principal, and nothing else (no token, no scopes, no groups). */
export function auditUserOf(principal: Principal | undefined): AuditUser | null {
  if (principal === undefined) return null;
  const user: Record<string, string> = { sub: principal.subject };
  for (const claim of IDENTITY_CLAIMS) {
    const value = principal.claims?.[claim];
    if (typeof value === 'string' && value !== '') user[claim] = value;
  }
  return user as unknown as AuditUser;
}

export interface AuditLogOptions {
  readonly now?: () => number;
}

/**
 * The identity-passthrough audit log: a JSON-lines file of its own (TOOLGRAPH_AUDIT_LOG, by default
 * `$XDG_STATE_HOME/toolgraph/audit.jsonl`), mode 0600, appended one whole line per write, in call
 * order. Apart from the service log so it can be kept, shipped and access-controlled as an audit
 * trail. A record that cannot be written fails the call: an unaudited passthrough must not happen.
 */
export class AuditLog {
  readonly path: string;
  readonly #now: () => number;
  #handle: Promise<FileHandle> | undefined;
  #tail: Promise<void> = Promise.resolve();

  constructor(path: string, options: AuditLogOptions = {}) {
    this.path = path;
    this.#now = options.now ?? Date.now;
  }

  record(entry: Omit<PassthroughAuditRecord, 'time' | 'event'>): Promise<void> {
    const line: PassthroughAuditRecord = {
      time: new Date(this.#now()).toISOString(),
      event: 'identity_passthrough',
      agent: entry.agent,
      ...(entry.operation === undefined ? {} : { operation: entry.operation }),
      user: entry.user,
    };
    const text = `${JSON.stringify(line)}\n`;
    const write = this.#tail.then(async () => {
      const handle = await this.#open();
      await handle.appendFile(text);
    });
    // The chain keeps lines in call order; one failed write does not block the next.
    this.#tail = write.catch(() => undefined);
    return write.catch((error: unknown) => {
      this.#handle = undefined;
      throw new ToolgraphError('TG_INTERNAL', `the audit log ${this.path} (TOOLGRAPH_AUDIT_LOG) could not be written (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}), so the identity-passthrough call was not made`, { cause: error });
    });
  }

  async close(): Promise<void> {
    await this.#tail;
    const handle = this.#handle;
    this.#handle = undefined;
    if (handle) await (await handle).close();
  }

  #open(): Promise<FileHandle> {
    this.#handle ??= (async () => {
      await mkdir(dirname(this.path), { recursive: true, mode: 0o700 });
      return open(this.path, 'a', 0o600);
    })();
    return this.#handle;
  }
}
