import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from './errors.js';

// Optimistic concurrency of the management API (`ETag` on reads and changes, `If-Match` on changes, RFC 9110 §13.1.1):
// a client that read an object can change it only if nobody changed it meanwhile.

/** A strong ETag of an object's state (its JSON), the same for the same state on every server. */
export const etagOf = (state: unknown): string => `"${createHash('sha256').update(JSON.stringify(state)).digest('base64url').slice(0, 27)}"`;

/**
 * 412 unless the request has no `If-Match`, or it is `*`, or it lists `current` (strong comparison: a weak tag never
 * matches). Call it where the current state is read for the change, in the transaction that writes it.
 */
export function checkIfMatch(req: FastifyRequest, current: string): void {
  const header = req.headers['if-match'];
  if (header === undefined) return;
  const tags = String(header).split(',').map((t) => t.trim());
  if (tags.includes('*') || tags.includes(current)) return;
  throw new ApiError(412, `If-Match ${String(header)} does not match the current ETag ${current}: the object changed since it was read; read it again`);
}

/** Sets the `ETag` header of an answer. */
export const sendEtag = (reply: FastifyReply, state: unknown): FastifyReply => reply.header('etag', etagOf(state));
