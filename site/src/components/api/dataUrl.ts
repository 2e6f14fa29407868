/**
 * Where a reference page's JSON is served: the plugin emits it there (build and dev server) and the browser fetches it
 * on client-side navigation. `/docs/api/get-me` → `/api-reference/docs/api/get-me.json`.
 */
export const pageDataUrl = (permalink: string): string => `/api-reference${permalink}.json`;
