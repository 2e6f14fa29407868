import DocSidebar from '@theme-original/DocSidebar';
import withDeferredHydration from '@site/src/components/withDeferredHydration';

/** The theme's docs sidebar, hydrated in a task of its own (see DeferHydration). */
export default withDeferredHydration(DocSidebar);
