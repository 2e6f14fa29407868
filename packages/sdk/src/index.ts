/** Version of the Keyway browser SDK, sent on every call as `Keyway-SdkVersion`. */
export const SDK_VERSION = '3.29.3';
