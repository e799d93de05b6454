import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

// The layer order docs/CONTRIBUTING.md shows, bottom first. A folder may import from its own layer's
// folder and from any layer below; folders sharing a layer (score, import) may not import each other.
export const LAYERS: readonly (readonly string[])[] = [
  ['errors.ts'],
  ['py'],
  ['util'],
  ['formats'],
  // Side by side: data/ reads datasets through util/duckdb.ts, never through the run store.
  ['store', 'data'],
  ['tasks'],
  ['prompt'],
  ['models'],
  ['score', 'import'],
  ['audit'],
  ['report', 'export'],
  ['run', 'serve', 'view'],
  ['tui'],
  ['cli'],
];

// File cycles still standing, each with the reason it is not yet gone. Remove an entry when its cycle goes.
const KNOWN_FILE_CYCLES: readonly string[] = [];

const root = normalize(join(dirname(fileURLToPath(import.meta.url)), '../..'));
const SPECIFIER = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?(?:[^'";]*?\sfrom\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    return e.isDirectory() ? sourceFiles(p) : p.endsWith('.ts') ? [p] : [];
  });
}

/** Every relative import of src/**\/*.ts (static, re-export and dynamic), as repository paths. */
function importGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(join(root, 'src'))) {
    const from = relative(root, file);
    const text = readFileSync(file, 'utf8');
    const to: string[] = [];
    for (const m of text.matchAll(SPECIFIER)) {
      const spec = m[1] ?? m[2]!;
      if (spec.startsWith('.')) to.push(normalize(join(dirname(from), spec)));
    }
    graph.set(from, to);
  }
  return graph;
}

/** The folder under src/ a file belongs to (or the file's own name for a file at the top). */
const unit = (path: string): string => path.split('/')[1]!;
const layerOf = (u: string): number => LAYERS.findIndex((l) => l.includes(u));

function cycles(graph: Map<string, string[]>): string[][] {
  // Tarjan's strongly connected components; any with more than one file is a cycle.
  let index = 0;
  const stack: string[] = [];
  const on = new Set<string>();
  const idx = new Map<string, number>();
  const low = new Map<string, number>();
  const out: string[][] = [];
  const visit = (v: string): void => {
    idx.set(v, index);
    low.set(v, index++);
    stack.push(v);
    on.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!idx.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (on.has(w)) low.set(v, Math.min(low.get(v)!, idx.get(w)!));
    }
    if (low.get(v) === idx.get(v)) {
      const c: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        on.delete(w);
        c.push(w);
      } while (w !== v);
      if (c.length > 1) out.push(c.sort());
    }
  };
  for (const v of graph.keys()) if (!idx.has(v)) visit(v);
  return out;
}

test('every folder of src/ has a layer, and no import runs upward or sideways', () => {
  const graph = importGraph();
  const units = new Set([...graph.keys()].map(unit));
  assert.deepEqual([...units].filter((u) => layerOf(u) < 0), [], 'folders with no layer: add them to LAYERS and docs/CONTRIBUTING.md');
  const upward: string[] = [];
  for (const [from, tos] of graph) {
    for (const to of tos) {
      const [a, b] = [unit(from), unit(to)];
      if (a !== b && layerOf(b) >= layerOf(a)) upward.push(`${from} -> ${to}`);
    }
  }
  assert.deepEqual(upward, []);
});

test('src/py imports nothing from the rest of src/ but the typed errors', () => {
  const graph = importGraph();
  const out = [...graph].flatMap(([from, tos]) => (unit(from) === 'py' ? tos.filter((t) => unit(t) !== 'py' && t !== 'src/errors.ts') : []));
  assert.deepEqual(out, []);
});

test('the import graph of src/ has no file cycle', () => {
  const found = cycles(importGraph()).map((c) => c.join(' '));
  assert.deepEqual(found.filter((c) => !KNOWN_FILE_CYCLES.includes(c)), []);
  assert.deepEqual(KNOWN_FILE_CYCLES.filter((c) => !found.includes(c)), [], 'a known cycle is gone: remove it from the list');
});

test('the checker sees an upward import and a cycle (it cannot pass vacuously)', () => {
  const graph = importGraph();
  assert.ok(graph.size > 150);
  assert.ok(layerOf('py') < layerOf('prompt') && layerOf('score') === layerOf('import'));
  const planted = new Map(graph);
  planted.set('src/py/str.ts', [...(graph.get('src/py/str.ts') ?? []), 'src/py/float.ts']);
  assert.ok(cycles(planted).some((c) => c.includes('src/py/str.ts') && c.includes('src/py/float.ts')));
  const doc = readFileSync(join(root, 'docs/CONTRIBUTING.md'), 'utf8');
  assert.ok(doc.includes(LAYERS.map((l) => l.join(' | ')).join(' < ')), 'docs/CONTRIBUTING.md shows the layer order');
});
