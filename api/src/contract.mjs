// @ts-check
// The package entry of `@keyway/api`: the one loader of the REST contract (api/openapi.yaml) that the identity server,
// the API reference of the site and every test read it with. Types generated from the document: `@keyway/api/types`.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** @typedef {import('@redocly/openapi-core').Oas3_1Definition} OpenApiDocument */

/**
 * @typedef {object} Contract
 * @property {string} path absolute path of the document that was read
 * @property {string} text the document as written (YAML)
 * @property {OpenApiDocument} doc the parsed document; `$ref`s stay references (every one points into the document)
 */

/**
 * Absolute path of `api/openapi.yaml`, the contract this package ships. (Resolved without `new URL`: under a DOM test
 * environment the global URL is the DOM's, which Node's fileURLToPath refuses.)
 */
export const CONTRACT_PATH = resolve(dirname(fileURLToPath(import.meta.url)), '../openapi.yaml');

/** Raised when the contract file does not exist or does not parse: a caller cannot work without it. */
export class ContractError extends Error {
  /**
   * @param {string} message
   * @param {string} path
   */
  constructor(message, path) {
    super(message);
    this.name = 'ContractError';
    /** the document that could not be loaded */
    this.path = path;
  }
}

/**
 * Reads and parses the contract with the YAML parser of Redocly's OpenAPI core (the one `npm run lint -w @keyway/api`
 * checks the document with). Synchronous, so configuration files (the site's sidebars) can call it. A parsed copy is
 * kept in the temp directory keyed by the document's SHA-256: later processes (each server start, each test file)
 * skip the parse, and the parser itself (about a second to import) is only loaded on a miss.
 * @param {string} [path] another document (default: {@link CONTRACT_PATH})
 * @returns {Contract}
 * @throws {ContractError} when the file is missing, unreadable or not an OpenAPI 3.1 document with paths
 */
export function loadContract(path = CONTRACT_PATH) {
  const file = resolve(path);
  if (!existsSync(file)) throw new ContractError(`the REST contract ${file} does not exist`, file);
  const text = readFileSync(file, 'utf8');
  const cacheFile = join(tmpdir(), 'keyway-contract-cache', `${createHash('sha256').update(text).digest('hex')}.json`);
  try {
    return { path: file, text, doc: /** @type {OpenApiDocument} */ (JSON.parse(readFileSync(cacheFile, 'utf8'))) };
  } catch {
    // not cached yet
  }
  /** @type {typeof import('@redocly/openapi-core')} */
  const core = createRequire(import.meta.url)('@redocly/openapi-core');
  /** @type {OpenApiDocument | undefined} */
  let doc;
  try {
    doc = /** @type {OpenApiDocument | undefined} */ (core.parseYaml(text));
  } catch (err) {
    throw new ContractError(`the REST contract ${file} is not valid YAML: ${/** @type {Error} */ (err).message}`, file);
  }
  if (!doc || typeof doc !== 'object' || !String(doc.openapi ?? '').startsWith('3.1') || !doc.paths) {
    throw new ContractError(`the REST contract ${file} is not an OpenAPI 3.1 document with paths`, file);
  }
  try {
    mkdirSync(dirname(cacheFile), { recursive: true });
    const tmp = `${cacheFile}.${process.pid}.tmp`;
    writeFileSync(tmp, JSON.stringify(doc));
    renameSync(tmp, cacheFile);
  } catch {
    // A read-only temp directory only costs the cache.
  }
  return { path: file, text, doc };
}
