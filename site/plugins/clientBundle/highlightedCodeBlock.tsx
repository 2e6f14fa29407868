// The code block with Prism highlighting: the theme's own component, and Prism with the site's additional languages
// (`prism.additionalLanguages`), registered here instead of by the theme's client module on every page (see
// ./lazyCodeBlock.tsx). A chunk of its own, loaded after the page's load event.
import { Prism } from 'prism-react-renderer';
import prismIncludeLanguages from '@theme/prism-include-languages';
import CodeBlock from '@theme-original/CodeBlock';

prismIncludeLanguages(Prism);

export default CodeBlock;
