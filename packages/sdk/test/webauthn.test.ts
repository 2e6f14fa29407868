import { describe, expect, it, vi } from 'vitest';
import * as errors from '../src/errors.js';
import { answer, allowedOrigins } from '../src/helper-page.js';
import { HelperMessageType } from '../src/helper.js';
import { b64url } from '../src/pkce.js';
import { rememberedCredentials } from '../src/storage.js';
import { meetsPasskeyMinimums, passkeyFactor, platformAuthenticatorAvailable, signInWithPasskey } from '../src/webauthn.js';
import { client, route, SDK_HOST, TOKEN } from './fake.js';
import { deliver, fakeWindow, mockOpen } from './popup.js';

const bytes = (s: string) => new TextEncoder().encode(s).buffer;

function fakeCredential(id: string) {
  return {
    id,
    rawId: bytes(id),
    type: 'public-key',
    authenticatorAttachment: 'platform',
    getClientExtensionResults: () => ({}),
    response: { clientDataJSON: bytes('{"c":1}'), attestationObject: bytes('att'), getTransports: () => ['internal'] },
  };
}

function installWebAuthn(opts: { platform?: boolean; create?: () => Promise<unknown>; get?: () => Promise<unknown> } = {}) {
  type Ceremony = (o: { publicKey: PublicKeyCredentialCreationOptions & PublicKeyCredentialRequestOptions }) => Promise<unknown>;
  const create = vi.fn<Ceremony>(opts.create ?? (async () => fakeCredential('cred-1')));
  const get = vi.fn<Ceremony>(opts.get ?? (async () => fakeCredential('cred-1')));
  vi.stubGlobal('PublicKeyCredential', { isUserVerifyingPlatformAuthenticatorAvailable: async () => opts.platform ?? true });
  Object.defineProperty(navigator, 'credentials', { value: { create, get }, configurable: true });
  return { create, get };
}

const createChallenge = {
  id: 'w1',
  type: 'webauthn_create',
  options: {
    challenge: b64url(bytes('chal')),
    rp: { name: 'Acme' },
    user: { id: b64url(bytes('user-1')), name: 'ada', displayName: 'Ada' },
    pubKeyCredParams: [{ type: 'public-key', alg: -7 }],
  },
};

/** A hidden helper iframe whose window answers like helper.html, with its own storage. */
function sharedStorageFrame(initial: Record<string, string> = {}) {
  const win = fakeWindow();
  const store = new Map(Object.entries(initial));
  const origin = new URL(SDK_HOST).origin;
  win.postMessage.mockImplementation((m: { id: number; type: string; key?: string; value?: string }) => {
    let result: unknown = null;
    if (m.type === 'ping') result = 'pong';
    if (m.type === 'get_item') result = store.get('keyway.' + m.key) ?? null;
    if (m.type === 'set_item') store.set('keyway.' + m.key, m.value!);
    queueMicrotask(() => deliver({ keyway: true, id: m.id, type: m.type, result }, win, origin));
  });
  vi.spyOn(document, 'getElementById').mockImplementation((id) =>
    id === 'keyway-helper-frame' ? ({ contentWindow: win } as unknown as HTMLElement) : null,
  );
  return { win, store };
}

describe('passkeys', () => {
  it('creates a passkey: scope defaults to the hostname, binary options decoded, id remembered, attested', async () => {
    const { create } = installWebAuthn();
    const id = route('POST', '/id/v2', [createChallenge]);
    const att = route('POST', '/attestation/v3', { token: TOKEN });
    const c = client();
    const processed = vi.fn();
    c.events.on('webAuthnChallengeProcessed', processed);
    await expect(signInWithPasskey(c, { handle: 'ada@example.com' }).result).resolves.toBe(TOKEN);
    expect(id[0]!.body.factor).toEqual({ method: 'webauthn', options: { scope: 'app.example.com', available_credential_ids: [] } });
    const pk = create.mock.calls[0]![0]!.publicKey!;
    expect(new TextDecoder().decode(pk.challenge as Uint8Array)).toBe('chal');
    expect(new TextDecoder().decode(pk.user.id as Uint8Array)).toBe('user-1');
    expect(pk.rp).toEqual({ name: 'Acme', id: 'app.example.com' });
    expect(att[0]!.body.data).toMatchObject({ id: 'cred-1', rawId: b64url(bytes('cred-1')), response: { attestationObject: b64url(bytes('att')), transports: ['internal'] } });
    expect(rememberedCredentials('app.example.com')).toEqual(['cred-1']);
    expect(processed).toHaveBeenCalledWith(expect.objectContaining({ type: 'webauthn_create', credentialId: 'cred-1' }));
  });

  it('offers the credential ids remembered for the scope', async () => {
    installWebAuthn();
    localStorage.setItem('keyway.passkeys.example.com', JSON.stringify(['old-1']));
    expect(await passkeyFactor({ scope: 'example.com' })).toEqual({ scope: 'example.com', available_credential_ids: ['old-1'] });
  });

  it('maps a dismissed prompt to "Passkey prompt was dismissed" and a security error to a bad scope', async () => {
    installWebAuthn({ get: async () => Promise.reject(new DOMException('x', 'NotAllowedError')) });
    route('POST', '/id/v2', [{ id: 'g', type: 'webauthn_get', options: { challenge: 'AA' } }]);
    const err = await signInWithPasskey(client()).result.catch((e) => e);
    expect(err).toBeInstanceOf(errors.PasskeyPromptError);
    expect(err.message).toBe('Passkey prompt was dismissed');
    installWebAuthn({ get: async () => Promise.reject(new DOMException('x', 'SecurityError')) });
    await expect(signInWithPasskey(client()).result).rejects.toThrow('Passkey scope is invalid');
    installWebAuthn({ get: async () => null });
    await expect(signInWithPasskey(client()).result).rejects.toThrow('could not create assert credential');
    installWebAuthn({ create: async () => null });
    route('POST', '/id/v2', [createChallenge]);
    await expect(signInWithPasskey(client()).result).rejects.toThrow('cannot create credential');
  });

  it('needs the WebAuthn API, and a platform authenticator for platform attachment', async () => {
    Object.defineProperty(navigator, 'credentials', { value: undefined, configurable: true });
    await expect(signInWithPasskey(client()).result).rejects.toThrow('The WebAuthn API is not available in the current environment');
    installWebAuthn({ platform: false });
    await expect(signInWithPasskey(client(), { attachment: 'platform' }).result).rejects.toThrow(
      'This device has no platform authenticator available',
    );
  });

  it('checks the platform minimum versions', () => {
    const ua = {
      chrome107: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/107.0.0.0 Safari/537.36',
      chrome108: 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/108.0.0.0 Safari/537.36',
      safari160: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.0 Safari/605.1.15',
      safari161: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.1 Safari/605.1.15',
      macos12: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 12_6) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Safari/537.36',
      ios15: 'Mozilla/5.0 (iPhone; CPU iPhone OS 15_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/15.6 Mobile/15E148 Safari/604.1',
      ios16: 'Mozilla/5.0 (iPhone; CPU iPhone OS 16_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.0 Mobile/15E148 Safari/604.1',
      android8: 'Mozilla/5.0 (Linux; Android 8.1.0; Pixel) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36',
      android9: 'Mozilla/5.0 (Linux; Android 9; Pixel) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0 Mobile Safari/537.36',
      firefox121: 'Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0',
      firefox122: 'Mozilla/5.0 (X11; Linux x86_64; rv:122.0) Gecko/20100101 Firefox/122.0',
      opera96: 'Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/110.0 Safari/537.36 OPR/96.0',
      opera97: 'Mozilla/5.0 (Windows NT 10.0) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/111.0 Safari/537.36 OPR/97.0',
    };
    const ok = Object.fromEntries(Object.entries(ua).map(([k, v]) => [k, meetsPasskeyMinimums(v)]));
    expect(ok).toEqual({
      chrome107: false, chrome108: true, safari160: false, safari161: true, macos12: false, ios15: false, ios16: true,
      android8: false, android9: true, firefox121: false, firefox122: true, opera96: false, opera97: true,
    });
  });

  it('platformAuthenticatorAvailable combines the API answer and the minimums', async () => {
    installWebAuthn({ platform: true });
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue('Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0');
    expect(await platformAuthenticatorAvailable()).toBe(false);
  });

  it('uses the helper window for a scope of another site: 200 ms wait, 50 ms ping loop, then the ceremony', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const w = fakeWindow();
    const origin = new URL(SDK_HOST).origin;
    w.postMessage.mockImplementation((m: { id: number; type: string }) => {
      const pings = w.postMessage.mock.calls.filter(([x]) => x.type === 'ping').length;
      if (m.type === 'ping' && pings < 3) return; // not ready yet
      const result = m.type === 'ping' ? 'pong' : { id: 'remote-cred', response: {} };
      queueMicrotask(() => deliver({ keyway: true, id: m.id, type: m.type, result }, w, origin));
    });
    const { open } = mockOpen(w);
    const frame = sharedStorageFrame({ 'keyway.passkeys.keyway.dev': '["older-cred"]' });
    const id = route('POST', '/id/v2', [{ ...createChallenge, options: { ...createChallenge.options, rp: { id: 'keyway.dev' } } }]);
    const att = route('POST', '/attestation/v3', { token: TOKEN });
    const flow = signInWithPasskey(client(), { scope: 'keyway.dev', handle: 'ada@example.com' });
    await vi.advanceTimersByTimeAsync(5);
    expect(id[0]!.body.factor.options.available_credential_ids).toEqual(['older-cred']);
    await vi.advanceTimersByTimeAsync(145);
    expect(open).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(60);
    expect(open).toHaveBeenCalledWith(`${SDK_HOST}/helper.html`, 'keyway-helper', expect.any(String));
    await vi.advanceTimersByTimeAsync(200);
    await expect(flow.result).resolves.toBe(TOKEN);
    const types = w.postMessage.mock.calls.map(([m]) => m.type);
    expect(types).toEqual(['ping', 'ping', 'ping', 'webauthn_create']);
    expect(w.focus).toHaveBeenCalledTimes(3);
    expect(w.postMessage.mock.calls[3]![1]).toBe(origin);
    expect(att[0]!.body.data.id).toBe('remote-cred');
    expect(rememberedCredentials('keyway.dev')).toEqual(['remote-cred']);
    expect(frame.store.get('keyway.passkeys.keyway.dev')).toBe('["remote-cred","older-cred"]');
    expect(w.close).toHaveBeenCalled();
  });

  it('fails when the helper window cannot open', async () => {
    mockOpen(null);
    sharedStorageFrame();
    route('POST', '/id/v2', [createChallenge]);
    await expect(signInWithPasskey(client(), { scope: 'keyway.dev' }).result).rejects.toThrow('cannot open global id window');
  });
});

describe('helper page', () => {
  it('answers ping, and storage only for allowed origins', async () => {
    const allowed = ['https://docs.example.com'];
    expect(await answer({ keyway: true, id: 1, type: HelperMessageType.Ping }, 'https://evil.test', allowed)).toBe('pong');
    await answer({ keyway: true, id: 2, type: HelperMessageType.SetItem, key: 'handles', value: '["a"]' }, 'https://docs.example.com', allowed);
    expect(localStorage.getItem('keyway.handles')).toBe('["a"]');
    expect(await answer({ keyway: true, id: 3, type: HelperMessageType.GetItem, key: 'handles' }, 'https://docs.example.com', allowed)).toBe('["a"]');
    await expect(answer({ keyway: true, id: 4, type: HelperMessageType.GetItem, key: 'handles' }, 'https://evil.test', allowed)).rejects.toThrow(
      /may not use the Keyway helper storage/,
    );
    await answer({ keyway: true, id: 5, type: HelperMessageType.SetItem, key: 'handles', value: null }, 'https://docs.example.com', allowed);
    expect(localStorage.getItem('keyway.handles')).toBeNull();
  });
  it('reads the allowed origins from its meta tag', () => {
    document.head.innerHTML = '<meta name="keyway-allowed-origins" content="https://a.example https://b.example">';
    expect(allowedOrigins()).toEqual(['https://a.example', 'https://b.example']);
  });
  it('runs WebAuthn ceremonies in its own origin', async () => {
    const { get } = installWebAuthn();
    const r = await answer({ keyway: true, id: 6, type: HelperMessageType.WebAuthnGet, options: { options: { challenge: 'AA' }, scope: 'keyway.dev' } }, 'https://x', []);
    expect(r).toMatchObject({ id: 'cred-1' });
    expect(get.mock.calls[0]![0]!.publicKey!.rpId).toBe('keyway.dev');
  });
});

describe('helper iframe', () => {
  async function channelWith(win: ReturnType<typeof fakeWindow> | null) {
    const { HelperChannel, HELPER_FRAME_ID } = await import('../src/helper.js');
    vi.spyOn(document, 'getElementById').mockImplementation((id) =>
      id === HELPER_FRAME_ID ? ({ contentWindow: win } as unknown as HTMLElement) : null,
    );
    return new HelperChannel(client());
  }

  it('pings the hidden iframe until ready, then reads and writes the helper origin storage', async () => {
    const w = fakeWindow();
    const store = new Map<string, string>();
    const origin = new URL(SDK_HOST).origin;
    w.postMessage.mockImplementation((m: { id: number; type: string; key?: string; value?: string }, target: string) => {
      expect(target).toBe(origin);
      let result: unknown = null;
      if (m.type === 'ping') result = 'pong';
      if (m.type === 'get_item') result = store.get(m.key!) ?? null;
      if (m.type === 'set_item') store.set(m.key!, m.value!);
      queueMicrotask(() => deliver({ keyway: true, id: m.id, type: m.type, result }, w, origin));
    });
    const ch = await channelWith(w);
    await ch.setItem('handles', '["ada@example.com"]');
    expect(await ch.getItem('handles')).toBe('["ada@example.com"]');
    expect(w.postMessage.mock.calls.map(([m]) => m.type)).toEqual(['ping', 'set_item', 'get_item']);
  });

  it('ignores answers from other origins', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout'] });
    const w = fakeWindow();
    w.postMessage.mockImplementation((m: { id: number; type: string }) =>
      queueMicrotask(() => deliver({ keyway: true, id: m.id, type: m.type, result: 'pong' }, w, 'https://evil.test')),
    );
    const { HelperChannel, HelperMessageType } = await import('../src/helper.js');
    const p = new HelperChannel(client()).send(w as unknown as Window, HelperMessageType.Ping, {}, 1000);
    p.catch(() => {});
    await vi.advanceTimersByTimeAsync(1000);
    await expect(p).rejects.toThrow('Keyway helper did not answer ping');
  });

  it('fails with "cannot get global id iframe" when the frame has no window', async () => {
    const ch = await channelWith(null);
    await expect(ch.getItem('x')).rejects.toThrow('cannot get global id iframe');
  });
});
