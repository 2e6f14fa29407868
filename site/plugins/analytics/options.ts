export interface AnalyticsOptions {
  /** Google Analytics 4 measurement ID (G-XXXXXXX). Never committed: KEYWAY_GA_TRACKING_ID. */
  gaTrackingId?: string;
  /** Script URL of the customer-intelligence tracker: KEYWAY_INTELLIGENCE_SCRIPT_URL. */
  intelligenceScriptUrl?: string;
  /** Script URL of the session-recording tool: KEYWAY_SESSION_RECORDING_SCRIPT_URL. */
  sessionRecordingScriptUrl?: string;
}

function scriptUrl(name: string, value: string | undefined): string | undefined {
  if (!value) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`${name} must be an absolute http(s) URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new Error(`${name} must be an http(s) URL, got ${JSON.stringify(value)}`);
  }
  return url.href;
}

/** Reads and checks the analytics settings; a malformed value stops the build with the variable's name. */
export function analyticsOptionsFromEnv(env: NodeJS.ProcessEnv): AnalyticsOptions {
  const ga = env.KEYWAY_GA_TRACKING_ID?.trim();
  if (ga && !/^G-[A-Z0-9]{4,16}$/.test(ga)) {
    throw new Error(`KEYWAY_GA_TRACKING_ID must look like G-XXXXXXXXXX, got ${JSON.stringify(ga)}`);
  }
  return {
    gaTrackingId: ga || undefined,
    intelligenceScriptUrl: scriptUrl('KEYWAY_INTELLIGENCE_SCRIPT_URL', env.KEYWAY_INTELLIGENCE_SCRIPT_URL?.trim()),
    sessionRecordingScriptUrl: scriptUrl('KEYWAY_SESSION_RECORDING_SCRIPT_URL', env.KEYWAY_SESSION_RECORDING_SCRIPT_URL?.trim()),
  };
}

/** The head tags for the configured tools: nothing at all for a tool without its ID or URL. */
export function analyticsHeadTags(options: AnalyticsOptions) {
  const tags: { tagName: string; attributes?: Record<string, string | boolean>; innerHTML?: string }[] = [];
  if (options.gaTrackingId) {
    const id = options.gaTrackingId;
    tags.push(
      { tagName: 'script', attributes: { async: true, src: `https://www.googletagmanager.com/gtag/js?id=${encodeURIComponent(id)}` } },
      {
        tagName: 'script',
        // anonymize_ip is off, as the product asks; page views after the first are sent by the client module.
        innerHTML: `window.dataLayer=window.dataLayer||[];function gtag(){dataLayer.push(arguments);}gtag('js',new Date());gtag('config',${JSON.stringify(id)},{anonymize_ip:false});`,
      },
    );
  }
  for (const src of [options.intelligenceScriptUrl, options.sessionRecordingScriptUrl]) {
    if (src) tags.push({ tagName: 'script', attributes: { async: true, src } });
  }
  return tags;
}
