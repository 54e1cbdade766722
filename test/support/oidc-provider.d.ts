// oidc-provider ships no type declarations; this covers the surface the test IdP uses.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';

  export interface OidcContext {
    oidc: {
      params: Record<string, unknown>;
      client: unknown;
      provider: Provider;
    };
    body: unknown;
  }

  export interface AccessTokenInstance {
    resourceServer: unknown;
    readonly expiration: number;
    save(): Promise<string>;
  }

  export class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    readonly issuer: string;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    registerGrantType(name: string, handler: (ctx: OidcContext) => Promise<void>, params?: string | readonly string[], dupes?: string | readonly string[]): void;
    on(event: string, listener: (...args: unknown[]) => void): this;
    AccessToken: new (properties: Record<string, unknown>) => AccessTokenInstance;
    ResourceServer: new (identifier: string, info: Record<string, unknown>) => unknown;
  }
  export default Provider;

  export const errors: {
    InvalidRequest: new (description: string) => Error;
    InvalidGrant: new (description: string) => Error;
  };
}
