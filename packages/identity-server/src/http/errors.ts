/** An answer the API gives on purpose: HTTP status plus the message the SDK reads from `errors[0].message`. */
export class ApiError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
  }
}

export const badRequest = (message: string) => new ApiError(400, message);
export const unauthorized = (message: string) => new ApiError(401, message);
export const forbidden = (message: string) => new ApiError(403, message);
export const notFound = (message: string) => new ApiError(404, message);
export const conflict = (message: string) => new ApiError(409, message);

/** Envelope of every JSON answer: `{ result, errors?, meta? }`. */
export interface Envelope<T> {
  result: T | null;
  errors?: Array<{ httpcode: number; message: string }>;
  meta?: { pagination: { limit: number; offset: number; total_count: number } };
}

export function errorEnvelope(status: number, message: string): Envelope<never> {
  return { result: null, errors: [{ httpcode: status, message }] };
}

export function page<T>(items: T[], limit: number, offset: number, total: number): Envelope<T[]> {
  return { result: items, meta: { pagination: { limit, offset, total_count: total } } };
}
