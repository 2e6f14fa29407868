import type { User } from '@keyway/sdk';
import type { ReactNode } from 'react';
import { useKeyway } from './provider.js';

/** Props of {@link LoggedIn}. */
export interface LoggedInProps {
  /** Shown while a person is signed in. */
  children?: ReactNode;
  /** Only when the token also carries every one of these methods (e.g. `['otp_via_email', 'totp']`). */
  withFactors?: string[];
}

const hasFactors = (user: User | undefined, methods: string[] = []) => methods.every((m) => user?.authenticatedMethods.includes(m));

/** Renders its children only while a person is signed in (never while the stored token is being read). */
export function LoggedIn({ children, withFactors }: LoggedInProps) {
  const { isAuthenticated, user } = useKeyway();
  return isAuthenticated && hasFactors(user, withFactors) ? <>{children}</> : null;
}

/** Props of {@link LoggedOut}. */
export interface LoggedOutProps {
  /** Shown while nobody is signed in (anonymous visitors included). */
  children?: ReactNode;
}

/** Renders its children only while nobody is signed in, once the stored token has been read. */
export function LoggedOut({ children }: LoggedOutProps) {
  const { isAuthenticated, isLoading } = useKeyway();
  return !isLoading && !isAuthenticated ? <>{children}</> : null;
}

/** Props of {@link Loaded}. */
export interface LoadedProps {
  /** Shown once the SDK has read the stored token and the URL. */
  children?: ReactNode;
  /** Shown until then (default: nothing). */
  fallback?: ReactNode;
}

/** Renders `fallback` until the provider has restored the session, then its children. */
export function Loaded({ children, fallback = null }: LoadedProps) {
  return <>{useKeyway().isLoading ? fallback : children}</>;
}

/** Props of {@link Groups}. */
export interface GroupsProps {
  /** Group names the person must belong to, or a test of the person's groups. */
  belongsTo: string[] | ((groups: string[]) => boolean);
  /** With a list: `any` (default) needs one of the groups, `all` every one. */
  match?: 'any' | 'all';
  /** Shown when the signed-in person passes the test. */
  children?: ReactNode;
  /** Shown otherwise (default: nothing). */
  fallback?: ReactNode;
}

/** Renders its children only for a signed-in person in the given groups (from the token's groups claim). */
export function Groups({ belongsTo, match = 'any', children, fallback = null }: GroupsProps) {
  const { isAuthenticated, user } = useKeyway();
  const groups = user?.groups ?? [];
  const ok =
    isAuthenticated &&
    (typeof belongsTo === 'function' ? belongsTo(groups) : match === 'all' ? belongsTo.every((g) => groups.includes(g)) : belongsTo.some((g) => groups.includes(g)));
  return <>{ok ? children : fallback}</>;
}
