// node-oidc-provider ships no type declarations; the tests use only its constructor, events and request callback.
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http';
  export default class Provider {
    constructor(issuer: string, configuration: Record<string, unknown>);
    on(event: string, listener: (...args: unknown[]) => void): this;
    callback(): (req: IncomingMessage, res: ServerResponse) => void;
  }
}
