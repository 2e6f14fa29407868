import { track } from './analytics.js';
import type { KeywayClient } from './client.js';
import {
  APIResponseError,
  FlowCancelledError,
  InvalidEmailAddressFormatError,
  InvalidPhoneNumberFormatError,
  RecoverNonReachableHandleTypeError,
  UnexpectedError,
  failureSlug,
  KeywayError,
} from './errors.js';
import { rememberHandle } from './storage.js';
import { decodeToken } from './token.js';
import type { Challenge, ChallengeType, Factor, IDRequest, SDKEventName, SDKEvents } from './types.js';

/** Processes one challenge; returns the token when answering it produced one. */
export type ChallengeHandler = (flow: Flow, challenge: Challenge) => Promise<string | undefined | void>;

/** Challenge handlers by challenge type. Types without a handler are skipped with a warning. */
export type ChallengeHandlers = Partial<Record<ChallengeType, ChallengeHandler>>;

/** Kind of a flow: at most one of each kind is current. */
export type FlowKind = 'auth' | 'recovery';

/** What a flow runs for. */
export interface FlowRequest {
  /** The person's handle, when the factor needs one. */
  handle?: string;
  /** The factor. */
  factor: Factor;
  /** Token held before the flow: sent as bearer for MFA, step-up and anonymous upgrade. */
  previousToken?: string;
  /** `metadata` of the ID request (set by SSO and hosted login). */
  metadata?: IDRequest['metadata'];
  /** Organization to authenticate in (default: the configured one). */
  org?: string;
  /** Window opened for an SSO popup (`null` when the browser blocked it). */
  popup?: Window | null;
}

let lastId = 0;

/**
 * A running sign-in or recovery flow. Await {@link Flow.result} for the token, answer prompt
 * events with {@link Flow.submit} (or the event's own `submit`) and stop it with {@link Flow.cancel}.
 * Starting another flow of the same kind cancels this one and drops its remaining events.
 */
export class Flow {
  /** Id carried by every event of this flow. */
  readonly id = ++lastId;
  /** Resolves with the user token, rejects with an SDK error. */
  readonly result: Promise<string>;
  /** Id of the challenge being processed. */
  challengeId?: string;
  private answer?: [(v: unknown) => void, (e: Error) => void];
  private cancelled = false;
  /** Cancellers of what the flow is waiting for. */
  private readonly stops = new Set<() => void>();

  /** @internal */
  constructor(
    /** The client the flow runs on. */
    readonly client: KeywayClient,
    /** Sign-in or recovery. */
    readonly kind: FlowKind,
    /** What the flow runs for. */
    readonly request: FlowRequest,
    /** Challenge handlers available to this flow. */
    readonly handlers: ChallengeHandlers,
    run: (flow: Flow) => Promise<string>,
  ) {
    client.flows[kind]?.cancel();
    client.flows[kind] = this;
    this.result = Promise.resolve()
      .then(() => run(this))
      .then((token) => {
        this.check();
        return token;
      });
    this.result.catch(() => {});
  }

  /** Whether another flow of the same kind replaced this one, or it was cancelled. */
  get stale(): boolean {
    return this.cancelled || this.client.flows[this.kind] !== this;
  }

  /** Answers the prompt the flow is waiting on (code, password…). */
  submit = (value: unknown): void => this.answer?.[0](value);

  /** Cancels the flow: its result rejects with {@link errors.FlowCancelledError}. */
  cancel(): void {
    if (this.cancelled) return;
    this.cancelled = true;
    if (this.client.flows[this.kind] === this) this.client.flows[this.kind] = undefined;
    for (const cancel of [...this.stops]) cancel();
  }

  /** Throws {@link errors.FlowCancelledError} when the flow is stale. */
  check(): void {
    if (this.stale) throw new FlowCancelledError();
  }

  /** Emits an event tagged with this flow's id; nothing happens when the flow is stale. */
  emit<K extends SDKEventName>(name: K, payload: Omit<SDKEvents[K], 'flowId'>): void {
    if (!this.stale) this.client.events.emit(name, { ...payload, flowId: this.id } as SDKEvents[K]);
  }

  /**
   * Runs `start` (which gets a resolve function) until it resolves or the flow is cancelled.
   * `start` may return a cleanup function.
   */
  until<T>(start: (resolve: (v: T) => void, reject: (e: Error) => void) => (() => void) | void): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.check();
      let cleanup: (() => void) | void;
      const cancel = () => {
        stop();
        reject(new FlowCancelledError());
      };
      const stop = () => {
        this.stops.delete(cancel);
        cleanup?.();
      };
      const settle =
        <A>(f: (a: A) => void) =>
        (a: A) => {
          stop();
          f(a);
        };
      this.stops.add(cancel);
      cleanup = start(settle(resolve), settle(reject));
    });
  }

  /** Emits a prompt event and waits for {@link Flow.submit}. */
  prompt<K extends SDKEventName>(name: K, payload: Record<string, unknown>): Promise<string> {
    return this.until<string>((resolve, reject) => {
      this.answer = [resolve as (v: unknown) => void, reject];
      this.emit(name, { ...payload, challengeId: this.challengeId, submit: this.submit } as never);
      return () => (this.answer = undefined);
    });
  }

  /** Waits `ms` milliseconds unless the flow is cancelled first. */
  wait(ms: number): Promise<void> {
    return this.until((resolve) => {
      const t = setTimeout(resolve, ms);
      return () => clearTimeout(t);
    });
  }

  /** Posts an attestation and returns the token of the answer, when there is one. */
  async attest(challenge: Challenge, data: Record<string, unknown>): Promise<string | undefined> {
    this.check();
    const r = await this.client.request<{ token?: string } | null>('POST', '/attestation/v3', {
      body: { challenge_id: challenge.id, challenge_type: challenge.type, data },
      token: this.request.previousToken ?? null,
      org: this.request.org ?? true,
    });
    return r?.token;
  }

  /**
   * Keeps asking until the server accepts the answer: an {@link errors.APIResponseError} with
   * `wrongCode` calls `onWrong` and asks again; any other error ends the flow.
   */
  async answerUntilAccepted(
    challenge: Challenge,
    ask: () => Promise<Record<string, unknown>>,
    wrongCode: number,
    onWrong: (e: APIResponseError) => void,
  ): Promise<string | undefined> {
    for (;;) {
      const data = await ask();
      try {
        return await this.attest(challenge, data);
      } catch (e) {
        if (!(e instanceof APIResponseError && e.httpcode === wrongCode)) throw e;
        onWrong(e);
      }
    }
  }

  /** Processes challenges in order with the flow's handlers; returns the last token obtained. */
  async process(challenges: Challenge[]): Promise<string | undefined> {
    let token: string | undefined;
    for (const ch of challenges) {
      this.check();
      this.challengeId = ch.id;
      const handler = this.handlers[ch.type];
      if (handler) token = (await handler(this, ch)) || token;
      else console.warn(`Keyway: unsupported challenge type "${ch.type}", please update the SDK`);
    }
    this.check();
    return token;
  }

  /** Sends an ID request (`POST /id/v2`) and processes its challenges; returns the token. */
  async identify(req: FlowRequest = this.request): Promise<string | undefined> {
    const result = await this.client.request<ChallengesOrToken>('POST', '/id/v2', {
      body: { handle: req.handle, factor: req.factor, metadata: req.metadata },
      org: req.org ?? true,
      token: req.previousToken ?? null,
      noCache: true,
    });
    const list = challengesOf(result);
    if (typeof list === 'string') return list;
    if (!list?.length) throw new UnexpectedError('no challenges in ID response');
    return this.process(list);
  }
}

/**
 * Answer shapes that carry challenges or a token: a bare list (ID requests, recovery, challenge packs), the token
 * itself (a completed proxy challenge), `{challenges}`, `{type, challenges}` or `{token}` (other organizations).
 */
export type ChallengesOrToken = Challenge[] | string | { token?: string; challenges?: Challenge[] } | null | undefined;

/** The token, or the challenges, of an answer (`undefined` when it has neither). @internal */
export const challengesOf = (r: ChallengesOrToken): Challenge[] | string | undefined =>
  typeof r === 'string' ? r || undefined : Array.isArray(r) ? r : (r?.token ?? r?.challenges);

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const PHONE = /^\+[1-9]\d{6,14}$/;

/**
 * Checks that the handle fits the factor: email factors need an email address, SMS factors a
 * phone number in E.164 form.
 * @throws {@link errors.InvalidEmailAddressFormatError} or {@link errors.InvalidPhoneNumberFormatError}
 */
export function validateHandle(handle: string | undefined, method: string): void {
  if (/email/.test(method) && !EMAIL.test(handle ?? ''))
    throw new InvalidEmailAddressFormatError(`${method} needs an email address handle, got ${JSON.stringify(handle)}`);
  if (/sms/.test(method) && !PHONE.test(handle ?? ''))
    throw new InvalidPhoneNumberFormatError(`${method} needs a phone number handle like +15551234567, got ${JSON.stringify(handle)}`);
}

/** Handle type the SDK infers from a handle string. */
export const handleType = (h: string) =>
  EMAIL.test(h) ? 'email_address' : PHONE.test(h) ? 'phone_number' : 'username';

/** Analytics `failure_reason` for a wrong OTP code sent by `method`. @internal */
export const otpSlug = (method?: string) =>
  'incorrect_otp_code' + (/email/.test(method ?? '') ? '_via_email' : /sms/.test(method ?? '') ? '_via_sms' : '');

/**
 * Starts a flow of `kind` whose steps are `body`: emits the started event, then the succeeded event
 * (token stored on the client, handle remembered, analytics sent) or the failed event.
 * @internal
 */
export function startFlow(
  client: KeywayClient,
  kind: FlowKind,
  request: FlowRequest,
  handlers: ChallengeHandlers,
  body: (flow: Flow) => Promise<string | undefined>,
): Flow {
  return new Flow(client, kind, request, handlers, (flow) => finish(flow, () => body(flow)));
}

function finish(flow: Flow, body: () => Promise<string | undefined>): Promise<string> {
  const { client, kind, request } = flow;
  const { handle, previousToken } = request;
  const rec = kind === 'recovery';
  return (async () => {
    flow.emit(rec ? 'recoveryFlowStarted' : 'idFlowStarted', { handle, factor: request.factor });
    try {
      const token = await body();
      if (!token) throw new UnexpectedError('no user token in attestation response');
      flow.check();
      client.token = token;
      if (handle) rememberHandle(handle);
      const claims = decodeToken(token, client.config.groupsClaimName);
      flow.emit(rec ? 'recoveryFlowSucceeded' : 'idFlowSucceeded', { token, factor: request.factor, handle });
      track(client, 'AuthenticationSucceeded_v1', {
        person_id: claims.person_id,
        success_authn_method: request.factor.method,
        authenticated_methods: claims.authenticated_methods,
        handle,
      });
      return token;
    } catch (e) {
      const failureDetail = rec ? 'recovery_failed' : failureSlug(e);
      if (!flow.stale) {
        const errorText = rec ? 'recovery_failed' : (e as Error).message;
        if (!(e instanceof KeywayError)) flow.emit('clientSideError', { errorText: String((e as Error)?.message ?? e), error: e });
        flow.emit(rec ? 'recoveryFlowFailed' : 'idFlowFailed', {
          errorText,
          factor: request.factor,
          handle,
          previousToken,
          challengeId: flow.challengeId,
          failureDetail,
          error: e,
        });
        track(client, 'AuthenticationFailed_v1', {
          failed_authn_method: request.factor.method,
          failure_reason: failureDetail,
          failure_detail: (e as Error).message,
          handle,
          challenge_id: flow.challengeId,
        });
      }
      throw flow.stale && !(e instanceof FlowCancelledError) ? new FlowCancelledError() : e;
    }
  })();
}

/**
 * Starts a sign-in flow: `POST /id/v2`, then every challenge in order through `handlers`,
 * then `idFlowSucceeded` with the token (also stored on the client and the handle remembered)
 * or `idFlowFailed`. A running sign-in flow is cancelled.
 *
 * ```ts
 * const flow = authenticate(client, { handle: 'ada@example.com', factor: { method: 'otp_via_email' } }, { nonce, otp });
 * client.events.on('codeRequested', (e) => e.submit(prompt('Code?') ?? ''));
 * const token = await flow.result;
 * ```
 */
export function authenticate(client: KeywayClient, request: FlowRequest, handlers: ChallengeHandlers): Flow {
  return startFlow(client, 'auth', request, handlers, (flow) => {
    validateHandle(request.handle, request.factor.method);
    return flow.identify();
  });
}

/**
 * Starts a recovery flow (`POST /recover`): only email addresses and phone numbers can recover,
 * and an organization id is required. Challenges of the answer (a code, then a new password) go
 * through `handlers`; events are `recoveryFlowStarted`, `recoveryFlowSucceeded`, `recoveryFlowFailed`.
 */
export function recover(client: KeywayClient, request: FlowRequest, handlers: ChallengeHandlers): Flow {
  return startFlow(client, 'recovery', request, handlers, async (flow) => {
    const { handle = '', factor } = request;
    if (handleType(handle) === 'username')
      throw new RecoverNonReachableHandleTypeError(
        `recovery needs an email address or phone number handle, got ${JSON.stringify(handle)}`,
      );
    validateHandle(handle, factor.method);
    const list = challengesOf(
      await client.request<ChallengesOrToken>('POST', '/recover', {
        body: { handle, factor: { method: factor.method } },
        org: client.oid,
        token: null,
      }),
    );
    if (!list) throw new UnexpectedError('no result in recover response');
    return typeof list === 'string' ? list : flow.process(list);
  });
}
