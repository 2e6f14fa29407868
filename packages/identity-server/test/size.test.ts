import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

// Size rules of the identity server's source (issue 22): a file a newcomer can read in one sitting, a function that
// fits on a screen. A longer file or function is split by what it does, not by line count.
const MAX_FILE_LINES = 400;
const MAX_FUNCTION_LINES = 80;

const SRC = path.join(import.meta.dirname, '../src');
const sources = (dir: string): string[] =>
  readdirSync(dir).flatMap((name) => {
    const p = path.join(dir, name);
    if (statSync(p).isDirectory()) return sources(p);
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) ? [p] : [];
  });

/** Every function (declaration, expression, arrow, method) of a file longer than `max` lines: `file:line name (n lines)`. */
function longFunctions(file: string, text: string, max: number): string[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
      const end = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = end - start + 1;
      if (lines > max) {
        const name = node.name && ts.isIdentifier(node.name) ? node.name.text : ts.isVariableDeclaration(node.parent) && ts.isIdentifier(node.parent.name) ? node.parent.name.text : '(anonymous)';
        found.push(`${path.relative(SRC, file)}:${start + 1} ${name} (${lines} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('identity-server source size', () => {
  const files = sources(SRC);

  it(`has no file above ${MAX_FILE_LINES} lines`, () => {
    const long = files.map((f) => [path.relative(SRC, f), readFileSync(f, 'utf8').split('\n').length] as const).filter(([, n]) => n > MAX_FILE_LINES);
    expect(long.map(([f, n]) => `${f} (${n} lines)`)).toEqual([]);
  });

  it(`has no function above ${MAX_FUNCTION_LINES} lines`, () => {
    expect(files.flatMap((f) => longFunctions(f, readFileSync(f, 'utf8'), MAX_FUNCTION_LINES))).toEqual([]);
  });

  it('finds a long function when there is one (the check itself works)', () => {
    const body = Array.from({ length: MAX_FUNCTION_LINES }, (_, i) => `  const v${i} = ${i};`).join('\n');
    const fits = Array.from({ length: MAX_FUNCTION_LINES - 2 }, (_, i) => `  const v${i} = ${i};`).join('\n');
    expect(longFunctions(path.join(SRC, 'probe.ts'), `export function tooLong() {\n${body}\n}\n`, MAX_FUNCTION_LINES)).toEqual([`probe.ts:1 tooLong (${MAX_FUNCTION_LINES + 2} lines)`]);
    expect(longFunctions(path.join(SRC, 'probe.ts'), `export const fits = () => {\n${fits}\n};\n`, MAX_FUNCTION_LINES)).toEqual([]);
  });
});
