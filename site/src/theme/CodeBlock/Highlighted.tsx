import { Prism } from 'prism-react-renderer';
import prismIncludeLanguages from '@theme/prism-include-languages';
import CodeBlock from '@theme-original/CodeBlock';

// The theme registers the extra Prism languages (themeConfig.prism.additionalLanguages) from a client module, which
// put Prism and its grammars into every page's main.js; ./plugins/clientBundle removes that client module and they are
// registered here instead, in the code-block chunk, before the first block is highlighted (server and browser).
prismIncludeLanguages(Prism);

export default CodeBlock;
