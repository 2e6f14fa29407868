import { UnknownError } from './errors.js';
import type { SDKEventName, SDKEvents } from './types.js';

const NAMES =
  'idFlowStarted idFlowSucceeded idFlowFailed recoveryFlowStarted recoveryFlowSucceeded recoveryFlowFailed codeSent codeRequested linkSent linkConfirmed totpKeyGenerated incorrectCodeSubmitted passwordSetReady passwordVerifyReady passwordResetReady invalidPasswordSubmitted incorrectPasswordSubmitted webAuthnChallengeProcessed oauthFlowStarted oauthFlowFailed popupFailed uiCustomizationReceived redirectDiscovered userAuthenticatedFromURL clientSideError'.split(
    ' ',
  );

function check(name: string): void {
  if (!NAMES.includes(name)) throw new UnknownError(`Keyway: unsupported event "${name}"`);
}

/** Listener of one SDK event. */
export type Listener<K extends SDKEventName> = (payload: SDKEvents[K]) => void;

/**
 * Typed event bus of the SDK. Subscribing to or publishing an event name the SDK does not know
 * throws {@link errors.UnknownError}.
 */
export class EventBus {
  private readonly map = new Map<string, Set<(p: never) => void>>();

  /**
   * Subscribes to an event.
   * @returns a function that unsubscribes.
   */
  on<K extends SDKEventName>(name: K, listener: Listener<K>): () => void {
    check(name);
    let set = this.map.get(name);
    if (!set) this.map.set(name, (set = new Set()));
    set.add(listener as (p: never) => void);
    return () => set.delete(listener as (p: never) => void);
  }

  /**
   * Publishes an event to every listener. A throwing listener does not stop the others;
   * its error is logged.
   */
  emit<K extends SDKEventName>(name: K, payload: SDKEvents[K]): void {
    check(name);
    for (const l of this.map.get(name) ?? []) {
      try {
        (l as Listener<K>)(payload);
      } catch (e) {
        console.error(e);
      }
    }
  }
}
