import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { ToolgraphError, describeValue } from '../../errors/index.ts';
import { tokenSetFromJson, tokenSetToJson } from './token-set-json.ts';
import type { TokenSet } from './token-set.ts';

/** Agent names become file names: letters, digits, `.`, `_`, `-`, starting with a letter or digit. */
const AGENT_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export function checkAgentName(name: string): void {
  if (!AGENT_NAME.test(name)) {
    throw new ToolgraphError('TG_CONFIG_INVALID', `agent name: expected 1 to 64 letters, digits, ".", "_" or "-", starting with a letter or digit, got ${describeValue(name)}`, { details: { agent: name } });
  }
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
    const set = tokenSetFromJson(raw, `token set file ${path}`, 'sign in again with `toolgraph auth login`', { file: path });
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
      await handle.writeFile(`${JSON.stringify(tokenSetToJson(set), null, 2)}\n`);
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
