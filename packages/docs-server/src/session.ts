import type { FastifyInstance } from 'fastify';

declare module 'fastify' {
  interface FastifyRequest {
    /**
     * True when the visitor holds a valid docs session (signed in through /login). Gated content — the
     * Identity Protection detections and queries pages, their chunks, their search and assistant passages —
     * is only ever served when this is true. Set by the gate (./gate); false until it says otherwise.
     */
    docsSignedIn: boolean;
  }
}

/** Declares `request.docsSignedIn` with its safe default: not signed in. */
export function registerSessionDefault(app: FastifyInstance): void {
  app.decorateRequest('docsSignedIn', false);
}
