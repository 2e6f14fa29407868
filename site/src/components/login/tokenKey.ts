/** Local storage key of the docs sign-in token (spec §3). No imports: the build's head script reads it too. */
export const TOKEN_KEY = 'keyway.docs.token';
