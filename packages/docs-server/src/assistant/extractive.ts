import type { Passage } from '../search/extract.js';
import { pageKind } from '../search/engine.js';
import type { Declined, Retrieval, Retrieved } from './retrieval-types.js';

/** Where a sentence may end: its closing punctuation, followed by white space or the end of the text. */
const SENTENCE_END = /[.!?]+(?=\s|$)/g;
/** Abbreviations whose dot ends no sentence ("e.g. the email code"), and those that do not before a number ("No. 57"). */
const ABBREVIATIONS = new Set(['e.g', 'i.e', 'etc', 'vs', 'cf', 'approx', 'incl', 'resp']);
const BEFORE_NUMBER = new Set(['no', 'nos', 'art', 'sec', 'fig', 'vol', 'p', 'pp', 'ch', 'v']);

/** How many of the terms a sentence mentions (a term matches a word it starts, or that starts it, typos aside). */
function termHits(sentence: string, terms: string[]): number {
  const words = sentence.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  return terms.filter((t) => words.some((w) => w.startsWith(t) || (w.length >= 4 && t.startsWith(w)) || (t.length > 5 && w.startsWith(t.slice(0, 5)))))
    .length;
}

/**
 * The sentences of a text, whole: a dot inside a name, an address or a number ("auth0.log_events", "1.5") is not an
 * end, nor one after an abbreviation ("e.g.", "Act No. 57"), nor one followed by a lower-case word.
 */
function sentencesOf(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (const m of text.matchAll(SENTENCE_END)) {
    const at = m.index ?? 0;
    const end = at + m[0].length;
    // Only the word before the mark and the character after the white space are read, not the rest of the text.
    const next = /\S/.exec(text.slice(end, end + 16))?.[0] ?? '';
    const word = /([\p{L}.]+)$/u.exec(text.slice(Math.max(start, at - 16), at))?.[1]?.toLowerCase() ?? '';
    if (m[0] === '.' && (ABBREVIATIONS.has(word) || (BEFORE_NUMBER.has(word) && /\d/.test(next)))) continue;
    if (/\p{Ll}/u.test(next)) continue;
    out.push(text.slice(start, end).trim());
    start = end;
  }
  out.push(text.slice(start).trim());
  return out.filter((s) => s.length > 0);
}

/** The two or three sentences of a passage that say the most about the question, in their original order. */
export function bestSentences(text: string, terms: string[], max = 3, budget = 600): string {
  const ranked = sentencesOf(text)
    .map((s, i) => ({ s, i, hits: termHits(s, terms) }))
    .sort((a, b) => b.hits - a.hits || a.i - b.i)
    .slice(0, max)
    .filter((x, k) => k === 0 || x.hits > 0)
    .sort((a, b) => a.i - b.i);
  return withinBudget(ranked.map((r) => r.s), budget);
}

/** The first sentences of a text, up to `budget` characters (a definition is what a page says first). */
export function leadSentences(text: string, max = 3, budget = 500): string {
  return withinBudget(sentencesOf(text).slice(0, max), budget);
}

function withinBudget(sentences: string[], budget: number): string {
  let out = '';
  for (const s of sentences) {
    if (out && out.length + s.length > budget) break;
    out += (out ? ' ' : '') + s;
  }
  return out.length > budget ? `${out.slice(0, budget).replace(/\s+\S*$/, '')}…` : out;
}

/** The kinds of question the extractive assistant tells apart; each gets its own kind of answer. */
export type QuestionClass = 'commercial' | 'which-endpoint' | 'troubleshooting' | 'what-is' | 'how-to';

// Prices, contracts, accounts and people: the docs do not answer these, our team does. Words that only ever mean buying
// Keyway or reaching its team make a question commercial on their own.
const COMMERCIAL =
  /\b(pric(e|es|ed|ing)|how much (does|do|will|would|is|are)\b[^?]{0,40}\bcosts?|discounts?|a quote|quotes? for|sla|dpa|msa|refunds?|(book|schedule|get) a demo|demo call|sales( team)?|sales ?person|talk to (someone|somebody|a human|a person|sales)|speak (to|with) (someone|somebody|a human|a person|sales)|call me|(are you|you are|you're) hiring|apply for a job|job (openings?|offers?|postings?)|careers?|reseller|partnership|competitors?|cancel (my|our) (account|plan|subscription|contract)|(bank|wire) transfers?|purchase orders?)\b/i;
// Words that mean buying Keyway in a question about nothing else ("Is there a free trial?", "invoice for last month is
// wrong"), but the reader's own business in a question about building with Keyway ("put the plan from our billing
// system into the JWT", "a nightly cron job", "the customer's subscription plan in the app").
const COMMERCIAL_IF_ALONE =
  /\b(costs?|contracts?|invoices?|billing|billed|subscriptions?|free trial|trial period|jobs?|hiring|pay(ing)? (by|with|via|using)|payment (methods?|options?|terms))\b/i;
/** Words of building with Keyway: a question with one of them is about the docs' subject, whatever else it names. */
const BUILDING =
  /\b(api|apis|jwts?|tokens?|claims?|apps?|applications?|sdks?|webhooks?|attributes?|endpoints?|database|server|servers|backend|frontend|gate|gateway|config|configuration|headers?|cron|react|remix|users?|persons?|fields?|sign(ed|s)? ?(in|up)|log(ged)? ?in|login|signup|store|events?|plugins?|hooks?|sessions?|groups?|organizations?|roles?)\b/i;

/** Whether a question is about buying Keyway or reaching its team rather than about building with it. */
export function isCommercial(question: string): boolean {
  return COMMERCIAL.test(question) || (COMMERCIAL_IF_ALONE.test(question) && !BUILDING.test(question));
}
const ENDPOINT = /\b(endpoint|endpoints|api call|rest api|http api|which api|what api|route|(get|post|put|patch|delete) \/)/i;
const TROUBLE = /\b(errors?|fail(s|ed|ing|ure)?|not working|doesn'?t work|does not work|broken|exception|throws?|thrown|troubleshoot\w*|wrong|denied|refused|unauthori[sz]ed|forbidden|40[0-9]|50[0-9]|why (does|is|am|do|are)|can'?t|cannot)\b/i;
const WHAT_IS = /^(what|what's|whats)\s+(is|are|does)\b|^(define|explain)\b|\bmeaning of\b|\bdifference between\b/i;

export function classify(question: string, retrieval?: Retrieval): QuestionClass {
  if (isCommercial(question)) return 'commercial';
  const best = retrieval?.passages[0]?.passage;
  if (ENDPOINT.test(question) || (best && pageKind(best.url) === 'api')) return 'which-endpoint';
  if (TROUBLE.test(question)) return 'troubleshooting';
  if (WHAT_IS.test(question)) return 'what-is';
  return 'how-to';
}

/** An answer: Markdown whose `[n]` markers refer to `used` (the passages it quotes, in the order cited). */
export interface ExtractiveAnswer {
  kind: QuestionClass;
  markdown: string;
  used: Retrieved[];
}

const where = (p: Passage) => (p.heading ? `${p.title} › ${p.heading}` : p.title);
const fenced = (lang: string, source: string) => {
  const lines = source.split('\n');
  const body = lines.length > 40 ? `${lines.slice(0, 40).join('\n')}\n…` : source;
  const fence = body.includes('```') ? '~~~' : '```';
  return `${fence}${lang}\n${body}\n${fence}`;
};

/** What a passage says about the question, under its heading; never a bare table row (tables are left out of prose). */
function quote(p: Passage, terms: string[], lead = false): string {
  const text = lead ? leadSentences(p.prose) : bestSentences(p.prose, terms);
  if (!text) return `The ${p.code.length ? 'example' : 'table'} under this heading has the details.`;
  // A section's last sentence that introduces what follows it ("…returns a GDPRConsentState:") introduces a table or a
  // code block, which the quote leaves out: say where it is rather than leave the colon hanging.
  return text.endsWith(':') ? `${text.slice(0, -1)}, set out in full under this heading on the page.` : text;
}

const OPERATION = /^(get|post|put|patch|delete)(\/\S*)/i;

/** Programming languages and tools a question may ask its sample in, with the code-block languages that are theirs. */
const SAMPLE_LANGUAGES: readonly (readonly [RegExp, readonly string[]])[] = [
  [/\bpython\b/i, ['python', 'py']],
  [/\bphp\b/i, ['php']],
  [/\b(curl|bash|shell|terminal|command line)\b/i, ['bash', 'sh', 'shell', 'console']],
  [/\btypescript\b/i, ['ts', 'tsx', 'typescript']],
  [/\b(javascript|node(\.?js)?)\b/i, ['js', 'javascript', 'jsx', 'ts']],
  [/\b(go|golang)\b(?! to\b)/i, ['go']],
  [/\bjava\b/i, ['java']],
  [/\b(yaml|yml)\b/i, ['yaml', 'yml']],
  [/\bjson\b/i, ['json']],
  [/\bsql\b/i, ['sql']],
];

/** The code-block languages a question asks its sample in, if it names one. */
export function languagesAsked(question: string): string[] {
  return SAMPLE_LANGUAGES.filter(([name]) => name.test(question)).flatMap(([, langs]) => langs);
}
/** Headings of a guide that are around its steps, not steps. */
const NOT_A_STEP = /^(troubleshooting|common (errors|problems|mistakes)|next steps|related( pages)?|see also|faq|further reading|learn more)$/i;
/** A heading that numbers a step ("Step 2: obtain an access token"), and the part of it before the step itself. */
const STEP = /^step\s*\d+\s*[:.)–—-]?\s*/i;

/** The method and path of an API reference page (its introduction starts with them), and a curl line to call it. */
export function operationOf(intro: Passage, auth: Passage | undefined, body: Passage | undefined): { method: string; path: string; curl: string } | undefined {
  const m = OPERATION.exec(intro.prose);
  if (!m) return undefined;
  const method = (m[1] as string).toUpperCase();
  const path = m[2] as string;
  const url = `$KEYWAY_API_URL${path.replace(/\{(\w+)\}/g, (_, name: string) => `$${name.toUpperCase()}`)}`;
  const authText = auth?.prose ?? '';
  const headers = [
    ...(/Keyway-OrgID/.test(authText) ? ['Keyway-OrgID: $KEYWAY_ORG_ID'] : []),
    ...(/Keyway-API-Key/.test(authText) ? ['Keyway-API-Key: $KEYWAY_API_KEY'] : []),
    ...(/Bearer/.test(authText) ? ['Authorization: Bearer $KEYWAY_TOKEN'] : []),
  ];
  const example = body?.code.find((c) => c.lang === 'json')?.source;
  let data = '';
  if (example && method !== 'GET' && method !== 'DELETE') {
    try {
      data = ` -H 'content-type: application/json' -d '${JSON.stringify(JSON.parse(example)).replace(/'/g, "'\\''")}'`;
    } catch {
      data = '';
    }
  }
  const curl = `curl -X ${method} "${url}"${headers.map((h) => ` -H "${h}"`).join('')}${data}`;
  return { method, path, curl };
}

/**
 * The answer without a language model, built from the best page for the kind of question:
 * - how-to: what the best section says, the first complete code block of that page, and the page's steps ("Step 1:
 *   …" headings) or else its sections, linked;
 * - what-is: the page's defining paragraph (what it says first), and the best section when it is another one;
 * - which-endpoint: the operation's method and path, what it does, and the reference page's own curl sample (one
 *   curl line built from the page when it has none);
 * - troubleshooting: what the best section says (a troubleshooting section when the page has one).
 * Only the passages quoted are cited, each under its page title and heading.
 */
export function extractiveAnswer(question: string, retrieval: Retrieval, pagePassages: (page: string) => Passage[]): ExtractiveAnswer {
  const kind = classify(question, retrieval);
  const top = retrieval.passages[0] as Retrieved;
  const page = top.passage.url.split('#')[0] ?? top.passage.url;
  const sections = pagePassages(page);
  const used: Retrieved[] = [];
  const cite = (p: Passage): number => {
    const found = used.find((u) => u.passage.url === p.url);
    if (found) return found.n;
    const n = used.length + 1;
    used.push({ passage: p, n, score: retrieval.passages.find((r) => r.passage.url === p.url)?.score ?? 0 });
    return n;
  };
  const parts: string[] = [];
  const terms = retrieval.terms;
  // The other pages retrieval found, cited after the answer (each part of an answer cites the page that supports it).
  const finish = () => {
    const also = seeAlso(retrieval, used, cite);
    if (also) parts.push(also);
    if (YES_NO.test(question.trim()) && kind !== 'which-endpoint' && parts[0]) parts[0] = yesOrNo(parts[0]);
    return { kind, markdown: parts.join('\n\n'), used };
  };

  if (kind === 'which-endpoint') {
    const api = retrieval.passages.find((r) => pageKind(r.passage.url) === 'api')?.passage;
    const apiSections = api ? pagePassages(api.url.split('#')[0] ?? '') : [];
    const intro = apiSections.find((p) => !p.heading);
    // The reference page renders its authentication inside its introduction (no section of its own): the headers are
    // read from there when there is no Authentication section.
    const auth = apiSections.find((p) => p.heading === 'Authentication') ?? intro;
    const op = intro ? operationOf(intro, auth, apiSections.find((p) => p.heading === 'Request body')) : undefined;
    if (intro && op) {
      // What the operation does: its description, without the categories and the reference's tables after it.
      const description = intro.prose.replace(OPERATION, '').split(/\s(?:Categories:|Authentication\s)/)[0] ?? '';
      const what = leadSentences(description.trim(), 2, 400);
      parts.push(`Use **\`${op.method} ${op.path}\`** (${intro.title}) [${cite(intro)}]: ${what}`);
      // The page's own curl sample (its request samples), which runs as printed against the server `npm start` runs;
      // a curl line built from the page otherwise.
      const sample = apiSections.flatMap((p) => p.code).find((c) => c.lang === 'bash' && /^curl\s/m.test(c.source));
      if (sample) {
        parts.push(fenced('bash', sample.source));
        parts.push("This is the reference page's own sample, for the Keyway API that `npm start` runs (http://localhost:8787); the page lists every parameter and response.");
      } else {
        parts.push(fenced('bash', op.curl));
        parts.push('`KEYWAY_API_URL` is the Keyway API (http://localhost:8787 under `npm start`); the reference page lists every parameter and response.');
      }
      return finish();
    }
  }

  if (kind === 'what-is') {
    const intro = sections.find((p) => !p.heading && p.prose);
    if (intro) parts.push(`**${where(intro)}** [${cite(intro)}]\n\n${quote(intro, terms, true)}`);
    if (!intro || (top.passage.heading && top.passage !== intro)) parts.push(`**${where(top.passage)}** [${cite(top.passage)}]\n\n${quote(top.passage, terms)}`);
    return finish();
  }

  // how-to, troubleshooting (and what a which-endpoint question becomes without an API page).
  let best = top.passage;
  if (kind === 'troubleshooting') {
    const trouble = sections.find((p) => /troubleshoot|common (errors|problems|mistakes)|errors?$|faq/i.test(p.heading));
    const troubleRank = trouble && retrieval.passages.find((r) => r.passage.url === trouble.url);
    if (trouble && (troubleRank || !top.passage.heading)) best = trouble;
  }
  parts.push(`**${where(best)}** [${cite(best)}]\n\n${quote(best, terms)}`);
  if (kind === 'how-to') {
    // The first complete code block of the page, from the best section when it has one.
    // …in the language the question asks for, when the page has a sample in it ("in python", "with curl").
    const asked = languagesAsked(question);
    const inAsked = (p: Passage) => p.code.find((c) => asked.includes(c.lang.toLowerCase()));
    const withAsked = asked.length ? [best, ...sections].find((p) => inAsked(p)) : undefined;
    const withCode = withAsked ?? (best.code.length ? best : sections.find((p) => p.code.length));
    const code = withAsked ? inAsked(withAsked) : withCode?.code[0];
    if (withCode && code) {
      const n = cite(withCode);
      parts.push(`${withCode === best ? '' : `From **${where(withCode)}** [${n}]:\n\n`}${fenced(code.lang, code.source)}`);
    }
    // The rest of the page, linked, when it has several sections. Only a guide, tutorial or concept page has
    // them (a reference entry's sections, "Constructors", "Parameters", "Returns", are not), and what surrounds the
    // page's subject ("Troubleshooting", "Next steps", "Related pages") is left out. A page whose headings number its
    // steps ("Step 1: …") lists those as steps; any other page's headings are its sections, not steps to follow.
    const listed = ['guide', 'overview'].includes(pageKind(best.url)) ? sections.filter((p) => p.heading && p.url.includes('#') && !NOT_A_STEP.test(p.heading)) : [];
    const steps = listed.filter((p) => STEP.test(p.heading));
    if (steps.length >= 2) {
      const step = (heading: string) => heading.replace(STEP, '').replace(/^\p{Ll}/u, (c) => c.toUpperCase());
      parts.push(`The steps on **${best.title}**:\n\n${steps.slice(0, 8).map((p, i) => `${i + 1}. [${step(p.heading)}](${p.url})`).join('\n')}`);
    } else if (listed.length >= 2) {
      parts.push(`The sections of **${best.title}**:\n\n${listed.slice(0, 8).map((p) => `- [${p.heading}](${p.url})`).join('\n')}`);
    }
  }
  return finish();
}

/** A question that asks yes or no ("Can I…", "Does Gate…", "Is there…"): its answer starts with the yes or the no. */
const YES_NO = /^(can|could|does|do|did|is|are|was|will|would|should|may|has|have)\b/i;
/** A sentence that says something is not so ("cannot", "is not supported", "never", "no longer"). */
const NEGATION = /\b(cannot|can't|can not|not|never|no longer|isn't|aren't|doesn't|don't|won't|unsupported)\b/i;

/**
 * The first part of an answer to a yes/no question, with the answer first: "No." when the quoted sentences say it is
 * not so, otherwise "Yes." (the docs describe what can be done: a question they answer confidently is one they say yes to).
 */
function yesOrNo(first: string): string {
  const body = first.replace(/^\*\*[^*]+\*\* \[\d+\]\n\n/, '');
  return `**${NEGATION.test(body) ? 'No' : 'Yes'}.** ${first}`;
}

/**
 * The other pages among the retrieved passages (two at most, one passage each, not already quoted), each cited: what
 * else in the docs bears on the question.
 */
function seeAlso(retrieval: Retrieval, used: readonly Retrieved[], cite: (p: Passage) => number): string {
  const pageOf = (p: Passage) => p.url.split('#')[0];
  const quoted = new Set(used.map((u) => pageOf(u.passage)));
  const others: Passage[] = [];
  for (const { passage } of retrieval.passages) {
    if (others.length >= 2) break;
    if (quoted.has(pageOf(passage)) || others.some((o) => pageOf(o) === pageOf(passage))) continue;
    others.push(passage);
  }
  if (!others.length) return '';
  return `Also in the docs:\n\n${others.map((p) => `- [${where(p)}](${p.url}) [${cite(p)}]`).join('\n')}`;
}

/** Where readers reach a person (the panel's contact-us call to action links to the same place). */
export const CONTACT_URL = 'https://keyway.dev/contact';

export const NOT_FOUND_ANSWER =
  "I couldn't find anything about that in the Keyway docs, so I can't answer it. I can help with questions about Keyway: " +
  `Access (sign-in SDKs and concepts), Gate, Identity Protection and the REST API. Try rephrasing your question, or [contact us](${CONTACT_URL}).`;

export const COMMERCIAL_ANSWER =
  'Pricing, plans, contracts, billing and talking to our team are not covered by the docs, so the assistant cannot answer that. ' +
  `Please [contact us](${CONTACT_URL}): the Keyway team answers these questions directly.`;

const listed = (words: readonly string[]) => (words.length <= 1 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words.at(-1)}`);

/**
 * The answer to an on-topic question the docs do not answer: said plainly first (naming what they never mention, when
 * that is why), then the closest pages they do have, each cited with what it is about, and the contact-us action.
 */
export function notCoveredAnswer(declined: Declined): { markdown: string; used: Retrieved[] } {
  const used = declined.closest.map((r, i) => ({ ...r, n: i + 1 }));
  const missing = declined.missing.map((w) => `“${w}”`);
  const why = missing.length
    ? `${listed(missing)} ${missing.length > 1 ? 'appear' : 'appears'} nowhere in them`
    : 'none of their pages answers it';
  const parts = [`**The Keyway docs do not cover this**: ${why}, so there is no answer here that a page of the docs backs.`];
  if (used.length) {
    const lines = used.map((r) => `- [${where(r.passage)}](${r.passage.url}) [${r.n}]: ${leadSentences(r.passage.prose, 1, 200) || r.passage.title}`);
    parts.push(`The closest the docs come:\n\n${lines.join('\n')}`);
  }
  parts.push(`If you need this, [contact us](${CONTACT_URL}): the Keyway team can tell you whether and how it can be done.`);
  return { markdown: parts.join('\n\n'), used };
}
