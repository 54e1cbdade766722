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

  export interface InteractionDetails {
    readonly uid: string;
    readonly prompt: { name: string; reasons: string[]; details: Record<string, unknown> };
    readonly params: Record<string, unknown>;
    readonly session?: { accountId: string };
    readonly grantId?: string;
  }

  export interface GrantInstance {
    addOIDCScope(scope: string): void;
    addOIDCClaims(claims: string[]): void;
    addResourceScope(indicator: string, scope: string): void;
    save(): Promise<string>;
  }

  export interface GrantClass {
    new (properties: { accountId: string; clientId: string }): GrantInstance;
    find(id: string): Promise<GrantInstance | undefined>;
  }

  export class Provider {
    constructor(issuer: string, configuration?: Record<string, unknown>);
    readonly issuer: string;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
    registerGrantType(name: string, handler: (ctx: OidcContext) => Promise<void>, params?: string | readonly string[], dupes?: string | readonly string[]): void;
    on(event: string, listener: (...args: unknown[]) => void): this;
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<InteractionDetails>;
    interactionFinished(req: IncomingMessage, res: ServerResponse, result: Record<string, unknown>, options?: { mergeWithLastSubmission?: boolean }): Promise<void>;
    AccessToken: new (properties: Record<string, unknown>) => AccessTokenInstance;
    ResourceServer: new (identifier: string, info: Record<string, unknown>) => unknown;
    Grant: GrantClass;
  }
  export default Provider;

  export const errors: {
    InvalidRequest: new (description: string) => Error;
    InvalidGrant: new (description: string) => Error;
    InvalidTarget: new (description: string) => Error;
    InvalidScope: new (description: string, scope: string) => Error;
  };
}
