import TOC from '@theme-original/TOC';
import withDeferredHydration from '@site/src/components/withDeferredHydration';

/** The theme's table of contents, hydrated in a task of its own (see DeferHydration). */
export default withDeferredHydration(TOC);
