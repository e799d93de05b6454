/**
 * Paths to the data the tests read, all of it inside the repository (a user's clone has nothing beside it).
 *
 * - `fixturePath('lmeval/…')`: a file or folder under fixtures/, as stored.
 * - `externalFixture('lm-evaluation-harness/…' | 'pythia/…' | 'inspect/…' | 'agents/…')`: the real outputs other people
 *   produced, in their original layout and bytes (fixtures/external/SOURCES.md). They are stored compactly
 *   (fixtures/external/copy_from_data.sh says how), so the first call rebuilds the four trees in a temporary
 *   folder, removed when the process exits; the importer reads real files and folders, as a user's would be.
 *   Under scripts/run-tests.mjs every test file of the run shares one such rebuild (see rebuiltOnce).
 * - `goldenPromptText('arc_easy.0shot.jsonl')`: one file of fixtures/golden-prompts, decompressed in memory.
 */
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';

/** The repository's fixtures/ folder, with a trailing slash. */
export const fixturesRoot = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/** A path under fixtures/. */
export function fixturePath(relative: string): string {
  return join(fixturesRoot, relative);
}

/**
 * The trees fixtures/external/ rebuilds, each with the folder that already holds some of its files byte for byte
 * (the demo's copies, same layout): those are not stored twice.
 */
const TREES: { name: string; alsoFrom?: string }[] = [
  { name: 'lm-evaluation-harness', alsoFrom: 'lmeval' },
  { name: 'pythia' },
  { name: 'inspect', alsoFrom: 'inspect/logs' },
  { name: 'agents' },
];

/** Every file under `dir`, as paths relative to it with '/' separators, sorted. */
export function filesUnder(dir: string, prefix = ''): string[] {
  return readdirSync(join(dir, prefix), { withFileTypes: true })
    .flatMap((e) => (e.isDirectory() ? filesUnder(dir, `${prefix}${e.name}/`) : e.isFile() ? [`${prefix}${e.name}`] : []))
    .sort();
}

/** How a stored name maps back to the original: `.gz` is removed (the bytes are gunzipped), `%3A` is ':' and `%7C` '|'. */
export function originalName(stored: string): { name: string; gzipped: boolean } {
  const gzipped = stored.endsWith('.gz');
  return { name: (gzipped ? stored.slice(0, -3) : stored).replaceAll('%3A', ':').replaceAll('%7C', '|'), gzipped };
}

/** Copies a stored tree into `into` under its original names and bytes (see originalName). */
function restoreTree(stored: string, into: string): void {
  for (const rel of filesUnder(stored)) {
    const { name, gzipped } = originalName(rel);
    const target = join(into, name);
    mkdirSync(dirname(target), { recursive: true });
    if (gzipped) writeFileSync(target, gunzipSync(readFileSync(join(stored, rel))));
    else copyFileSync(join(stored, rel), target);
  }
}

/**
 * A folder that `build` fills, made once per test process, or once per test run where scripts/run-tests.mjs names a
 * folder of its run (LMAUDIT_TEST_SHARED, inside the run's temporary folder, removed when the run ends): the rebuilt
 * trees cost each of the four dozen files that read them 0.15 CPU s, and they are only read (no test writes into
 * them: each test that alters a fixture copies it first). Two test files run at once: each builds under a name of its
 * own and renames it into place, and the one that finds the place taken uses the other's.
 */
function rebuiltOnce(name: string, build: (into: string) => void): string {
  const shared = process.env.LMAUDIT_TEST_SHARED;
  if (shared === undefined || shared === '') {
    const root = mkdtempSync(join(tmpdir(), `lmaudit-${name}-`));
    process.on('exit', () => rmSync(root, { recursive: true, force: true }));
    build(root);
    return root;
  }
  const root = join(shared, name);
  if (existsSync(root)) return root;
  mkdirSync(shared, { recursive: true });
  const building = mkdtempSync(join(shared, `.${name}-`));
  try {
    build(building);
    renameSync(building, root);
  } catch (error) {
    // Another file's rename came first (the target then exists and is not empty): its copy is the same.
    if (!existsSync(root)) throw error;
  } finally {
    rmSync(building, { recursive: true, force: true });
  }
  return root;
}

let rebuilt: string | undefined;

/** Rebuilds the original trees once (see rebuiltOnce); returns their parent folder (with a trailing slash). */
function externalRoot(): string {
  if (rebuilt !== undefined) return rebuilt;
  const root = rebuiltOnce('external', (root) => {
    for (const tree of TREES) {
      const into = join(root, tree.name);
      if (tree.alsoFrom !== undefined) {
        const from = fixturePath(tree.alsoFrom);
        for (const rel of filesUnder(from)) {
          mkdirSync(dirname(join(into, rel)), { recursive: true });
          copyFileSync(join(from, rel), join(into, rel));
        }
      }
      restoreTree(fixturePath(join('external', tree.name)), into);
    }
  });
  rebuilt = `${root}/`;
  return rebuilt;
}

/** A path in the rebuilt copy of fixtures/external (`lm-evaluation-harness/…`, `pythia/…`, `inspect/…`, `agents/…`); '' gives the parent folder. */
export function externalFixture(relative = ''): string {
  return relative === '' ? externalRoot() : join(externalRoot(), relative);
}

const decodedTrees = new Map<string, string>();

/**
 * A fixtures/ tree stored with Windows-safe names (`%3A` for ':', `%7C` for '|') and files of 100000 bytes or
 * more gzipped (`.gz`), rebuilt once (see rebuiltOnce) in a temporary folder under its original names and bytes
 * (fixtures/helm, fixtures/lighteval, fixtures/opencompass: their SOURCES.md say so). `relative` is inside it.
 */
export function decodedFixture(tree: string, relative = ''): string {
  let root = decodedTrees.get(tree);
  if (root === undefined) {
    root = rebuiltOnce(tree, (into) => restoreTree(fixturePath(tree), into));
    decodedTrees.set(tree, root);
  }
  return relative === '' ? root : join(root, relative);
}

/** The text of one golden-prompts file (`MANIFEST.json`, or a `.jsonl` stored as `.jsonl.gz`). */
export function goldenPromptText(file: string): string {
  if (file.endsWith('.jsonl')) return gunzipSync(readFileSync(fixturePath(`golden-prompts/${file}.gz`))).toString('utf8');
  return readFileSync(fixturePath(`golden-prompts/${file}`), 'utf8');
}
