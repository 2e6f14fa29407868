import type { Plugin } from '@docusaurus/types';
import { TOKEN_KEY } from '../src/components/login/tokenKey';

/** The attribute on `<html>` that says a reader is signed in (a sign-in token is stored). */
export const SIGNED_IN_ATTRIBUTE = 'data-keyway-signed-in';

/**
 * Marks `<html>` before the first paint when a sign-in token is stored, so that what only signed-out readers need
 * (the navbar's "Sign up") is hidden from the start rather than after hydration. The account menu keeps the mark in
 * step afterwards (sign-out, another tab signing in or out: src/components/login/AccountNavbarItem.tsx).
 */
export default function signedInMarkPlugin(): Plugin {
  return {
    name: 'keyway-signed-in-mark',
    injectHtmlTags() {
      const script = `try{if(localStorage.getItem(${JSON.stringify(TOKEN_KEY)}))document.documentElement.setAttribute(${JSON.stringify(SIGNED_IN_ATTRIBUTE)},"")}catch(e){}`;
      return { preBodyTags: [{ tagName: 'script', innerHTML: script }] };
    },
  };
}
