/**
 * The LaTeX appendix compiles, hostile text included, when a TeX installation
 * is present (Debian: texlive-latex-base + texlive-latex-recommended for
 * booktabs); skipped otherwise.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';
import { DEFAULT_PAIRED_OPTIONS } from '../../src/audit/pairedStats.ts';
import { buildReport } from '../../src/report/model.ts';
import { renderReport } from '../../src/report/render.ts';

const PDFLATEX = '/usr/bin/pdflatex';
const HOSTILE = ['\\input{/etc/passwd} \\def\\x{1}', '50% of $5 & #3 _x_ {y} ~ ^ \\\\ [0] <a|b>', 'café – naïve … → ≥ “quotes”'];

test('the LaTeX report compiles under pdflatex, hostile text typeset as text', { skip: existsSync(PDFLATEX) ? false : 'pdflatex not installed' }, async () => {
  const dir = await mkdtemp(join(tmpdir(), 'lmaudit-tex-'));
  const rows = (outputs: string[]) => outputs.map((output, i) => JSON.stringify({ id: String(i), output, gold: 'B' })).join('\n');
  await writeFile(join(dir, 'a_run.jsonl'), rows(HOSTILE));
  await writeFile(join(dir, 'b_run.jsonl'), rows(['B', 'B', 'B']));
  const options = { skipBad: false, fields: {} };
  const a = await loadSource([join(dir, 'a_run.jsonl')], options);
  const b = await loadSource([join(dir, 'b_run.jsonl')], options);
  const diff = await diffStores(a.store, b.store, { iterations: 100 });
  const data = await buildReport(a.store, diff, null, { ...DEFAULT_PAIRED_OPTIONS, iterations: 100, title: 'Title with $ & % # _ {}' });
  const tex = renderReport(data, 'tex');
  assert.ok(tex.includes('\\textbackslash{}input\\{/\\allowbreak{}etc/\\allowbreak{}passwd\\}'), 'the hostile output is in the appendix, escaped');
  await writeFile(join(dir, 'appendix.tex'), tex);
  await writeFile(
    join(dir, 'doc.tex'),
    '\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage[utf8]{inputenc}\n\\usepackage{booktabs,longtable}\n\\begin{document}\n\\input{appendix.tex}\n\\end{document}\n',
  );
  const r = spawnSync(PDFLATEX, ['-interaction=nonstopmode', '-halt-on-error', '-no-shell-escape', 'doc.tex'], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
  const log = await readFile(join(dir, 'doc.log'), 'utf8');
  assert.equal(r.status, 0, log.split('\n').filter((l) => l.startsWith('!')).join('\n'));
  assert.ok(existsSync(join(dir, 'doc.pdf')));
  assert.doesNotMatch(log, /\(\/etc\/passwd/, 'the model output was typeset, not \\input');
});
