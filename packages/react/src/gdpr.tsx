import type { GDPRConsent } from '@keyway/sdk';
import { useCallback, useEffect, useId, useState } from 'react';
import { useLoad } from './async-state.js';
import { DEFAULT_TEXT, useConfiguration, type TextKey } from './configuration.js';
import { describeError } from './messages.js';
import { useKeyway } from './provider.js';
import { ErrorMessage, useStepFocus } from './steps.js';
import { KeywayStyles } from './styles.js';

/** Consent levels the dialog offers by default (`necessary` is always given). */
export const GDPR_LEVELS = ['necessary', 'analytics', 'marketing', 'retargeting', 'tracking'] as const;

/** What {@link useGDPRConsent} returns. */
export interface GDPRConsentState {
  /** Consents recorded for the current person (empty without one). */
  consents: GDPRConsent[];
  /** `true` while loading or saving. */
  isLoading: boolean;
  /** Why the last load or change failed. */
  error: unknown;
  /** Replaces the consents with exactly `levels`; creates an anonymous person first when nobody is signed in. */
  updateGdprConsent(levels: string[]): Promise<GDPRConsent[]>;
  /** Adds `levels`. */
  addGdprConsent(levels: string[]): Promise<GDPRConsent[]>;
  /** Removes `levels`. */
  removeGdprConsent(levels: string[]): Promise<void>;
  /** Removes every consent. */
  deleteGdprConsent(): Promise<void>;
}

const checkLevels = (levels: unknown): string[] => {
  if (!Array.isArray(levels) || levels.some((l) => typeof l !== 'string' || !l))
    throw new TypeError(`consent levels must be an array of non-empty strings, got ${JSON.stringify(levels)}`);
  return levels as string[];
};

// Every hook of one SDK instance sees the same consents: a change made by one is pushed to the others.
const listeners = new WeakMap<object, Set<(c: GDPRConsent[]) => void>>();
const listenersOf = (sdk: object) => {
  let set = listeners.get(sdk);
  if (!set) listeners.set(sdk, (set = new Set()));
  return set;
};

/** GDPR consents of the current person (signed-in or anonymous), read from and written to the server. */
export function useGDPRConsent(): GDPRConsentState {
  const { sdk, user, isLoading: loadingUser } = useKeyway();
  const token = user && !user.loggedOut ? user.token : undefined;
  const { data, isLoading, error, set } = useLoad(token, token && user ? () => user.consents() : undefined);
  const [saving, setSaving] = useState(false);
  const [saveError, setSaveError] = useState<unknown>();
  useEffect(() => {
    const all = listenersOf(sdk);
    all.add(set);
    return () => void all.delete(set);
  }, [sdk, set]);
  const publish = (c: GDPRConsent[]) => listenersOf(sdk).forEach((l) => l(c));
  const holder = useCallback(async () => sdk.user ?? (await sdk.createAnonymousUser()), [sdk]);
  const change = useCallback(
    async <T,>(action: () => Promise<T>): Promise<T> => {
      setSaving(true);
      setSaveError(undefined);
      try {
        return await action();
      } catch (e) {
        setSaveError(e);
        throw e;
      } finally {
        setSaving(false);
      }
    },
    [],
  );
  return {
    consents: data ?? [],
    isLoading: loadingUser || isLoading || saving,
    error: saveError ?? error,
    updateGdprConsent: (levels) => change(async () => {
      const c = await (await holder()).setConsents(checkLevels(levels));
      publish(c);
      return c;
    }),
    addGdprConsent: (levels) => change(async () => {
      const c = await (await holder()).addConsents(checkLevels(levels));
      publish(c);
      return c;
    }),
    removeGdprConsent: (levels) => change(async () => {
      const h = await holder();
      await h.removeConsents(checkLevels(levels));
      publish(await h.consents());
    }),
    deleteGdprConsent: () => change(async () => {
      await (await holder()).removeAllConsents();
      publish([]);
    }),
  };
}

/** Props of {@link GDPRConsentDialog}. */
export interface GDPRConsentDialogProps {
  /** Levels offered (default {@link GDPR_LEVELS}); `necessary` cannot be switched off. */
  levels?: string[];
  /** Show the dialog even when consents were already given (e.g. from a “Privacy settings” link). */
  forceOpen?: boolean;
  /** Called with the levels saved. */
  onSave?: (levels: string[]) => void;
  /** Called when the dialog is closed after saving. */
  onClose?: () => void;
  className?: string;
  /** Leave out the default stylesheet. */
  unstyled?: boolean;
}

/**
 * A non-modal consent banner (`role="dialog"`): “Accept all”, “Only necessary” or a choice per level.
 * Shown when the person has not given any consent yet; the choice is stored on the server.
 */
export function GDPRConsentDialog({ levels = [...GDPR_LEVELS], forceOpen = false, onSave, onClose, className, unstyled }: GDPRConsentDialogProps) {
  const { text, style } = useConfiguration();
  const { isLoading: loadingUser } = useKeyway();
  const { consents, isLoading, error, updateGdprConsent } = useGDPRConsent();
  const [customize, setCustomize] = useState(false);
  const [chosen, setChosen] = useState<Set<string>>(new Set(['necessary']));
  const [closed, setClosed] = useState(false);
  const [saved, setSaved] = useState(false);
  const [busy, setBusy] = useState(false);
  const id = useId();
  const open = !closed && !loadingUser && (forceOpen || busy || (!isLoading && consents.length === 0 && !saved));
  const ref = useStepFocus<HTMLDivElement>(open ? (customize ? 'customize' : 'open') : 'closed');
  if (!open) return saved ? <p className="kw-visually-hidden" role="status">{text('gdpr.saved')}</p> : null;
  const save = async (list: string[]) => {
    setBusy(true);
    try {
      await updateGdprConsent(list);
      setSaved(true);
      setClosed(true);
      onSave?.(list);
      onClose?.();
    } catch {
      /* shown below */
    } finally {
      setBusy(false);
    }
  };
  const label = (level: string) => {
    const key = `gdpr.level.${level}` as TextKey;
    return key in DEFAULT_TEXT ? text(key) : level.charAt(0).toUpperCase() + level.slice(1).replace(/_/g, ' ');
  };
  return (
    <div
      ref={ref}
      className={['kw-root', 'kw-dialog', 'kw-gdpr', className].filter(Boolean).join(' ')}
      style={style}
      role="dialog"
      aria-labelledby={id + 't'}
      aria-describedby={id + 'd'}
      onKeyDown={(e) => {
        if (e.key === 'Escape' && forceOpen) {
          setClosed(true);
          onClose?.();
        }
      }}
    >
      {!unstyled && <KeywayStyles />}
      <h2 id={id + 't'} className="kw-title" tabIndex={-1} data-kw-focus>
        {text('gdpr.title')}
      </h2>
      <p id={id + 'd'} className="kw-hint">
        {text('gdpr.body')}
      </p>
      {customize && (
        <fieldset className="kw-fieldset">
          <legend className="kw-visually-hidden">{text('gdpr.customize')}</legend>
          {levels.map((level) => (
            <label key={level} className="kw-checkbox">
              <input
                type="checkbox"
                checked={level === 'necessary' || chosen.has(level)}
                disabled={level === 'necessary'}
                onChange={(e) => {
                  const next = new Set(chosen);
                  if (e.target.checked) next.add(level);
                  else next.delete(level);
                  setChosen(next);
                }}
              />
              {label(level)}
            </label>
          ))}
        </fieldset>
      )}
      <ErrorMessage>{error ? describeError(error) : undefined}</ErrorMessage>
      <div className="kw-actions">
        {customize ? (
          <button className="kw-button kw-button-primary" type="button" disabled={isLoading} onClick={() => save(levels.filter((l) => l === 'necessary' || chosen.has(l)))}>
            {text('gdpr.save')}
          </button>
        ) : (
          <>
            <button className="kw-button kw-button-primary" type="button" disabled={isLoading} onClick={() => save(levels)}>
              {text('gdpr.acceptAll')}
            </button>
            <button className="kw-button" type="button" disabled={isLoading} onClick={() => save(levels.filter((l) => l === 'necessary'))}>
              {text('gdpr.rejectAll')}
            </button>
            <button className="kw-button kw-button-link" type="button" onClick={() => setCustomize(true)}>
              {text('gdpr.customize')}
            </button>
          </>
        )}
      </div>
    </div>
  );
}
