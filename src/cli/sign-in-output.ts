import type { DevicePrompt, TokenSet } from '../auth/index.ts';
import type { CliIo } from './cli-io.ts';

/** What the user must do for a device sign-in: where to go and which code to confirm. */
export function printDevicePrompt(io: CliIo, what: string, prompt: DevicePrompt): void {
  io.out(`To sign ${what} in, open ${prompt.verificationUri} in any browser and enter the code ${prompt.userCode}`);
  if (prompt.verificationUriComplete) io.out(`(or open ${prompt.verificationUriComplete}, which has the code filled in)`);
  io.out(`Waiting up to ${prompt.expiresInSeconds} s for the confirmation...`);
}

/** The line that ends a successful sign-in; never a token. */
export function printSignedIn(io: CliIo, what: string, set: TokenSet, path: string, now = Date.now()): void {
  const validity = set.expiresAt === undefined ? 'no expiry given' : `access token valid ${Math.max(0, Math.round((set.expiresAt - now) / 1000))} s`;
  io.out(`signed in ${what}: token set stored in ${path} (mode 0600; ${validity}${set.refreshToken ? ', refreshable' : ', no refresh token: sign in again when it expires'})`);
}
