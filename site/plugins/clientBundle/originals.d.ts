// Modules the browser bundle reaches under another name because the stand-in of ./index.ts takes their own (an
// alias in ./index.ts points each at its file). Their exports are re-exported as they are.
declare module '@keyway-original/theme-common-reactUtils';
declare module '@keyway-original/theme-common-useHideableNavbar' {
  export { useHideableNavbar } from '@docusaurus/theme-common/internal';
}
