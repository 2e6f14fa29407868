/** Default port of the Keyway identity server (`KEYWAY_API_PORT`). */
export const DEFAULT_API_PORT = 8787;
