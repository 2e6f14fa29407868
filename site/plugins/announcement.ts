import type { ThemeConfig } from '@docusaurus/preset-classic';
import type { LoadContext, Plugin } from '@docusaurus/types';

type AnnouncementBar = NonNullable<ThemeConfig['announcementBar']>;

/** The announcement shown when the environment configures none. Change `id` whenever the content changes. */
export const defaultAnnouncement: AnnouncementBar = {
  id: 'sdk-3-29',
  content:
    'Keyway SDK 3.29 is here: passkeys on every platform and step-up authentication. <a href="/docs/access/react-sdk/tutorials/quickstart">Start with the React quickstart</a>.',
  backgroundColor: '#0b1f4d',
  textColor: '#ffffff',
  isCloseable: true,
};

/**
 * Reads the announcement bar from the environment:
 * KEYWAY_ANNOUNCEMENT_ID, KEYWAY_ANNOUNCEMENT_HTML, KEYWAY_ANNOUNCEMENT_BG, KEYWAY_ANNOUNCEMENT_COLOR,
 * KEYWAY_ANNOUNCEMENT_CLOSEABLE ("false" keeps it open). KEYWAY_ANNOUNCEMENT_ID=off removes the bar.
 * A new id shows the bar again to visitors who closed the previous one.
 */
export function announcementFromEnv(env: NodeJS.ProcessEnv): AnnouncementBar | undefined {
  if (env.KEYWAY_ANNOUNCEMENT_ID === 'off') return undefined;
  if (!env.KEYWAY_ANNOUNCEMENT_ID && !env.KEYWAY_ANNOUNCEMENT_HTML) return defaultAnnouncement;
  if (!env.KEYWAY_ANNOUNCEMENT_ID || !env.KEYWAY_ANNOUNCEMENT_HTML) {
    throw new Error('KEYWAY_ANNOUNCEMENT_ID and KEYWAY_ANNOUNCEMENT_HTML must be set together (or KEYWAY_ANNOUNCEMENT_ID=off)');
  }
  const color = (name: string, fallback: string): string => {
    const value = env[name] ?? fallback;
    if (!/^(#[0-9a-fA-F]{3,8}|[a-zA-Z]+|rgba?\([\d\s.,%]+\))$/.test(value)) {
      throw new Error(`${name} must be a CSS colour such as #0b1f4d, got ${JSON.stringify(value)}`);
    }
    return value;
  };
  const closeable = env.KEYWAY_ANNOUNCEMENT_CLOSEABLE ?? 'true';
  if (closeable !== 'true' && closeable !== 'false') {
    throw new Error(`KEYWAY_ANNOUNCEMENT_CLOSEABLE must be "true" or "false", got ${JSON.stringify(closeable)}`);
  }
  return {
    id: env.KEYWAY_ANNOUNCEMENT_ID,
    content: env.KEYWAY_ANNOUNCEMENT_HTML,
    backgroundColor: color('KEYWAY_ANNOUNCEMENT_BG', defaultAnnouncement.backgroundColor!),
    textColor: color('KEYWAY_ANNOUNCEMENT_COLOR', defaultAnnouncement.textColor!),
    isCloseable: closeable === 'true',
  };
}

/**
 * Docusaurus marks the bar "initially dismissed" from the stored dismissal flag alone, before it knows whether the
 * stored id is the current one, so a visitor who closed an older announcement would not see a new one until the next
 * full page load. This inline script, placed after that one, clears the mark when the stored id differs.
 */
export function announcementResetPlugin(context: LoadContext): Plugin {
  const id = (context.siteConfig.themeConfig as { announcementBar?: AnnouncementBar }).announcementBar?.id;
  return {
    name: 'keyway-announcement-reset',
    injectHtmlTags() {
      if (!id) return {};
      const script = `try{if(localStorage.getItem("docusaurus.announcement.id")!==${JSON.stringify(id)})document.documentElement.setAttribute("data-announcement-bar-initially-dismissed","false")}catch(e){}`;
      return { preBodyTags: [{ tagName: 'script', innerHTML: script }] };
    },
  };
}
