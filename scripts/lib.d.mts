// Types of the few helpers of lib.mjs that TypeScript files (the browser tests' set-up) import.
export declare const root: string;
export declare const siteBuild: string;
/** A fingerprint of everything the site build is made from, under the given environment. */
export declare function siteFingerprint(env?: Record<string, string | undefined>): string;
