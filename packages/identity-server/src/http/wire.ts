// Wire types of the REST API, taken from the types generated from the contract (`@keyway/api/types`, built from
// api/openapi.yaml by openapi-typescript). Route handlers name their operation by path and method, as the contract
// writes them, and get the request body, path parameters and query string the contract declares, so a changed
// contract breaks the build here instead of drifting from hand-written copies.
//
//   patch<Wire<'/persons/{person_id}', 'patch'>>('/persons/:person_id', handler)   (on the Fastify instance)
//
// The server validates every request against the same document (openapi.ts), so these types are what a handler
// really receives.
import type { components, paths } from '@keyway/api/types';

type Method = 'get' | 'put' | 'post' | 'patch' | 'delete';

/** A path of the contract that has an operation for `M`. */
export type PathWith<M extends Method> = { [P in keyof paths]: paths[P][M] extends object ? P : never }[keyof paths];

type Operation<P extends keyof paths, M extends Method> = NonNullable<paths[P][M]>;

/** The body of the contract's media type: JSON, or a form for the OAuth endpoints. */
type JsonOf<C> = C extends { content: { 'application/json': infer B } }
  ? B
  : C extends { content: { 'application/x-www-form-urlencoded': infer F } }
    ? F
    : C extends { content: { 'multipart/form-data': infer M } }
      ? M
      : never;

/** The request body; `undefined` is included when the contract makes the body optional. */
type BodyOf<O> = O extends { requestBody: infer R } ? JsonOf<R> : O extends { requestBody?: infer R } ? JsonOf<NonNullable<R>> | undefined : undefined;

type PathParamsOf<O> = O extends { parameters: { path: infer P } } ? P : Record<string, never>;

/**
 * A list parameter arrives comma-joined (one string) or repeated (an array), unchecked item by item (openapi.ts):
 * the handler splits it (`splitList`) and checks the names.
 */
type Received<Q> = { [K in keyof Q]: NonNullable<Q[K]> extends readonly unknown[] ? string | string[] | Extract<Q[K], undefined> : Q[K] };

type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? ([Q] extends [never] ? Record<string, never> : Received<NonNullable<Q>>) : Record<string, never>;

/** The Fastify route generic of one contract operation. */
export interface Wire<P extends PathWith<M>, M extends Method> {
  Body: BodyOf<Operation<P, M>>;
  Params: PathParamsOf<Operation<P, M>>;
  Querystring: QueryOf<Operation<P, M>>;
}

/** A named schema of the contract (`components.schemas`). */
export type Schema<N extends keyof components['schemas']> = components['schemas'][N];

/** The members of a union that declare key `K` (the contract writes "one of these is required" as a union). */
export type Member<U, K extends PropertyKey> = U extends unknown ? (K extends keyof U ? U : never) : never;
