/**
 * React components and hooks of Keyway sign-in, built on `@keyway/sdk`.
 * @module @keyway/react
 */
export { KeywayProvider, Provider, useKeyway } from './provider.js';
export type { KeywayProviderProps, KeywayState, SignInMiddleware } from './provider.js';
export { createTokenStorage, DEFAULT_TOKEN_KEY } from './storage.js';
export type { TokenStorage, TokenStorageKind } from './storage.js';
export { ConfigurationProvider, useConfiguration, DEFAULT_TEXT } from './configuration.js';
export type { ConfigurationProviderProps, Configuration, FactorConfig, HandleKind, TextKey, TextOverrides, Theme } from './configuration.js';
export { LoggedIn, LoggedOut, Loaded, Groups } from './conditional.js';
export type { LoggedInProps, LoggedOutProps, LoadedProps, GroupsProps } from './conditional.js';
export { Form, Slot, DynamicFlow, factorFor } from './form.js';
export type { FormProps, FormMode, SlotProps, SlotName, DynamicFlowProps } from './form.js';
export { useFlow } from './use-flow.js';
export type { FlowState, UseFlowOptions } from './use-flow.js';
export { ERROR_MESSAGES, describeError } from './messages.js';
export { KEYWAY_CSS, KeywayStyles } from './styles.js';
export { useOrganizations, OrganizationSwitcher } from './organizations.js';
export type { OrganizationsState, OrganizationSwitcherProps } from './organizations.js';
export { useGDPRConsent, GDPRConsentDialog, GDPR_LEVELS } from './gdpr.js';
export type { GDPRConsentState, GDPRConsentDialogProps } from './gdpr.js';
export { MultiFactorAuth, StepUpAuth } from './second-factor.js';
export type { MultiFactorAuthProps, StepUpAuthProps } from './second-factor.js';
export { loginMiddleware, defaultOrganization, safeRedirect, loginRedirectURL, isUsableToken } from './middleware.js';
export type { LoginMiddlewareOptions, LoaderArgs, OrganizationPicker } from './middleware.js';
