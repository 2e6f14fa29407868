import type { SearchDoc } from './extract.js';
import { processTerm } from './engine.js';

/**
 * The synonym layer, built from the docs themselves so that a reader's words find the page that uses the other ones:
 *
 * - every abbreviation the docs define, written as "Spelled Out Words (ABBR)" where the capital initials of the
 *   words give the abbreviation (“Open Policy Agent (OPA)”, “Multi-Factor Authentication (MFA)”);
 * - the glossary's entries (or any section written the same way): a section whose heading names a term and whose
 *   text says "Other names: a, b, c." makes the term and its other names one group (a heading "Term (ABBR)" gives
 *   both forms).
 *
 * A page's front-matter `keywords` are not part of it: they name the page's topics as readers would ("social login",
 * "migrate users", "PII"), are indexed on the page itself (its introduction and its whole-page document), and spread
 * over every passage that mentions one of them they made unrelated pages match (measured: lower hit rates).
 *
 * Abbreviations are expanded at index time: each passage that mentions one form (as whole words, any
 * case) gets the other forms in its `keywords` field (indexed, never shown), and the browser's index carries it.
 * The glossary's other names expand the query instead, one way, to the docs' word (`questionSynonyms`; plurals
 * folded: "users" finds "person"); an abbreviation among them also the other way, from the term ("personal data" finds
 * "PII", which the PII detection page is named by).
 */
export interface SynonymTable {
  /** Form (lower case, words processed as the index does) → the other forms of the same thing, as written. */
  forms: Map<string, Set<string>>;
  /**
   * The glossary's other names (processed as `forms`) → the docs' own word for the thing ("user" → "person"). Only
   * questions are expanded with these, one way: a passage that says "person" gains nothing, so words as common as
   * "user" or "sign in" are not spread over every page.
   */
  docsWords: Map<string, Set<string>>;
}

const DEFINITION = /((?:[A-Z][\w-]*\s+){1,5}?(?:[A-Z][\w-]*))\s+\(([A-Z][A-Za-z0-9]{1,6})\)/g;
/** "Other names: user, end user, member." in a section's text (up to the end of the sentence). */
const OTHER_NAMES = /\bOther names:\s*([^.]+)\./g;
/** An abbreviation as written: two to six letters or digits, two or more of them capitals ("PII", "IdP", "2FA"). */
const ABBREVIATION = /^(?=(?:[^A-Z]*[A-Z]){2})[A-Za-z0-9]{2,6}$/;
/** A heading "Term (ABBR)". */
const HEADING_ABBREVIATION = /^(.+?)\s*\(([^()]+)\)\s*$/;

const WORDS = /[\p{L}\p{N}_]+/gu;
/** A form as written: its words lower-cased, joined by one space. */
const lowerForm = (form: string): string => (form.match(WORDS) ?? []).map((w) => w.toLowerCase()).join(' ');
/** A form as the index reads it: its words lower-cased and with plurals folded ("users" → "user"), joined by one space. */
export const normalizeForm = (form: string): string => (form.match(WORDS) ?? []).map(processTerm).join(' ');

const initials = (phrase: string) =>
  phrase
    .split(/[\s-]+/)
    .filter(Boolean)
    .map((w) => w[0])
    .join('')
    .toUpperCase();

/** Adds `value` to the set of `key`, creating it. */
function addTo(map: Map<string, Set<string>>, key: string, value: string): void {
  const set = map.get(key);
  if (set) set.add(value);
  else map.set(key, new Set([value]));
}

function pair(table: SynonymTable, a: string, b: string) {
  const x = a.trim();
  const y = b.trim();
  const nx = lowerForm(x);
  const ny = lowerForm(y);
  if (!nx || !ny || nx === ny) return;
  for (const [from, to] of [
    [nx, y],
    [ny, x],
  ] as const) {
    addTo(table.forms, from, to.toLowerCase());
  }
}


const list = (s: string) => s.split(',').map((k) => k.trim()).filter(Boolean);

/** The abbreviations defined in the docs and the glossary's other names. */
export function buildSynonyms(docs: readonly SearchDoc[]): SynonymTable {
  const table: SynonymTable = { forms: new Map(), docsWords: new Map() };
  for (const doc of docs) {
    for (const m of `${doc.heading} ${doc.text}`.matchAll(DEFINITION)) {
      const [, phrase = '', abbr = ''] = m;
      // The shortest tail of the phrase whose initials spell the abbreviation ("Use Open Policy Agent" → "Open Policy Agent").
      const words = phrase.split(/\s+/);
      for (let i = 0; i < words.length; i++) {
        const tail = words.slice(i).join(' ');
        if (initials(tail) === abbr.replace(/[^A-Za-z]/g, '').toUpperCase()) {
          pair(table, abbr, tail);
          break;
        }
      }
    }
    if (doc.heading) {
      for (const m of doc.text.matchAll(OTHER_NAMES)) {
        const named = HEADING_ABBREVIATION.exec(doc.heading);
        const term = named ? (named[1] as string) : doc.heading;
        if (named) pair(table, term, named[2] as string);
        // Each other name leads to the term, and the abbreviation with it ("social login" → "single sign-on", "sso").
        for (const other of list(m[1] ?? '')) {
          const key = normalizeForm(other);
          if (!key || key === normalizeForm(term)) continue;
          addTo(table.docsWords, key, term.toLowerCase());
          if (named) addTo(table.docsWords, key, (named[2] as string).toLowerCase());
          // An abbreviation among the other names is found from the term too ("personal data" → "pii"): a page about
          // the thing often names it by its abbreviation alone ("PII detection").
          if (ABBREVIATION.test(other)) addTo(table.docsWords, normalizeForm(term), other.toLowerCase());
        }
      }
    }
  }
  return table;
}

/** The forms of the table met in a text, as whole words in order (longest form first where forms overlap). */
function formsIn(text: string, forms: Map<string, unknown>, byFirst: Map<string, string[]>, fold: boolean): string[] {
  const words = (text.match(WORDS) ?? []).map((w) => (fold ? processTerm(w) : w.toLowerCase()));
  const found: string[] = [];
  for (let i = 0; i < words.length; i++) {
    for (const form of byFirst.get(words[i] as string) ?? []) {
      const parts = form.split(' ');
      let ok = true;
      for (let k = 1; k < parts.length && ok; k++) ok = words[i + k] === parts[k];
      if (ok && forms.has(form)) found.push(form);
    }
  }
  return found;
}

const FIRST_WORDS = new WeakMap<Map<string, unknown>, Map<string, string[]>>();
/** The forms of a map by their first word, longest first (computed once per map). */
function firstWords(forms: Map<string, unknown>): Map<string, string[]> {
  const cached = FIRST_WORDS.get(forms);
  if (cached) return cached;
  const byFirst = new Map<string, string[]>();
  FIRST_WORDS.set(forms, byFirst);
  for (const form of forms.keys()) {
    const first = form.split(' ')[0] as string;
    const list = byFirst.get(first);
    if (list) list.push(form);
    else byFirst.set(first, [form]);
  }
  for (const list of byFirst.values()) list.sort((a, b) => b.length - a.length);
  return byFirst;
}

/**
 * The passages with their synonyms added: each passage that mentions a form of the table (as whole words, plurals
 * folded) gets the other forms in `keywords`. Forms already in the passage are not repeated.
 */
export function withSynonyms<T extends SearchDoc>(docs: readonly T[], table: SynonymTable = buildSynonyms(docs)): T[] {
  if (!table.forms.size) return [...docs];
  const byFirst = firstWords(table.forms);
  return docs.map((doc) => {
    const haystack = `${doc.title} ${doc.heading} ${doc.text}`;
    const said = ` ${lowerForm(haystack)} `;
    const added = new Set<string>();
    for (const form of formsIn(haystack, table.forms, byFirst, false)) {
      for (const other of table.forms.get(form) ?? []) if (!said.includes(` ${lowerForm(other)} `)) added.add(other);
    }
    if (!added.size) return doc;
    const keywords = [doc.keywords, ...added].filter(Boolean).join(', ');
    return { ...doc, keywords };
  });
}

/**
 * The docs' own words for what a question calls by another name, from the glossary ("delete a user" → "person",
 * "social login" → "single sign-on", "sso"), by the name the question used (processed: "users" → "user"). Terms the
 * question already says are left out.
 */
export function questionSynonyms(question: string, table: SynonymTable): Map<string, string[]> {
  const out = new Map<string, string[]>();
  if (!table.docsWords.size) return out;
  const said = ` ${normalizeForm(question)} `;
  for (const form of formsIn(question, table.docsWords, firstWords(table.docsWords), true)) {
    const terms = [...(table.docsWords.get(form) ?? [])].filter((term) => !said.includes(` ${normalizeForm(term)} `));
    if (terms.length) out.set(form, terms);
  }
  return out;
}
