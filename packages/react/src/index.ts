import { SDK_VERSION } from '@keyway/sdk';

/** The `@keyway/sdk` version these React bindings are built against. */
export const SDK_VERSION_USED = SDK_VERSION;
