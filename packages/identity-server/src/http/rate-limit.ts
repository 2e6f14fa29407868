import { ApiError, answerMessage } from './errors.js';

/** Fixed-window counters kept in memory (per process), keyed by scope and subject (IP address, handle). */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; count: number }>();
  private lastSweep = Date.now();

  constructor(private readonly windowMs = 60_000) {}

  /** Counts one hit; throws 429 when `limit` hits already happened in the current window. */
  hit(scope: string, subject: string, limit: number, what: string): void {
    if (limit <= 0) return;
    const now = Date.now();
    if (now - this.lastSweep > this.windowMs) this.sweep(now);
    const key = `${scope}\u0000${subject}`;
    let w = this.windows.get(key);
    if (!w || now - w.start >= this.windowMs) {
      w = { start: now, count: 0 };
      this.windows.set(key, w);
    }
    w.count += 1;
    if (w.count > limit) {
      const retryAfter = Math.ceil((w.start + this.windowMs - now) / 1000);
      throw new RateLimitError(answerMessage('rateLimited', { what, seconds: retryAfter }), retryAfter);
    }
  }

  private sweep(now: number): void {
    this.lastSweep = now;
    for (const [key, w] of this.windows) if (now - w.start >= this.windowMs) this.windows.delete(key);
  }
}

export class RateLimitError extends ApiError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(429, message);
  }
}
