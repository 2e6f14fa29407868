import { errors, type Factor, type Flow, type PasswordValidationRule, type SDKEventName, type SDKEvents, type TOTPRegisterOptions, type User } from '@keyway/sdk';
import { useCallback, useEffect, useRef, useState } from 'react';
import { describeError } from './messages.js';
import { useKeyway } from './provider.js';

/** Where a running sign-in is. */
export type FlowState =
  | { step: 'idle' }
  /**
   * Waiting on the server, an SSO window or a passkey prompt; or on a sign-in link (`link`: sent to `handle`; `proof`
   * when it proves the address before the password or passkey of a sign-up).
   */
  | { step: 'working'; method?: string; handle?: string; link?: { proof: boolean; delayed?: boolean } }
  /**
   * A code is needed (`otp`: sent by email/SMS; `totp`: authenticator app, with `registration` on first set-up).
   * `delayed`: the mail server has not taken the code yet; the server retries and it arrives late.
   */
  | { step: 'code'; kind: 'otp' | 'totp'; sentTo?: string; delayed?: boolean; registration?: TOTPRegisterOptions; error?: string; submit: (code: string) => void }
  /**
   * A password is needed: `verify` the existing one, `set` a first one, `reset` after recovery. `proved`: the address a
   * sign-in link just proved (a sign-up by password).
   */
  | { step: 'password'; mode: 'verify' | 'set' | 'reset'; rules: PasswordValidationRule[]; error?: string; failedRules?: string[]; proved?: string; submit: (password: string) => void }
  | { step: 'success'; user: User }
  | { step: 'error'; error: unknown; message: string };

/** Options of {@link useFlow}. */
export interface UseFlowOptions {
  /** Called with the signed-in user (after the provider's middleware). */
  onSuccess?: (user: User) => void;
  /** Called with the error that ended the flow (not for cancellations made by the person). */
  onError?: (error: unknown) => void;
  /** Plain-words messages by error slug, replacing the defaults. */
  errorMessages?: Record<string, string>;
  /** Text for wrong codes and passwords. */
  incorrect?: { code: string; password: string; refused: string };
}

type Any = SDKEvents[SDKEventName] & { flowId: number; __name: SDKEventName };

/** The flow being run: events that arrive before `start()` returned are buffered until its id is known. */
interface Run {
  flow?: Flow;
  buffer: Any[];
  off: () => void;
  cancelled: boolean;
  /** The flow produced a token: unmounting or starting over no longer cancels it, `onSuccess` still runs. */
  signedIn?: boolean;
}
const EVENTS: SDKEventName[] = [
  'codeSent',
  'codeRequested',
  'linkSent',
  'linkConfirmed',
  'totpKeyGenerated',
  'incorrectCodeSubmitted',
  'passwordSetReady',
  'passwordVerifyReady',
  'passwordResetReady',
  'invalidPasswordSubmitted',
  'incorrectPasswordSubmitted',
];

/**
 * Runs SDK flows and turns their prompt events into UI state: which step to show, the `submit`
 * of the waiting prompt, wrong-answer messages and the final user. Used by every form component.
 */
export function useFlow(options: UseFlowOptions = {}) {
  const { sdk, afterSignIn } = useKeyway();
  const [state, setState] = useState<FlowState>({ step: 'idle' });
  const opts = useRef(options);
  opts.current = options;
  const current = useRef<Run | undefined>(undefined);

  const stop = useCallback(() => {
    const c = current.current;
    current.current = undefined;
    if (c && !c.signedIn) {
      c.cancelled = true;
      c.off();
      c.flow?.cancel();
    }
  }, []);
  useEffect(() => stop, [stop]);

  const run = useCallback(
    (start: () => Flow, context: { factor?: Factor; handle?: string } = {}) => {
      stop();
      const run: Run = { buffer: [], off: () => {}, cancelled: false };
      current.current = run;
      let sentTo: string | undefined;
      /** The message with the code or link waits for the mail server (the server retries it). */
      let delayed = false;
      /** The address a sign-in link proved before the step that follows it (a sign-up's password). */
      let proved: string | undefined;
      let proving = false;
      let registration: TOTPRegisterOptions | undefined;
      let pending: { error?: string; failedRules?: string[] } = {};
      const live = () => current.current === run && !run.cancelled;
      const wait = () => setState({ step: 'working', method: context.factor?.method, handle: context.handle });
      const wrap = (submit: (v: string) => void) => (v: string) => {
        if (!live()) return;
        wait();
        submit(v);
      };
      const handle = (e: Any) => {
        switch (e.__name) {
          case 'codeSent': {
            const ev = e as SDKEvents['codeSent'];
            sentTo = ev.handle;
            delayed = ev.delayed === true;
            break;
          }
          case 'linkSent': {
            const ev = e as SDKEvents['linkSent'];
            sentTo = ev.handle ?? context.handle;
            proving = ev.proof;
            setState({ step: 'working', method: context.factor?.method, handle: sentTo, link: { proof: ev.proof, ...(ev.delayed ? { delayed: true } : {}) } });
            break;
          }
          case 'linkConfirmed':
            // A proof done: the flow goes on with the factor's own step (a passkey prompt, the password step).
            if (proving) proved = sentTo;
            wait();
            break;
          case 'totpKeyGenerated': {
            const { key_uri, qr_code_data_b64, recovery_codes } = e as SDKEvents['totpKeyGenerated'];
            registration = { key_uri, qr_code_data_b64, recovery_codes };
            break;
          }
          case 'codeRequested': {
            const ev = e as SDKEvents['codeRequested'];
            setState({ step: 'code', kind: ev.kind, sentTo, ...(delayed && ev.kind === 'otp' ? { delayed } : {}), registration, error: pending.error, submit: wrap(ev.submit) });
            pending = {};
            break;
          }
          case 'incorrectCodeSubmitted':
            pending = { error: opts.current.incorrect?.code ?? 'That code is not right. Check it and try again.' };
            break;
          case 'incorrectPasswordSubmitted':
            pending = { error: opts.current.incorrect?.password ?? 'That password is not right.' };
            break;
          case 'invalidPasswordSubmitted': {
            const failedRules = (e as SDKEvents['invalidPasswordSubmitted']).failedRules;
            pending = { error: failedRules.length ? undefined : (opts.current.incorrect?.refused ?? 'That password was refused.'), failedRules };
            break;
          }
          case 'passwordVerifyReady':
          case 'passwordSetReady':
          case 'passwordResetReady': {
            const name = e.__name;
            const ev = e as SDKEvents['passwordSetReady'];
            const mode = name === 'passwordVerifyReady' ? 'verify' : name === 'passwordSetReady' ? 'set' : 'reset';
            setState({ step: 'password', mode, rules: ev.rules ?? [], error: pending.error, failedRules: pending.failedRules, ...(proved ? { proved } : {}), submit: wrap(ev.submit) });
            pending = {};
            break;
          }
        }
      };
      const offs = EVENTS.map((name) =>
        sdk.on(name, (payload) => {
          if (!live()) return;
          const e = Object.assign({}, payload, { __name: name }) as unknown as Any;
          if (!run.flow) run.buffer.push(e);
          else if (e.flowId === run.flow.id) handle(e);
        }),
      );
      run.off = () => offs.forEach((off) => off());
      wait();
      let flow: Flow;
      try {
        flow = start();
      } catch (e) {
        run.off();
        setState({ step: 'error', error: e, message: describeError(e, opts.current.errorMessages) });
        opts.current.onError?.(e);
        return;
      }
      run.flow = flow;
      for (const e of run.buffer.splice(0)) if (e.flowId === flow.id) handle(e);
      flow.result.then(
        async () => {
          if (!live()) return;
          // Signed in: the form may unmount now (e.g. inside <LoggedOut>) while the middleware runs; the
          // caller still hears about it.
          run.signedIn = true;
          run.off();
          const mine = () => current.current === run;
          try {
            const user = await afterSignIn(sdk.user!);
            if (mine()) {
              current.current = undefined;
              setState({ step: 'success', user });
            }
            opts.current.onSuccess?.(user);
          } catch (e) {
            if (mine()) setState({ step: 'error', error: e, message: describeError(e, opts.current.errorMessages) });
            opts.current.onError?.(e);
          }
        },
        (e: unknown) => {
          if (!live()) return;
          run.off();
          current.current = undefined;
          if (e instanceof errors.FlowCancelledError) return setState({ step: 'idle' });
          setState({ step: 'error', error: e, message: describeError(e, opts.current.errorMessages) });
          opts.current.onError?.(e);
        },
      );
    },
    [sdk, afterSignIn, stop],
  );

  const reset = useCallback(() => {
    stop();
    setState({ step: 'idle' });
  }, [stop]);

  return { state, run, reset };
}
