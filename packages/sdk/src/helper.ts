import type { KeywayClient } from './client.js';
import { sleep } from './client.js';
import { UnexpectedError } from './errors.js';

/** Message types exchanged with the hidden cross-origin helper page (and SSO popups). */
export enum HelperMessageType {
  /** Read an item of the helper origin's local storage. */
  GetItem = 'get_item',
  /** Write (or with `null`, remove) an item of the helper origin's local storage. */
  SetItem = 'set_item',
  /** Readiness check; answered with `pong`. */
  Ping = 'ping',
  /** Create a passkey in the helper's origin. */
  WebAuthnCreate = 'webauthn_create',
  /** Use a passkey in the helper's origin. */
  WebAuthnGet = 'webauthn_get',
  /** An SSO return (`challenge_id`, `code`, `csrf_token`) posted by a popup to its opener. */
  SSOChallenge = 'sso_challenge',
}

/** A request or answer between the page and the helper. */
export interface HelperMessage {
  /** Marks Keyway messages. */
  keyway: true;
  /** Correlates an answer with its request. */
  id: number;
  /** Message type. */
  type: HelperMessageType;
  /** Storage key (get/set item). */
  key?: string;
  /** Storage value (set item). */
  value?: string | null;
  /** WebAuthn options (base64url JSON form). */
  options?: unknown;
  /** Result of an answer. */
  result?: unknown;
  /** Error of an answer. */
  error?: { name: string; message: string };
}

/** Fixed id of the hidden helper iframe. */
export const HELPER_FRAME_ID = 'keyway-helper-frame';
/** Milliseconds between two readiness pings (and focus attempts). */
export const LOOP_MS = 50;
/** Milliseconds waited before opening the helper window for WebAuthn. */
export const WINDOW_DELAY_MS = 200;
/** Milliseconds after which an unanswered helper gives up. */
export const HELPER_TIMEOUT_MS = 30_000;
/** Milliseconds the hidden iframe may take to answer its first ping. */
export const FRAME_READY_MS = 5_000;

let seq = 0;

/**
 * Talks to the helper page served from `sdkURL` (`/helper.html`): a hidden iframe for storage
 * shared across the organization's sites, and a small window for passkeys whose scope is not
 * the current site.
 */
export class HelperChannel {
  /** URL of the helper page. */
  readonly url: string;
  /** Origin answers must come from. */
  readonly origin: string;
  private frameReady?: Promise<Window>;

  constructor(client: KeywayClient) {
    this.url = client.config.sdkURL + '/helper.html';
    this.origin = new URL(this.url).origin;
  }

  /** Sends one message to `target` and resolves with the answer's `result`. */
  send(target: Window, type: HelperMessageType, extra: Partial<HelperMessage> = {}, timeout = HELPER_TIMEOUT_MS): Promise<unknown> {
    const id = ++seq;
    return new Promise((resolve, reject) => {
      const done = () => {
        clearTimeout(t);
        removeEventListener('message', onMessage);
      };
      const onMessage = (e: MessageEvent) => {
        const m = e.data as HelperMessage;
        if (e.origin !== this.origin || m?.keyway !== true || m.id !== id) return;
        done();
        if (m.error) reject(Object.assign(new Error(m.error.message), { name: m.error.name }));
        else resolve(m.result);
      };
      const t = setTimeout(() => {
        done();
        reject(new UnexpectedError(`Keyway helper did not answer ${type}`));
      }, timeout);
      addEventListener('message', onMessage);
      target.postMessage({ keyway: true, id, type, ...extra }, this.origin);
    });
  }

  /** Pings `target` every 50 ms (focusing it when asked) until it answers, for at most `budget` ms. */
  async ready(target: Window, focus = false, budget = HELPER_TIMEOUT_MS): Promise<Window> {
    for (let waited = 0; waited < budget; waited += LOOP_MS) {
      if (focus) target.focus();
      const pong = await this.send(target, HelperMessageType.Ping, {}, LOOP_MS).catch(() => undefined);
      if (pong === 'pong') return target;
      if (target.closed) break;
      await sleep(0);
    }
    throw new UnexpectedError('Keyway helper page is not responding');
  }

  /** The hidden helper iframe (created on first use), once it answers pings. */
  frame(): Promise<Window> {
    return (this.frameReady ??= (async () => {
      let f = document.getElementById(HELPER_FRAME_ID) as HTMLIFrameElement | null;
      if (!f) {
        f = document.createElement('iframe');
        f.id = HELPER_FRAME_ID;
        f.src = this.url;
        f.hidden = true;
        f.setAttribute('aria-hidden', 'true');
        f.setAttribute('allow', 'publickey-credentials-get *; publickey-credentials-create *');
        document.body.appendChild(f);
      }
      if (!f.contentWindow) throw new UnexpectedError('cannot get global id iframe');
      return this.ready(f.contentWindow, false, FRAME_READY_MS);
    })());
  }

  /** Reads an item of the helper origin's storage. */
  async getItem(key: string): Promise<string | null> {
    return (await this.send(await this.frame(), HelperMessageType.GetItem, { key })) as string | null;
  }

  /** Writes (or with `null`, removes) an item of the helper origin's storage. */
  async setItem(key: string, value: string | null): Promise<void> {
    await this.send(await this.frame(), HelperMessageType.SetItem, { key, value });
  }

  /**
   * Runs a WebAuthn ceremony in a helper window: waits 200 ms, opens the window, focuses and pings
   * it every 50 ms until ready, sends the options and closes it after the answer.
   */
  async webauthn(type: HelperMessageType.WebAuthnCreate | HelperMessageType.WebAuthnGet, options: unknown): Promise<unknown> {
    await sleep(WINDOW_DELAY_MS);
    const w = window.open(this.url, 'keyway-helper', 'popup,width=400,height=600');
    if (!w) throw new UnexpectedError('cannot open global id window');
    try {
      return await this.send(await this.ready(w, true), type, { options }, HELPER_TIMEOUT_MS);
    } finally {
      w.close();
    }
  }
}
