// The stand-in OpenID Provider moved to @keyway/test-support (shared by the SDK, React and interop browser tests).
export { browseUntil, startOidcIdp } from '@keyway/test-support';
