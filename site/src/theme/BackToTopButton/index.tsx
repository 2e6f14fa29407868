import BackToTopButton from '@theme-original/BackToTopButton';
import withDeferredHydration from '@site/src/components/withDeferredHydration';

/**
 * The theme's back-to-top button, hydrated in a task of its own (see DeferHydration): its scroll hook reads the scroll
 * position on every render, which made the browser lay the page out in the middle of the first hydration pass.
 */
export default withDeferredHydration(BackToTopButton);
