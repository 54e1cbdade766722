import { homedir } from 'node:os';
import { join } from 'node:path';

/** XDG Base Directory locations of toolgraph, read from the given environment. */
export interface XdgPaths {
  configDir: string;
  configFile: string;
  dataDir: string;
  cacheDir: string;
  /** `$XDG_STATE_HOME/toolgraph`: state that should survive restarts but is not data (token sets, the audit log). */
  stateDir: string;
}

function base(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = env[name];
  // The XDG spec says relative paths in these variables are invalid and must be ignored.
  return value?.startsWith('/') ? value : join(env['HOME'] ?? homedir(), fallback);
}

export function xdgPaths(env: NodeJS.ProcessEnv = process.env): XdgPaths {
  const configDir = join(base(env, 'XDG_CONFIG_HOME', '.config'), 'toolgraph');
  return {
    configDir,
    configFile: join(configDir, 'config.json'),
    dataDir: join(base(env, 'XDG_DATA_HOME', '.local/share'), 'toolgraph'),
    cacheDir: join(base(env, 'XDG_CACHE_HOME', '.cache'), 'toolgraph'),
    stateDir: join(base(env, 'XDG_STATE_HOME', '.local/state'), 'toolgraph'),
  };
}
