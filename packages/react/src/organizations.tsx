import type { OrganizationHierarchyEntry, User } from '@keyway/sdk';
import { useCallback, useId, useState, type ChangeEvent } from 'react';
import { useLoad } from './async-state.js';
import { useConfiguration } from './configuration.js';
import { describeError } from './messages.js';
import { useKeyway } from './provider.js';
import { ErrorMessage } from './steps.js';
import { KeywayStyles } from './styles.js';

/** What {@link useOrganizations} returns. */
export interface OrganizationsState {
  /** Organizations the signed-in person can reach (`/me/orgs`); empty while logged out. */
  organizations: OrganizationHierarchyEntry[];
  /** The organization of the current token. */
  currentOrganization: OrganizationHierarchyEntry | undefined;
  /** `true` while the list loads. */
  isLoading: boolean;
  /** Why the list could not be loaded. */
  error: unknown;
  /**
   * Moves the person to another organization (completing any sign-in it requires); resolves with
   * the user of the new token, which replaces the current one.
   */
  switchOrganization(oid: string): Promise<User>;
  /** Loads the list again. */
  refresh(): Promise<void>;
}

/** The organizations of the signed-in person and a way to switch between them. */
export function useOrganizations(): OrganizationsState {
  const { sdk, user, isAuthenticated, afterSignIn } = useKeyway();
  const personId = isAuthenticated ? user?.personId : undefined;
  const { data, isLoading, error, refresh } = useLoad(personId, personId && user ? async () => (await user.organizations()).org_hierarchy : undefined);
  const organizations = data ?? [];
  const switchOrganization = useCallback(
    async (oid: string) => {
      if (typeof oid !== 'string' || !oid) throw new TypeError('switchOrganization needs an organization id');
      await sdk.switchOrganization(oid).result;
      return afterSignIn(sdk.user!);
    },
    [sdk, afterSignIn],
  );
  return {
    organizations,
    currentOrganization: organizations.find((o) => o.id === user?.orgId),
    isLoading,
    error,
    switchOrganization,
    refresh,
  };
}

/** Props of {@link OrganizationSwitcher}. */
export interface OrganizationSwitcherProps {
  /** Only offer organizations passing this test (the current one is always shown). */
  filter?: (organization: OrganizationHierarchyEntry) => boolean;
  /** Called with the user of the new organization. */
  onSwitch?: (user: User) => void;
  /** Label of the list (default: the `org.label` text). */
  label?: string;
  className?: string;
  /** Leave out the default stylesheet. */
  unstyled?: boolean;
}

/** A labelled drop-down of the person's organizations; choosing one switches the token to it. Hidden while logged out. */
export function OrganizationSwitcher({ filter, onSwitch, label, className, unstyled }: OrganizationSwitcherProps) {
  const { isAuthenticated, user } = useKeyway();
  const { text, style } = useConfiguration();
  const { organizations, isLoading, error, switchOrganization } = useOrganizations();
  const [switching, setSwitching] = useState(false);
  const [problem, setProblem] = useState<string>();
  const id = useId();
  if (!isAuthenticated) return null;
  const shown = organizations.filter((o) => o.id === user?.orgId || !filter || filter(o));
  const change = async (e: ChangeEvent<HTMLSelectElement>) => {
    const target = e.target.value;
    setSwitching(true);
    setProblem(undefined);
    try {
      // Not `onSwitch?.(await …)`: without onSwitch the argument would never be evaluated.
      const switched = await switchOrganization(target);
      onSwitch?.(switched);
    } catch (err) {
      setProblem(describeError(err));
    } finally {
      setSwitching(false);
    }
  };
  const message = problem ?? (error ? describeError(error) : undefined);
  return (
    <div className={['kw-org-switcher', className].filter(Boolean).join(' ')} style={style}>
      {!unstyled && <KeywayStyles />}
      <label className="kw-label" htmlFor={id}>
        {label ?? text('org.label')}
      </label>
      <select
        id={id}
        className="kw-select"
        value={user?.orgId ?? ''}
        onChange={change}
        disabled={switching || isLoading}
        aria-busy={switching || isLoading}
        aria-describedby={message ? id + 'e' : undefined}
      >
        {shown.length === 0 && <option value={user?.orgId ?? ''}>{isLoading ? text('org.loading') : (user?.orgId ?? '')}</option>}
        {shown.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ))}
      </select>
      <span className="kw-status" role="status">
        {switching ? text('org.switching') : ''}
      </span>
      <ErrorMessage id={id + 'e'}>{message}</ErrorMessage>
    </div>
  );
}
