import type { KeywayClient } from './client.js';
import { InvalidKeywayConfigurationError } from './errors.js';
import { randomToken } from './pkce.js';
import { getItem, setItem } from './storage.js';
import type { AnalyticsEventName } from './types.js';

/** Whether the browser is Firefox-like (no keep-alive fetch there). */
export const isFirefoxLike = (ua: string) => /firefox|fxios|seamonkey/i.test(ua);

/** Per-tab analytics correlation id, kept in session storage. */
export function correlationId(): string {
  let id = getItem('sessionStorage', 'analytics_correlation_id', 'analytics correlation');
  if (!id) {
    id = crypto.randomUUID?.() ?? randomToken(16);
    setItem('sessionStorage', 'analytics_correlation_id', id, 'analytics correlation');
  }
  return id;
}

/**
 * Sends an analytics event to `POST /actions/sdk` when analytics are on (keep-alive except on
 * Firefox-like browsers). Failures are swallowed: analytics never break a sign-in.
 * @internal
 */
export function track(client: KeywayClient, name: AnalyticsEventName, data: Record<string, unknown>): Promise<void> {
  const { analytics, oid } = client.config;
  // Off, or not in a browser (server-side rendering): nothing is sent.
  if (!analytics || typeof location === 'undefined' || typeof navigator === 'undefined') return Promise.resolve();
  const ua = navigator.userAgent.slice(0, 500);
  return client
    .call('POST', '/actions/sdk', {
      body: {
        event_name: name,
        organization_id: oid,
        analytics_correlation_id: correlationId(),
        window_location: location.href,
        user_agent: ua,
        event_data: data,
      },
      org: true,
      keepalive: !isFirefoxLike(ua),
    })
    .then(
      () => {},
      () => {},
    );
}

/**
 * Sends a custom-data analytics event (for example `VirtualPageLoaded_v1` on client-side navigation).
 * @throws {@link errors.InvalidKeywayConfigurationError} when analytics are off.
 */
export function sendEvent(client: KeywayClient, name: AnalyticsEventName, data: Record<string, unknown> = {}): Promise<void> {
  if (!client.config.analytics) throw new InvalidKeywayConfigurationError('analytics must be enabled to use analytics');
  return track(client, name, data);
}
