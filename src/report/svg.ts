/**
 * Inline SVG charts for the HTML report: the rescoring matrix as a dot plot
 * with 95% interval bars, and paired differences as a forest plot. Built as
 * strings here (no chart library: the report must be one file with no
 * requests); every label is XML-escaped because task and cell names come
 * from the records.
 */

export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

export interface DotRow {
  label: string;
  value: number | null;
  lo: number | null;
  hi: number | null;
}

const ROW = 20;
const LABEL_W = 260;
const PLOT_W = 380;
const PAD = 12;
const TITLE_H = 20;

function num(x: number): string {
  return Number(x.toFixed(2)).toString();
}

function frame(rows: number, title: string, body: string[], kind: string): string {
  const height = rows * ROW + 46 + TITLE_H;
  const width = LABEL_W + PLOT_W + PAD * 2;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart ${kind}" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="11">`,
    `<title>${escapeXml(title)}</title>`,
    `<text x="${PAD}" y="13" font-weight="600" fill="#222">${escapeXml(title.length > 110 ? `${title.slice(0, 109)}…` : title)}</text>`,
    `<g transform="translate(0, ${TITLE_H})">`,
    ...body,
    '</g>',
    '</svg>',
  ].join('\n');
}

function axis(rows: number, min: number, max: number, x: (v: number) => number, ticks: number[]): string[] {
  const y = rows * ROW + 14;
  const out = [`<line x1="${num(x(min))}" y1="${y}" x2="${num(x(max))}" y2="${y}" stroke="#888"/>`];
  for (const t of ticks) {
    out.push(`<line x1="${num(x(t))}" y1="${y}" x2="${num(x(t))}" y2="${y + 4}" stroke="#888"/>`);
    out.push(`<text x="${num(x(t))}" y="${y + 16}" text-anchor="middle" fill="#444">${escapeXml(Number(t.toPrecision(3)).toString())}</text>`);
  }
  return out;
}

function rowMarks(rows: readonly DotRow[], x: (v: number) => number, color: string): string[] {
  const out: string[] = [];
  rows.forEach((r, i) => {
    const y = i * ROW + 14;
    const label = r.label.length > 44 ? `${r.label.slice(0, 43)}…` : r.label;
    out.push(`<text x="${LABEL_W - 6}" y="${y + 4}" text-anchor="end" fill="#222">${escapeXml(label)}</text>`);
    out.push(`<line x1="${LABEL_W}" y1="${y}" x2="${LABEL_W + PLOT_W}" y2="${y}" stroke="#eee"/>`);
    if (r.lo !== null && r.hi !== null) {
      out.push(`<line class="interval" x1="${num(x(r.lo))}" y1="${y}" x2="${num(x(r.hi))}" y2="${y}" stroke="${color}" stroke-width="2"/>`);
    }
    if (r.value !== null) out.push(`<circle class="dot" cx="${num(x(r.value))}" cy="${y}" r="4" fill="${color}"><title>${escapeXml(`${r.label}: ${r.value}`)}</title></circle>`);
  });
  return out;
}

/** Scores in [0, 1] with their 95% intervals. */
export function dotPlot(title: string, rows: readonly DotRow[]): string {
  const x = (v: number) => LABEL_W + Math.max(0, Math.min(1, v)) * PLOT_W;
  return frame(rows.length, title, [...axis(rows.length, 0, 1, x, [0, 0.25, 0.5, 0.75, 1]), ...rowMarks(rows, x, '#1f5fa8')], 'dot-plot');
}

/** Differences (B − A) with their intervals around a line at zero. */
export function forestPlot(title: string, rows: readonly DotRow[]): string {
  const extent = Math.max(0.05, ...rows.flatMap((r) => [r.lo, r.hi, r.value].filter((v): v is number => v !== null && Number.isFinite(v)).map(Math.abs))) * 1.1;
  const x = (v: number) => LABEL_W + ((Math.max(-extent, Math.min(extent, v)) + extent) / (2 * extent)) * PLOT_W;
  const zero = `<line class="zero" x1="${num(x(0))}" y1="2" x2="${num(x(0))}" y2="${rows.length * ROW + 8}" stroke="#b00" stroke-dasharray="3 3"/>`;
  const ticks = [-extent, -extent / 2, 0, extent / 2, extent].map((t) => Number(t.toPrecision(2)));
  return frame(rows.length, title, [zero, ...axis(rows.length, -extent, extent, x, ticks), ...rowMarks(rows, x, '#2a7d2a')], 'forest-plot');
}
