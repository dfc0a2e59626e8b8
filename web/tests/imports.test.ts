/** The page's modules import one another without a cycle (type-only imports included): each can be read, and
 * tested, from the ones it builds on. */
import { readFileSync, readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const SRC = new URL('../src/', import.meta.url);
const modules = readdirSync(SRC).filter((file) => file.endsWith('.ts'));
const imports = new Map(
  modules.map((file) => {
    const text = readFileSync(new URL(file, SRC), 'utf8');
    const local = [...text.matchAll(/^import[^'"]*['"]\.\/([\w.]+)['"]/gm)].map((m) => `${m[1].replace(/\.ts$/, '')}.ts`);
    return [file, local.filter((f) => modules.includes(f))];
  }),
);

/** A cycle through `file`, as the list of files around it, or null. */
function cycleFrom(file: string, path: string[] = []): string[] | null {
  if (path.includes(file)) return [...path.slice(path.indexOf(file)), file];
  for (const next of imports.get(file) ?? []) {
    const found = cycleFrom(next, [...path, file]);
    if (found) return found;
  }
  return null;
}

describe("the page's modules", () => {
  it('import one another without a cycle', () => {
    expect(imports.get('view.ts')).toContain('app.ts'); // the check sees type-only imports
    expect(modules.map((file) => cycleFrom(file)).filter(Boolean)).toEqual([]);
  });
});
