import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { indexPassages } from '../src/search/site-index.js';
import { extractPage } from '../src/search/extract.js';
import { contentTerms, groupByPage, methodOf, namedIdentifier, namedSections, runSearch } from '../src/search/engine.js';
import { buildSynonyms, questionSynonyms, withSynonyms } from '../src/search/synonyms.js';
import { phrasalVerbs, questionPairs, retrieve, spelledIdentifier, transposed, variantsOf } from '../src/assistant/retrieve.js';
import { bestSentences, classify, extractiveAnswer, leadSentences } from '../src/assistant/extractive.js';
import { streamPieces } from '../src/assistant/plugin.js';
import { chat, fakeLlm, startFixtureServer } from './assistant-fixture.js';

const html = (title: string, body: string, head = '') =>
  `<!doctype html><html><head><title>${title} | Keyway Docs</title>${head}</head><body><article><div class="theme-doc-markdown markdown"><header><h1>${title}</h1></header>${body}</div></article></body></html>`;
const code = (lang: string, lines: string[]) =>
  `<div class="language-${lang} codeBlockContainer"><pre class="prism-code language-${lang}"><code>${lines.map((l) => `<span class="token-line">${l}<br></span>`).join('')}</code></pre></div>`;

/** A small build: a guide, a generated SDK reference entry, a REST operation, and a plugin page with keywords. */
const PAGES: [string, string][] = [
  [
    '/docs/access/guides/passkeys',
    html(
      'Passkeys',
      `<p>Passkeys let persons sign in with their device instead of a password.</p>
       <h2 id="enable">Enable passkeys</h2><p>Turn on passkeys in the console. Then call the SDK to register one.</p>${code('ts', ["await keyway.passkeys.register();"])}
       <h2 id="use">Use it</h2><p>The next visit starts with the device prompt.</p>
       <h2 id="errors">Troubleshooting</h2><p>A passkey prompt that the person closes fails with a prompt error. Ask again later.</p>`,
      '<meta name="description" content="Sign in without a password, with the device.">',
    ),
  ],
  [
    '/docs/access/sdk/classes/PasskeyPromptError',
    html('Class: PasskeyPromptError', `<p>Thrown when the passkey prompt fails.</p><h2 id="constructor">Constructor</h2><p>new PasskeyPromptError(message) creates the passkey error.</p>`),
  ],
  [
    '/docs/api/post-persons',
    html(
      'Create a new person',
      `<p>post/persons Registers a person in the organization with one or more handles.</p><h2 id="authentication">Authentication</h2><p>The Keyway-OrgID header with your organization id, plus the Keyway-API-Key header with a management API key of that organization.</p>
       <h2 id="request-body">Request body</h2><table><tr><th>Field</th><th>Type</th></tr><tr><td>handles</td><td>array</td></tr></table>${code('json', ['{"handles": [{"type": "email_address", "value": "ada@example.com"}]}'])}`,
    ),
  ],
  [
    '/docs/gate/plugins/pii-detection',
    html(
      'Plugin: pii-detection',
      `<p>The plugin finds email addresses and card numbers in bodies passing through the gateway.</p><h2 id="options">Options</h2><table><tr><th>Option</th><th>Default</th></tr><tr><td>fields</td><td>all</td></tr></table>`,
      '<meta data-rh=true name=keywords content="PII, personal data">',
    ),
  ],
  [
    '/docs/gate/plugins/ratelimit',
    html(
      'Plugin: ratelimit',
      `<p>The ratelimit plugin caps how many calls each client makes.</p><h2 id="counting">How counting works</h2><p>Each client key has a window; calls over the cap are refused with 429.</p>
       <h2 id="choosing">Choosing limits</h2><p>Start with a generous cap and lower it while limiting what abusive clients can do.</p>`,
    ),
  ],
  [
    '/docs/gate/monitoring',
    html(
      'Monitoring',
      `<p>Gate exports metrics about requests.</p><h2 id="metrics">Metrics</h2><p>Requests per route, latency, and the requests refused because of a rate limit.</p>`,
    ),
  ],
  [
    '/docs/access/integrations/symfony',
    html(
      'Symfony integration',
      `<p>Put the Keyway bundle at the center of your Symfony security setup.</p><h2 id="firewall">Configure the firewall</h2><p>Static files skip the firewall.</p>${code('yaml', ['dev:', '  pattern: ^/(css|images|js)/', '  template: "&lt;div id=app&gt;&lt;/div&gt;"'])}`,
    ),
  ],
  [
    '/docs/access/concepts/vault',
    html('Vault', `<p>The vault keeps Personally Identifiable Information (PII) out of your database: it stores each value and returns a token.</p>`),
  ],
  [
    '/docs/access/guides/sso',
    html('Sign in with another provider', `<p>Register the provider's client credentials, then start the OIDC factor from the SDK.</p>`),
  ],
  [
    '/docs/access/concepts/groups',
    html(
      'Groups',
      `<p>A group gathers persons of an organization so that rules apply to all of them. A person can be in several groups.</p>
       <h2 id="api">Groups in the REST API</h2><p>The REST API lists the groups, the persons of a group and the groups of a person.</p>`,
    ),
  ],
  [
    '/docs/api/delete-groups-group-name-persons-person-id',
    html('Remove a person from a group', `<p>delete/groups/{group_name}/persons/{person_id} The person stays in the organization.</p>`),
  ],
  [
    '/docs/glossary',
    html(
      'Glossary',
      `<h3 id="person">Person</h3><p>One identity in one organization.</p><p><strong>Other names:</strong> user, end user.</p>
       <h3 id="sso">Single sign-on (SSO)</h3><p>Signing in with an account at another provider.</p><p><strong>Other names:</strong> social login, enterprise login.</p>`,
    ),
  ],
];

function docsIndex() {
  const passages = PAGES.flatMap(([route, page], i) => extractPage(page, route, i * 100));
  return indexPassages(passages.map((p, i) => ({ ...p, id: i })));
}

describe('search ranking', () => {
  const docs = docsIndex();
  const search = (q: string, limit = 10) => runSearch(docs.index, q, limit, docs.visible(false));

  it('lists guides before generated reference fragments, and groups sections under their page', () => {
    const hits = search('passkey');
    expect(hits[0]?.page).toBe('/docs/access/guides/passkeys');
    const pages = groupByPage(hits).map((g) => g.page);
    expect(pages.slice(0, 2)).toEqual(['/docs/access/guides/passkeys', '/docs/access/sdk/classes/PasskeyPromptError']);
    // A page's sections follow each other: the list never comes back to a page it left.
    expect(new Set(hits.map((h) => h.page)).size).toBe(pages.length);
    expect(hits.filter((h) => h.page === '/docs/access/guides/passkeys').length).toBeGreaterThan(1);
  });

  it('goes straight to the reference entry when the query names an identifier or an operation', () => {
    expect(search('PasskeyPromptError')[0]?.page).toBe('/docs/access/sdk/classes/PasskeyPromptError');
    expect(search('POST /persons')[0]?.page).toBe('/docs/api/post-persons');
    expect(namedIdentifier('how do I call tokenForOrganization')).toEqual({ word: 'tokenForOrganization' });
    expect(namedIdentifier('POST /persons/{person_id}/mint-token')).toEqual({ operation: '/docs/api/post-persons-person-id-mint-token' });
    expect(namedIdentifier('which endpoint creates a person')).toEqual({ api: true, method: 'post' });
    expect(namedIdentifier('validate token backend')).toBeUndefined();
  });

  it('finds a page by the other names the docs give its subject (front-matter keywords, defined abbreviations)', () => {
    // "personal data" is only in the plugin's keywords; the vault defines PII and so is found by its long form too.
    expect(search('personal data').map((h) => h.page)).toContain('/docs/gate/plugins/pii-detection');
    expect(search('personally identifiable').map((h) => h.page)).toEqual(expect.arrayContaining(['/docs/access/concepts/vault', '/docs/gate/plugins/pii-detection']));
    const table = buildSynonyms(withSynonyms([]));
    expect(table.forms.size).toBe(0);
    const forms = buildSynonyms(docs.passages).forms;
    expect([...(forms.get('pii') ?? [])]).toEqual(['personally identifiable information']);
  });

  it('lets a page vote as a whole only with every word of the query when some passage has them all', () => {
    const two = indexPassages(
      [
        ['/docs/access/react-sdk/reference/middleware/login-middleware', html('Login middleware', `<p>Sends visitors to the login page.</p><h2 id="import">Import</h2><p>Import it from the package.</p><h2 id="example">Example</h2><p>Redirect to login.</p>`)],
        ['/docs/access/guides/sso/google', html('Google sign-in credentials', `<p>Offer social login with Google accounts.</p><h2 id="console">In the console</h2><p>Create the client.</p>`)],
      ].flatMap(([route, page], i) => extractPage(page as string, route as string, i * 100)).map((p, i) => ({ ...p, id: i })),
    );
    const hits = runSearch(two.index, 'social login', 10, two.visible(false), { index: two.pageIndex, pages: two.pages });
    expect(hits[0]?.page).toBe('/docs/access/guides/sso/google');
  });

  it("keeps a page's front-matter keywords on that page: they are not synonyms spread over other pages' passages", () => {
    // The plugin's keywords say "PII, personal data"; the vault mentions PII but is not thereby about "personal data".
    const vault = docs.passages.find((p) => p.url === '/docs/access/concepts/vault');
    expect(vault?.keywords ?? '').not.toMatch(/personal data/);
    expect(search('personal data')[0]?.page).toBe('/docs/gate/plugins/pii-detection');
  });
});

describe('page summaries', () => {
  // A summary is a sentence whose commas separate parts of a phrase, not other names of one thing.
  const pages: [string, string][] = [
    ['/docs/gate/plugins/headers', html('Headers', `<p>Add and drop HTTP headers.</p>`, '<meta name="description" content="Rewrite what you forward: headers, cookies, paths.">')],
    ['/docs/access/guides/forward', html('Forwarding', `<p>Requests you forward keep their cookies.</p><h2 id="remove">Remove a cookie</h2><p>Call remove on the cookie store.</p>`)],
  ];
  const docs = indexPassages(pages.flatMap(([route, page], i) => extractPage(page, route, i * 100)).map((p, i) => ({ ...p, id: i })));

  it("are searchable on their page but never spread to other pages' passages as synonyms", () => {
    expect(runSearch(docs.index, 'forward headers', 10, docs.visible(false))[0]?.page).toBe('/docs/gate/plugins/headers');
    expect(buildSynonyms(docs.passages).forms.get('cookies')).toBeUndefined();
    expect(docs.passages.filter((p) => p.url.startsWith('/docs/access/guides/forward')).map((p) => p.keywords ?? '')).toEqual(['', '']);
  });
});

describe('identifiers spelled out in words', () => {
  // The guide says "passkey" and "prompt" more often; the reference entry is named by the words run together.
  const pages: [string, string][] = [
    ['/docs/access/guides/passkeys', html('Passkeys', `<p>A passkey prompt asks the person for a passkey. The passkey prompt can fail; the passkey prompt then shows an error.</p>`)],
    ['/docs/access/sdk/classes/PasskeyPromptError', html('Class: PasskeyPromptError', `<p>Thrown when the prompt is dismissed.</p>`)],
  ];
  const docs = indexPassages(pages.flatMap(([route, page], i) => extractPage(page, route, i * 100)).map((p, i) => ({ ...p, id: i })));

  it("takes the words of a reference entry's name run together for the identifier", () => {
    expect(spelledIdentifier('what are passkey prompt errors', docs.passages)).toBe('PasskeyPromptError');
    expect(spelledIdentifier('passkey guide', docs.passages)).toBeUndefined();
    expect(retrieve(docs, 'how do I catch passkey prompt errors', { signedIn: false }).passages[0]?.passage.url).toBe('/docs/access/sdk/classes/PasskeyPromptError');
  });

  it('reads two words as a phrase, not as the name of an entry: the guide about them comes first', () => {
    const two = indexPassages(
      [
        ['/docs/access/guides/analytics', html('Analytics events', `<p>Send analytics events from your app with the SDK: each event has a name.</p><h2 id="send">Send an event</h2><p>Call track with the event name.</p>`)],
        ['/docs/access/sdk/interfaces/AnalyticsEvent', html('Interface: AnalyticsEvent', `<p>An analytics event sent by the SDK: its name and its properties.</p>`)],
      ].flatMap(([route, page], i) => extractPage(page as string, route as string, i * 100)).map((p, i) => ({ ...p, id: i })),
    );
    expect(spelledIdentifier('how do I send analytics events from my app', two.passages)).toBeUndefined();
    expect(retrieve(two, 'how do I send analytics events from my app', { signedIn: false }).passages[0]?.passage.url).toBe('/docs/access/guides/analytics');
    expect(retrieve(two, 'AnalyticsEvent properties', { signedIn: false }).passages[0]?.passage.url).toBe('/docs/access/sdk/interfaces/AnalyticsEvent');
  });

  it('answers a question whose word the docs write as two ("passkeyprompt" → "passkey prompt")', () => {
    expect(retrieve(docs, 'passkeyprompt fails', { signedIn: false }).passages[0]?.passage.url).toBe('/docs/access/guides/passkeys');
  });
});

describe('REST operations by the verb of the question', () => {
  // Two operations on the same resource; the question's verb ("erase") is in neither page, only its method says it.
  const ops: [string, string][] = [
    ['/docs/api/get-persons-person-id', html('Get a person', `<p>get/persons/{person_id} Returns the person of the organization: the person's handles, the person's groups in the organization and the person's attributes.</p>`)],
    ['/docs/api/delete-persons-person-id', html('Delete a person', `<p>delete/persons/{person_id} Takes the person out of the organization.</p>`)],
    ['/docs/access/guides/persons', html('Persons', `<p>A person is one identity; each person has handles.</p>`)],
  ];
  const docs = indexPassages(ops.flatMap(([route, page], i) => extractPage(page, route, i * 100)).map((p, i) => ({ ...p, id: i })));
  const voter = { index: docs.pageIndex, pages: docs.pages };

  it('ranks the operation whose method does what the question asks first', () => {
    expect(runSearch(docs.index, 'erase a person through the API', 10, docs.visible(false), voter)[0]?.page).toBe('/docs/api/delete-persons-person-id');
    expect(retrieve(docs, 'which endpoint erases a person of the organization', { signedIn: false }).passages[0]?.passage.url).toBe('/docs/api/delete-persons-person-id');
    expect(retrieve(docs, 'fetch a person of the organization with the API', { signedIn: false }).passages[0]?.passage.url).toBe('/docs/api/get-persons-person-id');
  });

  it('reads the verb in any of its forms', () => {
    expect(['creates a person', 'deleting handles', 'lists the groups', 'changed the email', 'validate a token'].map(methodOf)).toEqual(['post', 'delete', 'get', 'patch|put', undefined]);
  });
});

describe('search box page vote', () => {
  // Neither page has a section with both words; the rate-limit page is about both as a whole (its headings).
  const pages: [string, string][] = [
    ['/docs/gate/plugins/burst', html('Rate limits', `<p>Cap the calls each client makes.</p><h2 id="windows">Windows</h2><p>They reset every minute.</p><h2 id="choosing">Choosing a burst size</h2><p>Start generous, then lower it.</p>`)],
    ['/docs/gate/monitoring', html('Monitoring', `<p>Gate exports metrics about requests.</p><h2 id="windows">Windows</h2><p>Latency of each burst, per window.</p>`)],
  ];
  const docs = indexPassages(pages.flatMap(([route, page], i) => extractPage(page, route, i * 100)).map((p, i) => ({ ...p, id: i })));

  it('lets the page as a whole vote, as the assistant does: the page whose headings say all the words comes first', () => {
    const voter = { index: docs.pageIndex, pages: docs.pages };
    expect(runSearch(docs.index, 'window size', 10, docs.visible(false), voter)[0]?.page).toBe('/docs/gate/plugins/burst');
    // Without the vote, the page whose sections have both words between them still comes first (the share of the
    // query it covers), before the one section that matches "window" best.
    expect(runSearch(docs.index, 'window size', 10, docs.visible(false)).map((h) => h.page)).toEqual([
      '/docs/gate/plugins/burst',
      '/docs/gate/plugins/burst',
      '/docs/gate/monitoring',
    ]);
  });

  it('ranks the every-word and some-words results of a question together: saying "how do I" too is no reason to come first', () => {
    const two = indexPassages(
      [
        ['/docs/gate/getting-started', html('Getting started', `<p>How do I start? Run the container, then open the console and pick a region. Many things pass through the gateway once it runs: calls, caps, headers, cookies, bodies and more.</p>`)],
        ['/docs/gate/plugins/ratelimit', html('Cap calls', `<p>Caps the calls each client makes through the gateway.</p><h2 id="cap">Cap calls per client</h2><p>Each client has its own cap on calls.</p>`)],
      ].flatMap(([route, page], i) => extractPage(page as string, route as string, i * 100)).map((p, i) => ({ ...p, id: i })),
    );
    const hits = runSearch(two.index, 'how do I cap calls through the gateway', 10, two.visible(false), { index: two.pageIndex, pages: two.pages });
    expect(hits[0]?.page).toBe('/docs/gate/plugins/ratelimit');
    expect(hits.map((h) => h.page)).toContain('/docs/gate/getting-started');
  });
});

describe('assistant retrieval', () => {
  const docs = docsIndex();
  const pages = (q: string) => [...new Set(retrieve(docs, q, { signedIn: false }).passages.map((p) => p.passage.url.split('#')[0]))];

  it('reads other forms of the question words that the docs use (inflections, words joined or split)', () => {
    const vocabulary = new Set(['ratelimit', 'limiting', 'react', 'sdk', 'setup', 'move']);
    expect(variantsOf('rate limit', ['rate', 'limit'], vocabulary).sort()).toEqual(['limiting', 'ratelimit']);
    expect(variantsOf('reactsdk setup', ['reactsdk', 'setup'], vocabulary).sort()).toEqual(['react', 'sdk']);
    expect(variantsOf('moving users', ['moving', 'user'], vocabulary)).toEqual(['move']);
  });

  it('reads the noun and the verb of the same root ("encrypted" where "encryption" is, "notified" where "notification" is)', () => {
    const vocabulary = new Set(['encryption', 'notification', 'notify', 'validation', 'configure', 'verification', 'management']);
    expect(variantsOf('encrypted at rest', ['encrypted', 'rest'], vocabulary)).toEqual(['encryption']);
    expect(variantsOf('get notified', ['notified'], vocabulary).sort()).toEqual(['notification', 'notify']);
    expect(variantsOf('validate tokens', ['validate', 'token'], vocabulary)).toEqual(['validation']);
    expect(variantsOf('configuration', ['configuration'], vocabulary)).toEqual(['configure']);
    expect(variantsOf('verify email', ['verify', 'email'], vocabulary)).toEqual(['verification']);
    expect(variantsOf('managing users', ['managing', 'user'], vocabulary)).toEqual(['management']);
  });

  it('reads contractions and possessives as their words, and drops stop words however they are inflected', () => {
    // A lone "s" or "t" is no word of the question: it counted against every passage's share of the question's words.
    expect(contentTerms("it's issued when the customer’s plan doesn't change and we can't wait")).toEqual(['issued', 'customer', 'plan', 'change', 'wait']);
    expect(contentTerms("the users' passkeys won't work")).toEqual(['user', 'passkey', 'work']);
    // "needs" is "need", a stop word, once processed; so are "uses" and "gets".
    expect(contentTerms('the job needs a token and gets one, then uses it')).toEqual(['job', 'token']);
    expect(retrieve(docs, "a person's passkey prompt doesn't open", { signedIn: false }).terms).not.toContain('s');
    expect(pages("a person's passkey prompt doesn't open")[0]).toBe('/docs/access/guides/passkeys');
  });

  it('reads a word with two letters swapped as the docs’ word ("laravle" → "laravel")', () => {
    const vocabulary = new Set(['laravel', 'token', 'passkey', 'the']);
    expect(transposed('laravle', vocabulary)).toEqual(['laravel']);
    expect(transposed('tokne', vocabulary)).toEqual(['token']);
    expect(transposed('laravel', vocabulary)).toEqual([]);
    expect(transposed('teh', vocabulary)).toEqual([]);
    expect(transposed('lavarel', vocabulary)).toEqual([]);
    // Two edits for the index's typo tolerance, which allows one in a word of this length: without the swap the
    // guide's passages are not found at all.
    expect(pages('how do I enable pasksey sign in')[0]).toBe('/docs/access/guides/passkeys');
  });

  it('reads a verb and its particle as the docs’ verb, with the object between them ("take someone out" → "remove")', () => {
    const vocabulary = new Set(['remove', 'enable', 'disable', 'setup', 'configure']);
    expect(phrasalVerbs('take someone out of a group', vocabulary)).toEqual([[['take', 'out'], ['remove']]]);
    expect(phrasalVerbs('how do I turn the rate limit off', vocabulary)).toEqual([[['turn', 'off'], ['disable']]]);
    expect(phrasalVerbs('took them off the list', vocabulary)).toEqual([[['took', 'off'], ['remove']]]);
    // Short verbs double their last letter: "setting up", "putting in", "logging out".
    expect(phrasalVerbs('setting up passkeys', vocabulary)).toEqual([[['setting', 'up'], ['setup', 'configure']]]);
    // The particle must follow the verb closely; a verb alone, or one the docs have no word for, gives nothing.
    expect(phrasalVerbs('take the token and send it in the header out', vocabulary)).toEqual([]);
    expect(phrasalVerbs('take a token', vocabulary)).toEqual([]);
    expect(phrasalVerbs('look it up', vocabulary)).toEqual([]);
    // With it, the question finds the operation that removes a person from a group (its page says "remove").
    expect(pages('kick a person out of a group with the REST API')[0]).toBe('/docs/api/delete-groups-group-name-persons-person-id');
  });

  it('answers from a passage that says the question’s words when the best ones have them only in code', () => {
    // Six sample-heavy pages say "redirect" in their title but "http" and "https" only in their code; the TLS page says
    // all three in a sentence of its troubleshooting section.
    const samples = Array.from({ length: 6 }, (_, i) => [
      `/docs/access/guides/redirect-sample-${i}`,
      html(`Redirect sample ${i}`, `<p>Example ${i}.</p>${code('yaml', ['target: https://app.example.com/redirect', 'fallback: http://127.0.0.1/redirect', 'upstream: https://api.example.com'])}`),
    ]) as [string, string][];
    const tls: [string, string] = [
      '/docs/gate/configuration/tls',
      html(
        'TLS',
        `<p>Gate serves HTTPS with the certificate and key you give it, and can ask clients for certificates too.</p>
         <h2 id="troubleshooting">Troubleshooting</h2><p>Plain HTTP requests to the TLS port fail with 400. Gate does not redirect HTTP to HTTPS on that port; let the load balancer do it.</p>`,
      ),
    ];
    const all = [...PAGES, ...samples, tls].flatMap(([route, page], i) => extractPage(page, route, i * 100));
    const withSamples = indexPassages(all.map((p, i) => ({ ...p, id: i })));
    const found = retrieve(withSamples, 'redirect http to https', { signedIn: false }).passages.map((p) => p.passage.url);
    expect(found[0]).toBe('/docs/gate/configuration/tls#troubleshooting');
  });

  it('ranks the pages of the product a question names first ("at the gateway" → Gate)', () => {
    expect(namedSections('limit the calls at the gateway')).toEqual(['/docs/gate/']);
    expect(namedSections('Identity Protection for Okta, in React')).toEqual(['/docs/identity-protection/', '/docs/access/react-sdk/']);
    expect(namedSections('navigate to the reactor')).toEqual([]);
    // A product is named by its name: "hook" (a React hook, a sync hook, a web hook) names none of them.
    expect(namedSections('get the orgs of the user in a hook')).toEqual([]);
    expect(namedSections('when are sync hooks called')).toEqual([]);
    expect(namedSections('retry a failed web hook')).toEqual([]);
    expect(namedSections('retry a failed webhook')).toEqual([]);
    // Two pages on the same thing, one per product; the identity server's is shorter, so it ranks first unless the
    // question names Gate.
    const caching: [string, string][] = [
      ['/docs/access/guides/caching', html('Caching', `<p>Cache the answers for a minute.</p>`)],
      ['/docs/gate/configuration/caching', html('Caching', `<p>Cache the answers of your upstream service for a minute.</p>`)],
    ];
    const all = [...PAGES, ...caching].flatMap(([route, page], i) => extractPage(page, route, i * 100));
    const withCaching = indexPassages(all.map((p, i) => ({ ...p, id: i })));
    const first = (q: string) => retrieve(withCaching, q, { signedIn: false }).passages[0]?.passage.url.split('#')[0];
    expect(first('cache answers for a minute')).toBe('/docs/access/guides/caching');
    expect(first('cache answers for a minute at the gateway')).toBe('/docs/gate/configuration/caching');
    expect(first('cache answers for a minute in Gate')).toBe('/docs/gate/configuration/caching');
    // The search box weighs them the same way.
    const box = (q: string) => runSearch(withCaching.index, q, 10, withCaching.visible(false))[0]?.page;
    expect(box('cache answers')).toBe('/docs/access/guides/caching');
    expect(box('cache answers gateway')).toBe('/docs/gate/configuration/caching');
  });

  it('does not read an agent noun as the word it ends like ("customer" is not "custom", "header" not "head")', () => {
    const vocabulary = new Set(['custom', 'customer', 'head', 'header', 'limit', 'limiter']);
    expect(variantsOf('customer data', ['customer', 'data'], vocabulary)).toEqual([]);
    expect(variantsOf('custom claims', ['custom', 'claim'], vocabulary)).toEqual([]);
    expect(variantsOf('response header', ['response', 'header'], vocabulary)).toEqual([]);
    expect(variantsOf('limit', ['limit'], vocabulary)).toEqual([]);
  });

  it('counts a question word as found where the docs use another form of it ("exporting" where "exports" is)', () => {
    // Only the monitoring page says "exports"; neither says "exporting", and one word of two is too little to answer.
    expect(pages('exporting metrics')[0]).toBe('/docs/gate/monitoring');
  });

  it('reads the glossary: a question that calls a thing by another name finds the page that uses the docs’ word', () => {
    // The operation page says "person" and never "user"; the glossary says "user" is another name for a person.
    expect(pages('users with handles')[0]).toBe('/docs/api/post-persons');
    const synonyms = (q: string) => Object.fromEntries(questionSynonyms(q, docs.synonyms));
    expect(synonyms('delete users')).toEqual({ user: ['person'] });
    // One way only: a question in the docs' words is not spread over every other name.
    expect(synonyms('delete a person')).toEqual({});
    // A heading "Term (ABBR)" gives both the term and its abbreviation; other names are matched whole ("social login").
    expect(synonyms('Social logins for my app')).toEqual({ 'social login': ['single sign-on', 'sso'] });
    expect(synonyms('login page')).toEqual({});
    // An abbreviation among the other names is found from the term as well: the PII detection page never says
    // "personal data".
    const three = indexPassages(
      [
        ['/docs/glossary', html('Glossary', `<h3 id="personal-data">Personal data</h3><p>Information about an identifiable person.</p><p><strong>Other names:</strong> PII, sensitive data.</p>`)],
        ['/docs/gate/plugins/pii', html('PII detection', `<p>Finds PII in the API traffic that passes through the gateway, and redacts it.</p><h2 id="rollout">Rolling out</h2><p>Start in log mode to see what traffic it would change.</p>`)],
        ['/docs/gate/use-cases/retention', html('Retention', `<p>How long the data of your API traffic is kept in the logs.</p>`)],
      ].flatMap(([route, page], i) => extractPage(page as string, route as string, i * 100)).map((p, i) => ({ ...p, id: i })),
    );
    expect(Object.fromEntries(questionSynonyms('personal data in logs', three.synonyms))).toEqual({ 'personal data': ['pii'] });
    const answer = retrieve(three, 'spotting personal data in API traffic', { signedIn: false }).passages.map((p) => p.passage.url.split('#')[0]);
    // Without it the PII page is not among the answer's pages at all (only the glossary and a page that mentions
    // "data" and "traffic" in passing).
    expect(answer.slice(0, 2)).toContain('/docs/gate/plugins/pii');
  });

  it('puts the guide section about a word before a generated entry whose name only contains it ("passkey" → not PasskeyPromptError)', () => {
    const small = indexPassages(
      [
        [
          '/docs/access/react-sdk/guides/logging-in-and-out',
          html(
            'Logging in and out',
            `<p>The form signs persons in with the methods your organization allows, and the menu signs them out.</p>
             <h2 id="passkeys">Passkeys</h2><p>A passkey signs a person in with the fingerprint, face or PIN of their device, or a security key, instead
             of a code or a password. List webauthn among the form's factors and the form adds a button under the handle field. The button appears
             only in browsers that have the WebAuthn API, and works only on secure pages while you develop and in production. What the button does
             depends on the handle field: empty, the browser offers what it holds for your site and the person picks one; a handle that has one, the
             browser asks for it; a handle nobody holds, the browser creates one and the server creates the person with it, when the organization
             allows self-registration. A signed-in person adds another with a step-up, and the new token lists webauthn in its methods.</p>
             ${code('tsx', ['&lt;ConfigurationProvider factors={[&#39;otp_via_email&#39;, &#39;webauthn&#39;]}&gt;', '  &lt;Form onSuccess={() =&gt; location.assign(&#39;/account&#39;)} /&gt;', '&lt;/ConfigurationProvider&gt;'])}
             <h2 id="out">Logging out</h2><p>Call logOut to end the session.</p>`,
          ),
        ],
        [
          '/docs/access/sdk/classes/PasskeyPromptError',
          html(
            'Class: PasskeyPromptError',
            `<p>The passkey prompt was dismissed, cancelled or unavailable.</p><h2 id="constructor">Constructor</h2><p>new PasskeyPromptError(message) makes the passkey error.</p>
             <h2 id="slug">slug</h2><p>Always passkey_prompt_failed.</p><h2 id="name">name</h2><p>The class name, for logs.</p>`,
          ),
        ],
        // Other entries of the reference, short as generated entries are (they set the index's usual section length).
        ...['OtpError', 'TokenExpiredError', 'RateLimitError', 'NetworkError', 'HandleTakenError', 'ConsentError'].map((name) => [
          `/docs/access/sdk/classes/${name}`,
          html(`Class: ${name}`, `<p>Thrown by the SDK.</p><h2 id="constructor">Constructor</h2><p>new ${name}(message).</p><h2 id="slug">slug</h2><p>The error slug.</p>`),
        ]),
      ]
        .flatMap(([route, page], i) => extractPage(page as string, route as string, i * 100))
        .map((p, i) => ({ ...p, id: i })),
    );
    const top = (q: string) => retrieve(small, q, { signedIn: false }).passages[0]?.passage.url;
    // Before, the class's title (boosted, and carried by each of its four sections) put it first.
    expect(top('passkey')).toBe('/docs/access/react-sdk/guides/logging-in-and-out#passkeys');
    expect(top('passkeys')).toBe('/docs/access/react-sdk/guides/logging-in-and-out#passkeys');
    expect(runSearch(small.index, 'passkey', 10, small.visible(false), { index: small.pageIndex, pages: small.pages })[0]?.url).toBe(
      '/docs/access/react-sdk/guides/logging-in-and-out#passkeys',
    );
    // A question that names the entry, or says most of its name, still goes to it.
    expect(top('PasskeyPromptError')).toMatch(/^\/docs\/access\/sdk\/classes\/PasskeyPromptError/);
    expect(top('what does the passkey prompt error mean')).toMatch(/^\/docs\/access\/sdk\/classes\/PasskeyPromptError/);
  });

  it('ranks the page whose passages match most of the question before a page named after one phrase of it', () => {
    // The component pages match "signed out"/"logged in" in their title; the proxy page's troubleshooting says the rest.
    const built = indexPassages(
      [
        [
          '/docs/access/react-sdk/reference/components/logged-out',
          html('LoggedOut', `<p>Renders its children only while the visitor is logged out.</p><h2 id="props">Props</h2><p>children: what to show to visitors.</p>`),
        ],
        [
          '/docs/access/react-sdk/reference/components/logged-in',
          html('LoggedIn', `<p>Renders its children only while a person is signed in.</p><h2 id="props">Props</h2><p>children: what to show when logged in.</p>`),
        ],
        [
          '/docs/access/react-sdk/guides/logging-in-and-out',
          html('Logging in and out', `<p>The form signs persons in.</p><h2 id="sign-out">Sign out</h2><p>Call logOut and the person is signed out of every tab.</p>`),
        ],
        [
          '/docs/gate/plugins/authentication-proxy',
          html(
            'Plugin: authentication-proxy',
            `<p>Signs browser users in before they reach an application, and keeps them in a session cookie.</p>
             <h2 id="options">Options</h2><p>cookie_secret: the key of the session cookie. Every Gate replica needs the same value.</p>
             <h2 id="deploying">Deploying</h2><p>Run the plugin in front of the application, with its upstream URL and the organization of its users.</p>
             <h2 id="troubleshooting">Troubleshooting</h2><ul><li>Users are signed out when a request hits another replica: the replicas have different cookie_secret values.</li>
             <li>The browser loops between the application and the sign-in page: the cookie domain does not match the host.</li></ul>`,
          ),
        ],
      ]
        .flatMap(([route, page], i) => extractPage(page as string, route as string, i * 100))
        .map((p, i) => ({ ...p, id: i })),
    );
    const first = (q: string) => retrieve(built, q, { signedIn: false }).passages[0]?.passage.url.split('#')[0];
    expect(first('users get signed out whenever their request lands on a different gate replica')).toBe('/docs/gate/plugins/authentication-proxy');
    // The search box ranks the same way.
    const voter = { index: built.pageIndex, pages: built.pages };
    expect(runSearch(built.index, 'users get signed out whenever their request lands on a different gate replica', 10, built.visible(false), voter)[0]?.page).toBe(
      '/docs/gate/plugins/authentication-proxy',
    );
    // A question about the component still goes to it.
    expect(first('show something only when the person is logged in')).toBe('/docs/access/react-sdk/reference/components/logged-in');
  });

  it('ranks the page that says the question’s words together before one that has them scattered', () => {
    // Both pages have every word; only the TLS page says "client certificates" and "active users" as the question does.
    const built = indexPassages(
      [
        [
          '/docs/gate/configuration/ignore-ssl',
          html(
            'Ignoring SSL errors',
            `<p>Gate checks the certificates of the services it forwards to. Turn the check off for services with self-signed certificates.</p>
             <h2 id="client">Client settings</h2><p>The services the gate calls are checked unless ignore_ssl is set.</p>`,
          ),
        ],
        [
          '/docs/gate/configuration/tls',
          html(
            'TLS',
            `<p>Gate serves HTTPS with the certificate and key you give it.</p>
             <h2 id="mtls">Mutual TLS</h2><p>The gate presents client certificates to the services that ask for them.</p>`,
          ),
        ],
      ]
        .flatMap(([route, page], i) => extractPage(page as string, route as string, i * 100))
        .map((p, i) => ({ ...p, id: i })),
    );
    const first = (q: string) => retrieve(built, q, { signedIn: false }).passages[0]?.passage.url.split('#')[0];
    expect(first('gate client certificates for services')).toBe('/docs/gate/configuration/tls');
    // Words said apart still find the page about them.
    expect(first('skip checking self-signed certificates')).toBe('/docs/gate/configuration/ignore-ssl');
    // The pairs are the question's meaningful words one after the other, each also as the docs' words for it.
    expect(questionPairs('client certificates between the gate and its services', new Map([['gate', ['gateway']]]), new Set(['ratelimit']))).toEqual([
      ['client certificate'],
      ['certificate gate', 'certificate gateway'],
      ['gate service', 'gateway service'],
    ]);
    // Two words the docs run together are said together where that word is.
    expect(questionPairs('rate limit requests', new Map(), new Set(['ratelimit']))).toEqual([['rate limit', 'ratelimit'], ['limit request']]);
  });

  it('answers a question about one step of a use case from the page the use case hands that step to', () => {
    // The use case says the plugin's words (and more); the plugin page is about the step.
    const built = indexPassages(
      [
        [
          '/docs/gate/use-cases/access-management',
          html(
            'Access management',
            `<p>Gate controls who reaches each service: it checks tokens, copies traffic and enforces policies.</p>
             <h2 id="mirror">Test changes safely</h2><p>Copy production traffic to a staging service with the mirroring plugin, and compare the answers.</p>
             <h2 id="policies">Enforce policies</h2><p>Decide access per request with the OPA plugin.</p>`,
          ),
        ],
        [
          '/docs/gate/plugins/mirroring',
          html(
            'Plugin: mirroring',
            `<p>Sends a copy of production traffic to a second upstream, such as a staging service. The answers of the copy are ignored.</p>
             <h2 id="options">Options</h2><p>mirror_url: where the copies go. sample_rate: the share of requests that are copied.</p>`,
          ),
        ],
      ]
        .flatMap(([route, page], i) => extractPage(page as string, route as string, i * 100))
        .map((p, i) => ({ ...p, id: i })),
    );
    const first = (q: string) => retrieve(built, q, { signedIn: false }).passages[0]?.passage.url.split('#')[0];
    expect(first('copy production traffic to a staging service')).toBe('/docs/gate/plugins/mirroring');
    // A question about the scenario as a whole still goes to the use case.
    expect(first('how does gate control access to my services')).toBe('/docs/gate/use-cases/access-management');
  });

  it('ranks the page about the question as a whole before a page that mentions its words in passing', () => {
    expect(pages('How do I rate limit requests?')[0]).toBe('/docs/gate/plugins/ratelimit');
  });

  it('does not answer a question whose words the docs use only in other senses, and none of whose phrases they say', () => {
    const built = indexPassages(
      [
        [
          '/docs/gate/getting-started',
          html(
            'Get started with Gate',
            `<p>Gate runs as a reverse proxy in front of your service and checks every request. Here Python 3 serves a demo page behind it.</p>
             <h2 id="next">Next steps</h2><p>Add plugins to the configuration.</p>`,
          ),
        ],
        [
          '/docs/gate/configuration/plugin-config',
          html('Plugin configuration', `<p>The file holds the list of plugins, in the order they run.</p><h2 id="linked">Linked files</h2><p>A plugin may read options from linked files.</p>`),
        ],
      ]
        .flatMap(([route, page], i) => extractPage(page as string, route as string, i * 100))
        .map((p, i) => ({ ...p, id: i })),
    );
    const answered = (q: string) => retrieve(built, q, { signedIn: false }).passages.map((p) => p.passage.url.split('#')[0]);
    // Half of the words are found in one passage ("reverse" of "reverse proxy", "Python 3"), no two of them together.
    expect(answered('how do i reverse a linked list in python')).toEqual([]);
    // The same share of a question that says a phrase of the docs ("reverse proxy") is answered.
    expect(answered('a reverse proxy for my python scripts')[0]).toBe('/docs/gate/getting-started');
  });

  it('does not answer from words met only in code: a question about something else ends in contact-us', () => {
    // "css" and "div" are only in the Symfony page's YAML; "center" is in its prose.
    expect(pages('how do I center a div in css')).toEqual([]);
    // The page still answers what it is about.
    expect(pages('symfony firewall static files')[0]).toBe('/docs/access/integrations/symfony');
  });
});

describe('answers without a model', () => {
  const docs = docsIndex();
  const answer = (q: string) => {
    const retrieval = retrieve(docs, q, { signedIn: false });
    return { retrieval, ...extractiveAnswer(q, retrieval, docs.pagePassages) };
  };

  it('tells question kinds apart', () => {
    expect(classify('How much does Keyway cost for 10k users?')).toBe('commercial');
    expect(classify('I want to talk to someone in sales')).toBe('commercial');
    expect(classify('can we pay by bank transfer instead of card')).toBe('commercial');
    expect(classify('tokenize credit card numbers so my database never holds them')).not.toBe('commercial');
    // Billing, subscriptions, jobs and trials are the reader's own business in a question about building with Keyway.
    expect(classify('Is there a free trial?')).toBe('commercial');
    expect(classify('invoice for last month is wrong')).toBe('commercial');
    expect(classify('how much does keyway cost for 50k monthly active users?')).toBe('commercial');
    expect(classify('put the plan and seat count from our billing system into the JWT')).not.toBe('commercial');
    expect(classify('nightly cron job needs to call our API with nobody logged in')).not.toBe('commercial');
    expect(classify("where do I store a customer's subscription plan so they can see it in the app?")).not.toBe('commercial');
    expect(classify('give new users a 14-day free trial before they must sign up')).not.toBe('commercial');
    expect(classify('What is a passkey?')).toBe('what-is');
    expect(classify('Which endpoint creates a person?')).toBe('which-endpoint');
    expect(classify('passkey prompt error when signing in')).toBe('troubleshooting');
    expect(classify('How do I enable passkeys?')).toBe('how-to');
  });

  it('answers how-to with the best section, the first complete code block and the page steps, citing only what it quotes', () => {
    const a = answer('How do I enable passkeys?');
    expect(a.kind).toBe('how-to');
    expect(a.markdown).toContain('**Passkeys › Enable passkeys** [1]');
    expect(a.markdown).toContain('```ts\nawait keyway.passkeys.register();\n```');
    expect(a.markdown).toContain('- [Enable passkeys](/docs/access/guides/passkeys#enable)');
    expect(a.used.map((u) => u.passage.url)).toEqual(['/docs/access/guides/passkeys#enable']);
  });

  it('lists sections only for a guide, and never its troubleshooting or next steps', () => {
    const guide = answer('How do I enable passkeys?').markdown;
    expect(guide).toContain('The sections of **Passkeys**');
    expect(guide).not.toContain('[Troubleshooting]');
    // A reference entry's sections are not steps.
    const reference = answer('PasskeyPromptError constructor');
    expect(reference.used[0]?.passage.url).toMatch(/^\/docs\/access\/sdk\/classes\/PasskeyPromptError/);
    expect(reference.markdown).not.toContain('The steps on');
    expect(reference.markdown).not.toContain('The sections of');
  });

  it('lists a guide’s numbered steps as steps, and any other page’s headings as its sections', () => {
    const small = indexPassages(
      [
        [
          '/docs/access/guides/webhooks',
          html(
            'Webhooks',
            `<p>Webhooks call your server when something happens in your organization.</p>
             <h2 id="before">Before you begin</h2><p>You need a server that accepts webhook calls over HTTPS.</p>
             <h2 id="register">Step 1: register the webhook</h2><p>Register the webhook URL of your server with the API.</p>${code('bash', ['curl -X POST "$KEYWAY_API_URL/organizations/webhooks"'])}
             <h2 id="verify">Step 2: verify each call</h2><p>Verify the signature of each webhook call before you trust it.</p>
             <h2 id="errors">Troubleshooting</h2><p>A webhook call that fails is tried again.</p>`,
          ),
        ],
        [
          '/docs/access/concepts/encryption',
          html(
            'Encryption',
            `<p>Keyway encrypts what it stores and what it sends.</p>
             <h2 id="transit">In transit</h2><p>Every call to the API travels over TLS.</p>
             <h2 id="rest">At rest</h2><p>Stored credentials and attributes are encrypted at rest, with a key per region.</p>
             <h2 id="next">Next steps</h2><p>Read about replication.</p>`,
          ),
        ],
      ]
        .flatMap(([route, page], i) => extractPage(page as string, route as string, i * 100))
        .map((p, i) => ({ ...p, id: i })),
    );
    const answerFrom = (q: string) => extractiveAnswer(q, retrieve(small, q, { signedIn: false }), small.pagePassages).markdown;
    // "Step 1: …" headings are the steps, numbered by the list (not "1. Step 1: …"); "Before you begin" and
    // "Troubleshooting" are not steps.
    expect(answerFrom('how do I register a webhook for my server')).toContain(
      'The steps on **Webhooks**:\n\n1. [Register the webhook](/docs/access/guides/webhooks#register)\n2. [Verify each call](/docs/access/guides/webhooks#verify)',
    );
    // A concept page's headings are its sections, not steps to follow (they were listed as steps before).
    const concept = answerFrom('how are credentials encrypted at rest');
    expect(concept).toContain('The sections of **Encryption**:\n\n- [In transit](/docs/access/concepts/encryption#transit)\n- [At rest](/docs/access/concepts/encryption#rest)');
    expect(concept).not.toContain('The steps on');
    expect(concept).not.toContain('[Next steps]');
  });

  it('quotes whole sentences: a dot inside a name, a number or an abbreviation does not end one', () => {
    // Before, a dot followed by no space ("auth0.log_events") made the sentence unmatched up to it: the quote was
    // "log_events." and the rest of the sentence was lost.
    const auth0 = 'A streaming connection sends Auth0 log events to Keyway. Keyway uses them for detections and fills auth0.log_events. Auth0 pushes the events through a webhook.';
    expect(bestSentences(auth0, ['detections'], 1)).toBe('Keyway uses them for detections and fills auth0.log_events.');
    expect(bestSentences('Call keyway.passkeys.register() on the account page. Then reload it.', ['register'], 1)).toBe(
      'Call keyway.passkeys.register() on the account page.',
    );
    // "Act No. 57" and "e.g. the" do not end a sentence; the sentence after it still starts on its own.
    const appi = "Japan's Act on the Protection of Personal Information (APPI, Act No. 57 of 2003) governs personal information. It was amended in 2020.";
    expect(leadSentences(appi, 1)).toBe("Japan's Act on the Protection of Personal Information (APPI, Act No. 57 of 2003) governs personal information.");
    expect(leadSentences('Pick a factor, e.g. the email code. Then sign in.', 1)).toBe('Pick a factor, e.g. the email code.');
    expect(leadSentences('Is it on? Yes! It is.', 3)).toBe('Is it on? Yes! It is.');
  });

  it('leaves a code block’s title out of the prose it quotes, and keeps it searchable', () => {
    const titled = (title: string, lines: string[]) =>
      `<div class="language-ts codeBlockContainer_mQmQ theme-code-block"><div class=codeBlockTitle_kY6l>${title}</div><div class=codeBlockContent_t_Hd>${code('ts', lines)}</div></div>`;
    const [, section] = extractPage(
      html(
        'Switching organizations',
        `<p>Switch the organization of the signed-in person.</p><h2 id="switch">Switch</h2><p>The SDK replaces the current user:</p>${titled('org-switcher.ts', ['await keyway.switchOrganization(orgId);'])}<p>After the switch, every call uses the new token.</p>`,
      ),
      '/docs/access/guides/suborgs/org-switching-example',
      0,
    );
    // Before, the title stood in the prose between the two sentences: "…the current user: org-switcher.ts After the switch…".
    expect(section?.prose).toBe('The SDK replaces the current user: After the switch, every call uses the new token.');
    expect(section?.text).toContain('org-switcher.ts');
    expect(section?.code).toEqual([{ lang: 'ts', source: 'await keyway.switchOrganization(orgId);' }]);
  });

  it('never leaves a quoted sentence hanging on the colon that introduced a table or code block', () => {
    const small = indexPassages(
      extractPage(
        html(
          'useThing',
          `<p>useThing reads the thing of the signed-in person.</p>
           <h2 id="return-value">Return value</h2><p>useThing() takes no arguments and returns a ThingState:</p>
           <table><tr><th>Field</th><th>Type</th></tr><tr><td>thing</td><td>Thing</td></tr></table>`,
        ),
        '/docs/access/react-sdk/reference/hooks/use-thing',
        0,
      ).map((p, i) => ({ ...p, id: i })),
    );
    const q = 'what does useThing return value';
    const markdown = extractiveAnswer(q, retrieve(small, q, { signedIn: false }), small.pagePassages).markdown;
    expect(markdown).toContain('**useThing › Return value**');
    expect(markdown).toContain('useThing() takes no arguments and returns a ThingState, set out in full under this heading on the page.');
    expect(markdown).not.toMatch(/:\s*$/m);
  });

  it('answers what-is with the page’s defining paragraph', () => {
    const a = answer('What is a passkey?');
    expect(a.kind).toBe('what-is');
    expect(a.markdown).toMatch(/^\*\*Passkeys\*\* \[1\]\n\nPasskeys let persons sign in with their device instead of a password\./);
    expect(a.used[0]?.passage.url).toBe('/docs/access/guides/passkeys');
  });

  it('answers which-endpoint with the method, the path and one curl line, and never quotes a table row', () => {
    const a = answer('Which endpoint creates a person?');
    expect(a.kind).toBe('which-endpoint');
    expect(a.markdown).toContain('**`POST /persons`**');
    expect(a.markdown).toContain(
      `curl -X POST "$KEYWAY_API_URL/persons" -H "Keyway-OrgID: $KEYWAY_ORG_ID" -H "Keyway-API-Key: $KEYWAY_API_KEY" -H 'content-type: application/json' -d '{"handles":[{"type":"email_address","value":"ada@example.com"}]}'`,
    );
    expect(a.markdown).not.toMatch(/handles array/);
    const options = answer('pii-detection plugin options');
    expect(options.markdown).not.toMatch(/fields all/);
    expect(options.markdown).toContain('**Plugin: pii-detection');
  });

  it('answers which-endpoint with the reference page’s own curl sample, headers included, as the built page renders it', () => {
    // The built reference page has no Authentication or Request body section of its own: they are inside its
    // introduction, with the request samples (one per language) after them. Before, the answer's curl line was built
    // from sections that were not there: no Keyway-OrgID or Keyway-API-Key header, and no body.
    const page = html(
      'Get a list of groups',
      `<p>get/groups Lists the names of the groups of the organization. Categories: Groups, Identity Management.</p>
       <div><h4>Authentication</h4><p>The Keyway-OrgID header with your organization id, plus the Keyway-API-Key header with a management API key of that organization.</p></div>
       <div><p>Request samples</p>${code('bash', ["curl -X GET 'http://localhost:8787/groups' \\", "  -H 'Keyway-OrgID: org_keyway_dev' \\", "  -H 'Keyway-API-Key: kw_dev_api_key_not_secret'"])}${code('js', ["await fetch('http://localhost:8787/groups');"])}</div>
       <div><p>Example response 200</p>${code('json', ['{"result": ["editors"]}'])}</div>`,
    );
    const small = indexPassages(extractPage(page, '/docs/api/get-groups', 0).map((p, i) => ({ ...p, id: i })));
    const q = 'Which API endpoint lists the groups?';
    const a = extractiveAnswer(q, retrieve(small, q, { signedIn: false }), small.pagePassages);
    expect(a.kind).toBe('which-endpoint');
    expect(a.markdown).toContain('Use **`GET /groups`** (Get a list of groups) [1]: Lists the names of the groups of the organization.');
    expect(a.markdown).not.toContain('Categories:');
    expect(a.markdown).toContain(
      "```bash\ncurl -X GET 'http://localhost:8787/groups' \\\n  -H 'Keyway-OrgID: org_keyway_dev' \\\n  -H 'Keyway-API-Key: kw_dev_api_key_not_secret'\n```",
    );
    // A sample that prepares its input first (the bulk import writes its CSV file) is printed whole.
    const upload = html(
      'Import persons in bulk',
      `<p>post/persons/bulk-import Creates persons from a CSV file. Categories: Persons.</p>
       <div><p>Request samples</p>${code('bash', ["cat &gt; persons.csv &lt;&lt;'EOF'", 'handle_type,handle_value', 'email_address,ada@example.com', 'EOF', "curl -X POST 'http://localhost:8787/persons/bulk-import' -F 'persons=@persons.csv'"])}</div>`,
    );
    const bulk = indexPassages(extractPage(upload, '/docs/api/post-persons-bulk-import', 0).map((p, i) => ({ ...p, id: i })));
    const uq = 'which endpoint imports persons from a csv file';
    expect(extractiveAnswer(uq, retrieve(bulk, uq, { signedIn: false }), bulk.pagePassages).markdown).toContain(
      "```bash\ncat > persons.csv <<'EOF'\nhandle_type,handle_value\nemail_address,ada@example.com\nEOF\ncurl -X POST 'http://localhost:8787/persons/bulk-import' -F 'persons=@persons.csv'\n```",
    );
    // Without a sample, the line built from the page still carries the headers its introduction names.
    const bare = indexPassages(extractPage(page.replace(/<div><p>Request samples[\s\S]*?<\/div>/, ''), '/docs/api/get-groups', 0).map((p, i) => ({ ...p, id: i })));
    expect(extractiveAnswer(q, retrieve(bare, q, { signedIn: false }), bare.pagePassages).markdown).toContain(
      'curl -X GET "$KEYWAY_API_URL/groups" -H "Keyway-OrgID: $KEYWAY_ORG_ID" -H "Keyway-API-Key: $KEYWAY_API_KEY"',
    );
  });

  it('answers a yes/no question with the yes or the no first', () => {
    expect(answer('Can persons sign in with passkeys instead of a password?').markdown).toMatch(/^\*\*Yes\.\*\* \*\*Passkeys/);
    const caching = indexPassages(extractPage(html('Caching', '<p>Gate never caches upstream responses: every request reaches your service.</p><h2 id="why">Why</h2><p>Responses may carry personal data.</p>'), '/docs/gate/caching', 0));
    const q = 'Does Gate cache the responses of my service?';
    expect(extractiveAnswer(q, retrieve(caching, q, { signedIn: false }), caching.pagePassages).markdown).toMatch(/^\*\*No\.\*\* \*\*Caching\*\*/);
    expect(answer('How do I enable passkeys?').markdown).not.toMatch(/^\*\*(Yes|No)\.\*\*/);
  });

  it('gives the sample in the language the question asks for, when the page has one', () => {
    const tokens = indexPassages(
      extractPage(
        html('Verify tokens', `<p>Verify a token on your server before trusting it.</p><h2 id="verify">Verify the signature</h2><p>Fetch the keys once and verify every token with them.</p>${code('ts', ['await verify(token);'])}${code('python', ['verify(token)'])}`),
        '/docs/access/guides/verify',
        0,
      ),
    );
    const inPython = 'how do I verify the token signature in python';
    expect(extractiveAnswer(inPython, retrieve(tokens, inPython, { signedIn: false }), tokens.pagePassages).markdown).toContain('```python\nverify(token)\n```');
    const plain = 'how do I verify the token signature';
    expect(extractiveAnswer(plain, retrieve(tokens, plain, { signedIn: false }), tokens.pagePassages).markdown).toContain('```ts\nawait verify(token);\n```');
  });

  it('cites the other pages retrieval found after the answer, each with its own number', () => {
    const { markdown, used, retrieval } = answer('rate limit requests that go through the gateway');
    const pages = new Set(retrieval.passages.map((r) => r.passage.url.split('#')[0]));
    expect(pages.size).toBeGreaterThan(1);
    expect(markdown).toContain('Also in the docs:');
    expect(new Set(used.map((u) => u.passage.url.split('#')[0])).size).toBe(Math.min(3, pages.size));
    for (const u of used) expect(markdown).toContain(`[${u.n}]`);
  });

  it('streams sentence by sentence and code line by line, losing nothing', () => {
    const text = 'First sentence. Second one! Third?\n\n```ts\nconst a = 1;\nconst b = 2;\n```\nLast.';
    const pieces = streamPieces(text);
    expect(pieces.join('')).toBe(text);
    expect(pieces).toEqual(expect.arrayContaining(['First sentence. ', 'Second one! ', 'const a = 1;\n']));
  });
});

describe('the chat endpoint', () => {
  let server: Awaited<ReturnType<typeof startFixtureServer>>;
  beforeAll(async () => {
    server = await startFixtureServer({ assistant: { sentenceDelayMs: 20 } });
  });
  afterAll(() => server.close());

  it('ends commercial questions in the contact-us answer, without citations or a model call', async () => {
    for (const question of ['How much does the gateway cost?', 'Can we sign an enterprise contract with an SLA?', 'I want to talk to someone in sales']) {
      const { meta, answer, citations } = await chat(server.url, { question });
      expect(meta, question).toMatchObject({ mode: 'not-found', contact: true });
      expect(answer, question).toContain('[contact us](https://keyway.dev/contact)');
      expect(citations, question).toEqual([]);
    }
  });

  it('streams an extractive answer in several timed pieces, the first at once', async () => {
    const started = Date.now();
    const res = await fetch(`${server.url}/api/assistant/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'How do I create a machine client with a client secret?' }) });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const arrivals: number[] = [];
    let text = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      const chunk = new TextDecoder().decode(value);
      text += chunk;
      if (chunk.includes('event: delta')) arrivals.push(Date.now() - started);
    }
    expect(text).toContain('event: done');
    expect(arrivals.length).toBeGreaterThan(3);
    expect((arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThanOrEqual(40);
  });

  it('sends a model’s tokens on as they arrive', async () => {
    const llm = await fakeLlm('Use a machine client [1]. Keep its secret safe.', 200, 30);
    const withModel = await startFixtureServer({ assistant: { llm: { url: llm.url, model: 'fake' } } });
    try {
      const started = Date.now();
      const res = await fetch(`${withModel.url}/api/assistant/chat`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ question: 'How do backend services call the API with a client secret?' }) });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const arrivals: number[] = [];
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        if (new TextDecoder().decode(value).includes('event: delta')) arrivals.push(Date.now() - started);
      }
      // 7 pieces 30 ms apart: they reach the reader spread out, not all at the end.
      expect(arrivals.length).toBeGreaterThan(3);
      expect((arrivals.at(-1) ?? 0) - (arrivals[0] ?? 0)).toBeGreaterThanOrEqual(90);
    } finally {
      await withModel.close();
      await llm.close();
    }
  });
});

describe('hybrid retrieval with embeddings', () => {
  /**
   * A local stand-in for an OpenAI-compatible `/embeddings` endpoint: a text about birds of prey (falcon, hawk,
   * raptor) points one way, anything else another (the introduction a little between), so meaning can be told apart
   * from shared words.
   */
  async function fakeEmbeddings() {
    const http = await import('node:http');
    const requests: { model: string; input: string[] }[] = [];
    const server = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        const body = JSON.parse(raw) as { model: string; input: string[] };
        requests.push(body);
        if (req.url !== '/v1/embeddings') return void res.writeHead(404).end();
        const data = body.input.map((text, index) => ({ object: 'embedding', index, embedding: /falcon|hawk|raptor/i.test(text) ? [1, 0.05, 0] : /^Introduction/.test(text) ? [0.3, 1, 0] : [0, 1, 0.1] }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model: body.model }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as import('node:net').AddressInfo;
    return { url: `http://127.0.0.1:${port}/v1`, requests, close: () => new Promise<void>((r) => server.close(() => r())) };
  }

  it('fuses the lexical ranking with the passages nearest in meaning (reciprocal rank fusion)', async () => {
    const { reciprocalRankFusion } = await import('../src/assistant/retrieve.js');
    expect(reciprocalRankFusion([[1, 2, 3], [3, 1]]).map((r) => r.id)).toEqual([1, 3, 2]);
    const { DenseIndex } = await import('../src/assistant/embeddings.js');
    const fake = await fakeEmbeddings();
    try {
      const passage = (id: number, url: string, title: string, text: string) => ({ id, url, title, heading: '', text, prose: text, code: [], gated: false });
      const docs = indexPassages([
        passage(0, '/docs/gate/plugins/mirroring', 'Mirroring', 'Mirroring copies requests of a bird-watching app to a second upstream.'),
        passage(1, '/docs/gate/plugins/raptor', 'Raptor plugin', 'Watches traffic like a hawk and blocks the requests of scrapers.'),
        passage(2, '/docs/intro', 'Introduction', 'Keyway docs.'),
      ]);
      const dense = await DenseIndex.build({ url: fake.url, model: 'fake-embed' }, docs);
      expect(fake.requests[0]).toMatchObject({ model: 'fake-embed' });
      expect(fake.requests[0]?.input).toHaveLength(3);
      const question = 'which falcon blocks requests of a bird-watching app';
      const nearest = await dense.nearest(question, docs.visible(false));
      expect(nearest[0]).toBe(1);
      const lexical = retrieve(docs, question, { signedIn: false }).passages.map((p) => p.passage.url);
      const hybrid = retrieve(docs, question, { signedIn: false, dense: nearest }).passages.map((p) => p.passage.url);
      expect(hybrid[0]).toBe('/docs/gate/plugins/raptor');
      expect(lexical[0]).not.toBe('/docs/gate/plugins/raptor');
      // Off-topic stays off-topic: the lexical check still decides whether the docs answer at all.
      expect(retrieve(docs, 'recipe for chocolate cake', { signedIn: false, dense: await dense.nearest('recipe for chocolate cake', undefined) }).passages).toEqual([]);
    } finally {
      await fake.close();
    }
  });

  it('is configured from the environment, naming what is missing', async () => {
    const { assistantOptionsFromEnv } = await import('../src/assistant/config.js');
    expect(assistantOptionsFromEnv({ KEYWAY_ASSISTANT_EMBEDDINGS_URL: 'http://localhost:11434/v1', KEYWAY_ASSISTANT_EMBEDDINGS_MODEL: 'nomic-embed-text' }).embeddings).toEqual({
      url: 'http://localhost:11434/v1',
      model: 'nomic-embed-text',
    });
    expect(() => assistantOptionsFromEnv({ KEYWAY_ASSISTANT_EMBEDDINGS_URL: 'http://localhost:11434/v1' })).toThrow(/KEYWAY_ASSISTANT_EMBEDDINGS_MODEL is required/);
    expect(() => assistantOptionsFromEnv({ KEYWAY_ASSISTANT_EMBEDDINGS_URL: 'ftp://x', KEYWAY_ASSISTANT_EMBEDDINGS_MODEL: 'm' })).toThrow(/KEYWAY_ASSISTANT_EMBEDDINGS_URL must use http or https/);
    // Retrieval by meaning with the bundled encoder is on unless turned off.
    expect(assistantOptionsFromEnv({}).meaning).toBeUndefined();
    expect(assistantOptionsFromEnv({ KEYWAY_ASSISTANT_MEANING: 'off' }).meaning).toBe(false);
    expect(() => assistantOptionsFromEnv({ KEYWAY_ASSISTANT_MEANING: 'maybe' })).toThrow(/KEYWAY_ASSISTANT_MEANING must be "on" or "off", got "maybe"/);
  });

  it('answers through the chat endpoint with embeddings configured, and lexically when the endpoint fails', async () => {
    const fake = await fakeEmbeddings();
    const server = await startFixtureServer({ assistant: { embeddings: { url: fake.url, model: 'fake-embed' }, sentenceDelayMs: 0 } });
    try {
      await expect.poll(() => fake.requests.length).toBeGreaterThan(0);
      const { citations } = await chat(server.url, { question: 'How do I create a machine client with a client secret?' });
      expect(citations[0]?.url).toBe('/docs/access/guides/m2m#create-a-client');
      // The question itself was embedded.
      await expect.poll(() => fake.requests.some((r) => r.input[0] === 'How do I create a machine client with a client secret?')).toBe(true);
    } finally {
      await fake.close();
    }
    // The endpoint is gone: answers still come, from the lexical engine.
    const { citations, meta } = await chat(server.url, { question: 'How do I create a machine client with a client secret?' });
    expect(meta?.mode).toBe('extractive');
    expect(citations[0]?.url).toBe('/docs/access/guides/m2m#create-a-client');
    await server.close();
  });
});

describe('passage text', () => {
  // The build renders each code line as a div.token-line ending in <br/>: the indexed text must keep the lines apart
  // ("port: 8443" then "tls:"), or the last word of a line and the first of the next become one unknown word.
  const page = html(
    'TLS',
    `<p>Serve HTTPS from the gateway.</p>
     <div class="language-yaml codeBlockContainer"><pre class="prism-code language-yaml"><code><div class="token-line"><span class="token key">port</span><span>: </span><span class="token number">8443</span><br/></div><div class="token-line"><span class="token key">tls</span><span>:</span><br/></div></code></pre></div>`,
  );
  const [intro] = extractPage(page, '/docs/gate/tls', 0);

  it('keeps the words of consecutive code lines apart, and the code itself line by line', () => {
    expect(intro?.text).toContain('8443 tls');
    expect(intro?.text).not.toMatch(/8443tls/);
    expect(intro?.code).toEqual([{ lang: 'yaml', source: 'port: 8443\ntls:' }]);
    expect(runSearch(indexPassages([intro!]).index, 'tls', 5)[0]?.url).toBe('/docs/gate/tls');
  });
});
