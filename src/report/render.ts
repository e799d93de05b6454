/**
 * Rendering a report in one of the four formats. The templates are ours and
 * trusted; everything that came from records (model output, task and model
 * names) is data and is escaped: nunjucks autoescape for HTML, and
 * Markdown/LaTeX filters that escape and mark their output safe (so
 * autoescape, still on, does not escape twice).
 */
import nunjucks from 'nunjucks';
import { jsonReplacer } from './json.ts';
import { heatMap, interactionMultiples } from './tableSvg.ts';
import type { ReportData } from './model.ts';
import { dotPlot, forestPlot } from './svg.ts';
import { HTML_TEMPLATE } from './templates/html.ts';
import { LATEX_TEMPLATE } from './templates/latex.ts';
import { MARKDOWN_TEMPLATE } from './templates/markdown.ts';
import { buildView } from './view.ts';
import { withDisplayPaths } from './displayPaths.ts';

export const REPORT_FORMATS = ['md', 'tex', 'html', 'json'] as const;
export type ReportFormat = (typeof REPORT_FORMATS)[number];

/** Markdown: HTML-significant characters as entities (GitHub renders inline HTML), table and emphasis syntax escaped. */
export function escapeMarkdown(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|~])/g, '\\$1')
    .replace(/^([#+-])(?=\s|$)/, '\\$1')
    .replace(/^(\d+)\.(?=\s)/, '$1\\.')
    .replace(/\r?\n/g, ' ');
}

/** LaTeX text mode: the ten special characters, plus < > | which the OT1 encoding prints wrongly. */
export function escapeLatex(text: string): string {
  const map: Record<string, string> = {
    '\\': '\\textbackslash{}',
    '{': '\\{',
    '}': '\\}',
    $: '\\$',
    '&': '\\&',
    '#': '\\#',
    '%': '\\%',
    _: '\\_\\allowbreak{}',
    '/': '/\\allowbreak{}',
    '~': '\\textasciitilde{}',
    '^': '\\textasciicircum{}',
    '<': '\\textless{}',
    '>': '\\textgreater{}',
    '|': '\\textbar{}',
    // Brackets in braces: a row that starts with '[' would be read as the optional argument of the previous '\\\\'.
    '[': '{[}',
    ']': '{]}',
    // lmaudit's own typography, so the fragment also compiles under pdflatex.
    '…': '\\ldots{}',
    '–': '--',
    '−': '\\ensuremath{-}',
    '·': '\\textperiodcentered{}',
    'Δ': '\\ensuremath{\\Delta}',
    '→': '\\ensuremath{\\rightarrow}',
    '≥': '\\ensuremath{\\geq}',
    '≤': '\\ensuremath{\\leq}',
    '’': "'",
    // Sentences lmaudit writes about records (HELM's inferred "Σsum / Σcount", an import's "prompt_hash … ≠ sha256(…)",
    // a flip's missing reading "∅", a metric's "log pₙ", the viewer's "/ √n"): pdflatex's default encodings have none.
    'Σ': '\\ensuremath{\\Sigma}',
    '≠': '\\ensuremath{\\neq}',
    '∅': '\\ensuremath{\\emptyset}',
    '√': '\\ensuremath{\\surd}',
    'ₙ': '\\ensuremath{_n}',
  };
  // A break is allowed after '_', '/' and a comma not followed by a space: task names, paths and
  // compact JSON have no spaces for TeX to break at and would run into the margin.
  return text
    .replace(/[\\{}$&#%_~^<>|[\]…–−·Δ→≥≤’/Σ≠∅√ₙ]/g, (c) => map[c]!)
    .replace(/,(?=\S)/g, ',\\allowbreak{}')
    .replace(/\r?\n/g, ' ');
}

/**
 * A Markdown fenced diff block: the fence is longer than any backtick run inside, so nothing can close it early. Its
 * text is kept as it is: CommonMark shows a code block's characters literally (an entity such as `&lt;` is printed as
 * those four characters, and no HTML inside it is rendered), so escaping here put `&lt;p>` where a prompt held `<p>`.
 */
export function markdownFence(text: string): string {
  const longest = Math.max(2, ...(text.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}diff\n${text}\n${fence}`;
}

function environment(): nunjucks.Environment {
  const env = new nunjucks.Environment(null, { autoescape: true, throwOnUndefined: true, trimBlocks: true, lstripBlocks: true });
  env.addFilter('md', (v: unknown) => new nunjucks.runtime.SafeString(escapeMarkdown(String(v ?? ''))));
  env.addFilter('tex', (v: unknown) => new nunjucks.runtime.SafeString(escapeLatex(String(v ?? ''))));
  env.addFilter('mdfence', (v: unknown) => new nunjucks.runtime.SafeString(markdownFence(String(v ?? ''))));
  // A status column (a verdict, yes/no, "9 of 13") wraps between words only: a verdict cut inside a word misreads.
  const status = new Set(['falsifier', 'verdict', 'status', 'recorded', 'distinguishable', 'disclosure', 'matches']);
  env.addGlobal('isStatusColumn', (header: string | undefined) => header !== undefined && status.has(header));
  // Free-text columns wrap; the others stay one line.
  const wide = new Set(['values', 'finding', 'note', 'output', 'prompt (last 300 characters)', 'A', 'B', 'reported (± stderr)', 'readings (lowest – highest cell)', 'cannot be right', 'reproduced from the samples', 'why', 'how', 'metrics reproduced', 'differences']);
  env.addGlobal('colspec', (header: string[]) =>
    new nunjucks.runtime.SafeString(header.map((h) => (wide.has(h) ? `p{${(0.8 / header.filter((x) => wide.has(x)).length).toFixed(2)}\\linewidth}` : 'l')).join('')));
  return env;
}

/** The JSON report keeps paths as recorded (machine data); the documents show them relative to `cwd` (src/report/displayPaths.ts). */
export function renderReport(rawData: ReportData, format: ReportFormat, cwd: string = process.cwd()): string {
  if (format === 'json') return `${JSON.stringify(rawData, jsonReplacer, 2)}\n`;
  const data = withDisplayPaths(rawData, cwd);
  const view = buildView(data);
  const env = environment();
  if (format === 'md') return env.renderString(MARKDOWN_TEMPLATE, { v: view });
  if (format === 'tex') return env.renderString(LATEX_TEMPLATE, { v: view });
  const charts = {
    matrix: view.matrix.filter((m) => m.dots.some((d) => d.value !== null)).map((m) => new nunjucks.runtime.SafeString(dotPlot(m.chartTitle, m.dots))),
    heat: data.tables.map((t) => new nunjucks.runtime.SafeString(heatMap(t))),
    interactions: data.tables.map((t) => interactionMultiples(t).map((svg) => new nunjucks.runtime.SafeString(svg))),
    // One per comparison, aligned with view.comparisons (null where nothing was paired).
    forests: view.comparisons.map((c) => (c.forest.length > 0 ? new nunjucks.runtime.SafeString(forestPlot(c.forestTitle, c.forest)) : null)),
  };
  return env.renderString(HTML_TEMPLATE, { v: view, charts });
}
