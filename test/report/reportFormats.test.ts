/**
 * `lmaudit report` in all four formats, for a real run (truthfulqa_gen --limit 20)
 * and a real pair (asdiv at batch 8 vs 1), plus the escaping each format owes
 * to untrusted strings.
 */
import { DISCLOSURE_ITEMS } from '../../src/store/schema.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';
import { DEFAULT_PAIRED_OPTIONS } from '../../src/audit/pairedStats.ts';
import { buildReport } from '../../src/report/model.ts';
import { escapeLatex, escapeMarkdown, renderReport } from '../../src/report/render.ts';
import { externalFixture } from '../helpers/fixtures.ts';

const LMEVAL = externalFixture('lm-evaluation-harness/');
const OPTIONS = { skipBad: false, fields: {} };
const PAIRED = { ...DEFAULT_PAIRED_OPTIONS, iterations: 300 };

test('single real run: all four formats carry the disclosure count, matrix and falsifier', async () => {
  const source = await loadSource([`${LMEVAL}pr3032-truthfulqa-gen/samples_truthfulqa_gen_2025-05-31T14-30-51.983293.jsonl`, `${LMEVAL}pr3032-truthfulqa-gen/truthfulqa_gen_neo125_2025-05-31T14-30-51.983293.json`], OPTIONS);
  const data = await buildReport(source.store, null, null, PAIRED);
  assert.equal(data.disclosure.length, 1);
  const d = data.disclosure[0]!;
  assert.equal(d.task, 'truthfulqa_gen');
  assert.equal(d.recordedItems, d.rows.filter((r) => r.recorded).length);
  // Each of the 13 items has at least one field the results file records (harness version, task config,
  // n-shot, limit, model_name, pretty_env_info, ...), so all 13 count as recorded.
  assert.equal(DISCLOSURE_ITEMS.length, 13);
  assert.deepEqual(d.rows.map((r) => r.item), ['harness', 'task', 'scoring', 'chat_template', 'system', 'fewshot', 'generation', 'repeats', 'samples', 'failures', 'model', 'environment', 'records']);
  assert.equal(d.recordedItems, 13);
  // The matrix is the rescoring module's; the report only has to carry it whole (its denominator included).
  assert.ok(data.matrix.length > 0 && data.matrix[0]!.cells.length > 0);
  assert.equal(data.matrix[0]!.denominator.items_read, 20);
  assert.equal(data.samples[0]!.items.length, 3);
  assert.equal(data.comparison, null);

  const json = JSON.parse(renderReport(data, 'json'));
  assert.equal(json.report_version, 1);
  assert.equal(json.disclosure[0].recordedItems, d.recordedItems);

  const md = renderReport(data, 'md');
  assert.match(md, new RegExp(`task truthfulqa\\\\_gen: ${d.recordedItems} of ${DISCLOSURE_ITEMS.length} disclosure items recorded`));
  assert.match(md, /## Rescoring matrix/);
  assert.match(md, /\| extractor \| normaliser \| aggregation \| score \| stderr \| 95% CI \| n \|/);
  assert.match(md, /comparable only to a run with the same/);

  const tex = renderReport(data, 'tex');
  assert.match(tex, /\\begin\{longtable\}/);
  assert.match(tex, /\\toprule/);
  assert.match(tex, /\\midrule/);
  assert.match(tex, /\\bottomrule/);
  assert.match(tex, /truthfulqa\\_\\allowbreak\{\}gen/);
  assert.doesNotMatch(tex, /&amp;|&lt;|&gt;/, 'no HTML escaping leaks into LaTeX');
  // Every row of every table has as many cells as its column spec.
  for (const m of tex.matchAll(/\\begin\{longtable\}\{([^\n]*)\}\n\\toprule\n([\s\S]*?)\\bottomrule/g)) {
    const columns = m[1]!.replace(/p\{[^}]*\}/g, 'p').length;
    for (const row of m[2]!.split('\n').filter((l) => l.endsWith('\\\\'))) {
      assert.equal(row.replace(/\\&/g, '').split('&').length, columns, row.slice(0, 80));
    }
  }

  const html = renderReport(data, 'html');
  assert.match(html, /^<!DOCTYPE html>/);
  // Every cell of this run has n = 0 (truthfulqa_gen's targets are blank): no chart of empty cells (issue 15).
  assert.doesNotMatch(html, /<svg [^>]*class="chart dot-plot"/);
  assert.doesNotMatch(html, /<script|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
});

test('real pair: the comparison, paired statistics and falsifier appear in every format', async () => {
  const a = await loadSource([`${LMEVAL}pr2236-asdiv/asdiv/meta-llama__Meta-Llama-3-8B-Instruct`], OPTIONS);
  const b = await loadSource([`${LMEVAL}pr2236-asdiv/asdiv_cot/meta-llama__Meta-Llama-3-8B-Instruct`], OPTIONS);
  const diff = await diffStores(a.store, b.store, { iterations: 300 });
  const data = await buildReport(a.store, diff, null, PAIRED);
  assert.ok(data.comparison !== null);
  const cells = data.comparison.comparisons[0]!.tasks[0]!.paired.filter((p) => p.score.startsWith('rescored:'));
  assert.ok(cells.length > 0, 'paired statistics per rescoring cell');
  // Both runs hold asdiv's same 50 documents, and the matrix has one rescoring cell (greedy, no normaliser):
  // 46 of 50 right in each (lm-eval's acc 0.92), none discordant.
  assert.deepEqual(cells.map((p) => [p.score, p.result.n, p.result.meanA, p.result.meanB, p.result.mcnemar?.aOnly, p.result.mcnemar?.bOnly]), [['rescored:greedy/none', 50, 0.92, 0.92, 0, 0]]);
  const md = renderReport(data, 'md');
  assert.match(md, /## Comparison/);
  assert.match(md, /\|\s+batch\\_size \| differs \| "8" \| "1" \|/);
  assert.match(md, /\| acc,none \| 50 \| 0\.92 \| 0\.92 \| 0 \| \\\[0, 0\\\] \| 0\/0, p = 1 \| no \|/);
  assert.match(md, /responses that differ: 16/);
  // date, end_time, start_time and total_evaluation_time_seconds differ and read 'same' once the timestamp is
  // ignored; config.batch_size differs. The caption said only 'rows not plainly the same' above four 'same' rows.
  assert.match(md, /\*\*Source configuration, key by key \(58 keys of the results files; 4 equal only once noise is ignored, 1 differs or is on one side only\)\*\*/);
  assert.match(md, /\*\*Falsifier \(holds\)\*\*/);
  const tex = renderReport(data, 'tex');
  assert.match(tex, /\\subsection\*\{Comparison\}/);
  assert.match(tex, /batch\\_\\allowbreak\{\}size & differs & "8" & "1"/);
  const html = renderReport(data, 'html');
  assert.match(html, /class="chart forest-plot"/);
  assert.match(html, /<svg [^>]*class="chart dot-plot"/, 'asdiv has scored cells: their chart is drawn');
  assert.match(html, /Paired statistics on the shared items/);
  const json = JSON.parse(renderReport(data, 'json'));
  assert.equal(json.comparison.comparisons[0].tasks[0].paired[0].result.n, 50);
});

test('escaping: Markdown and LaTeX neutralise what a model may write', () => {
  assert.equal(escapeMarkdown('a|b <script>`x`*y*_z_'), 'a\\|b &lt;script&gt;\\`x\\`\\*y\\*\\_z\\_');
  assert.equal(escapeMarkdown('# heading\nnext'), '\\# heading next');
  assert.equal(escapeLatex('50% of $x_1 & {y}#~^\\'), '50\\% of \\$x\\_\\allowbreak{}1 \\& \\{y\\}\\#\\textasciitilde{}\\textasciicircum{}\\textbackslash{}');
  assert.equal(escapeLatex('[0, 1] <a|b>'), '{[}0, 1{]} \\textless{}a\\textbar{}b\\textgreater{}');
  assert.equal(escapeLatex('\\input{/etc/passwd}'), '\\textbackslash{}input\\{/\\allowbreak{}etc/\\allowbreak{}passwd\\}');
  // Breaks are allowed where task names, paths and compact JSON have no spaces.
  assert.equal(escapeLatex('["a","b"], c'), '{[}"a",\\allowbreak{}"b"{]}, c');
  // Symbols of lmaudit's own sentences that pdflatex's default encodings cannot set.
  assert.equal(escapeLatex('Σsum / Σcount; a ≠ b; ∅; √n; pₙ'), '\\ensuremath{\\Sigma}sum /\\allowbreak{} \\ensuremath{\\Sigma}count; a \\ensuremath{\\neq} b; \\ensuremath{\\emptyset}; \\ensuremath{\\surd}n; p\\ensuremath{_n}');
});

test('escaping: Markdown list and heading markers only at the start', () => {
  assert.equal(escapeMarkdown('1. item'), '1\\. item');
  assert.equal(escapeMarkdown('0.92'), '0.92');
  assert.equal(escapeMarkdown('- x'), '\\- x');
  assert.equal(escapeMarkdown('-0.5'), '-0.5');
});

test('falsifiers: tasks with the same settings share one entry; past twenty entries the rest are counted, never dropped silently', async () => {
  // Pythia's 0-shot results file: 87 lm-eval v0.3 tasks recorded with the same settings.
  const pythia = externalFixture('pythia/zero-shot/160m_step143000.json');
  const data = await buildReport((await loadSource([pythia], OPTIONS)).store, null, null, PAIRED);
  assert.equal(data.falsifiers.length, 87);
  const md = renderReport(data, 'md');
  assert.match(md, /^# Audit appendix: crows\\_pairs\\_english, crows\\_pairs\\_french\\_race\\_color, crows\\_pairs\\_english\\_age and 84 more\n/);
  const section = md.slice(md.indexOf('## Falsifier'));
  const entries = section.split('\n').filter((l) => l.startsWith('- **'));
  assert.equal(entries.length, 1);
  assert.match(entries[0]!, /^- \*\*lmeval-[0-9a-f]+ · 87 tasks: crows\\_pairs\\_english, .* and 81 more\*\* \(unknown\): Recorded /);
  // The clause every falsifier shares is said once, above the list.
  assert.equal(section.match(/comparable only to a run with the same/g)!.length, 1);
  assert.doesNotMatch(section, /more task\(s\) are left out of this list/);
  assert.equal(JSON.parse(renderReport(data, 'json')).falsifiers.length, 87);

  // 25 different sentences: 20 entries shown, the other 5 tasks counted in a note in every format.
  const distinct = { ...data, falsifiers: data.falsifiers.slice(0, 25).map((f, k) => ({ ...f, falsifier: { ...f.falsifier, clauses: f.falsifier.clauses.map((c, i) => (i === 0 ? { ...c, finding: `${c.finding} (${k})` } : c)) } })) };
  const note = '5 more task(s) are left out of this list; the JSON report has every task';
  for (const format of ['md', 'tex', 'html'] as const) {
    const text = renderReport(distinct, format);
    assert.ok(text.includes(note), format);
  }
  const distinctMd = renderReport(distinct, 'md');
  // 20 task lines, and the line of what all 25 share.
  const lines = distinctMd.slice(distinctMd.indexOf('## Falsifier')).split('\n').filter((l) => l.startsWith('- **'));
  assert.equal(lines.length, 21);
  assert.match(lines[0]!, /^- \*\*lmeval-[0-9a-f]+ · all 25 tasks\*\*: Every task recorded /);
});
