/**
 * The audit table as inline SVG: a heat map with one square per (configuration, reading), coloured
 * by score (white at the table's lowest cell, deep blue at its highest), the score written in it and
 * its interval and n on hover (an SVG <title>); and a small multiple per interaction. Row labels and
 * reading names come from the records, so every string is XML-escaped; nothing is fetched.
 */
import type { AuditTable } from '../audit/table.ts';
import type { Interaction } from '../audit/tableInteractions.ts';
import { escapeXml } from './svg.ts';
import { leadingInteractions, SMALL_MULTIPLES_LIMIT } from './tableText.ts';

const CELL_W = 92;
const CELL_H = 26;
const LABEL_W = 300;
const PAD = 12;
/** Room for the chart's title above the column headers. */
const TITLE_H = 22;
/** A column header's most characters, and an upper bound on one character's advance at font-size 11. */
const HEAD_CHARS = 32;
const CHAR_W = 6.8;

function colour(t: number): string {
  // White (#ffffff) to #1f4e9a.
  const mix = (a: number, b: number) => Math.round(a + (b - a) * t);
  return `rgb(${mix(255, 31)}, ${mix(255, 78)}, ${mix(255, 154)})`;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export function heatMap(t: AuditTable): string {
  // Column headers stand upright (rotated a quarter turn): each is one line of text as wide as the font is
  // high, so headers one CELL_W apart never overlap, however long the reading's name.
  const headH = Math.ceil(Math.min(HEAD_CHARS, Math.max(1, ...t.columns.map((c) => c.key.length))) * CHAR_W) + 12;
  const width = LABEL_W + t.columns.length * CELL_W + PAD * 2;
  const height = TITLE_H + headH + t.rows.length * CELL_H + PAD * 2;
  const lo = t.extremes?.lowest.score ?? 0;
  const span = t.extremes === null || t.extremes.difference === 0 ? 1 : t.extremes.difference;
  const body: string[] = [];
  t.columns.forEach((c, k) => {
    const x = LABEL_W + k * CELL_W + CELL_W / 2 + 4;
    const y = headH - 6;
    body.push(`<text class="reading" x="${x}" y="${y}" transform="rotate(-90 ${x} ${y})" text-anchor="start">${escapeXml(clip(c.key, HEAD_CHARS))}<title>${escapeXml(c.key)}</title></text>`);
  });
  t.rows.forEach((r, i) => {
    const y = headH + i * CELL_H;
    body.push(`<text class="configuration" x="${LABEL_W - 8}" y="${y + CELL_H / 2 + 4}" text-anchor="end">${escapeXml(clip(r.label, 48))}<title>${escapeXml(r.label)}</title></text>`);
    r.cells.forEach((c, k) => {
      const x = LABEL_W + k * CELL_W;
      if (c === null || c.score === null) {
        body.push(`<rect class="cell empty" x="${x + 1}" y="${y + 1}" width="${CELL_W - 2}" height="${CELL_H - 2}" fill="#eeeeee"><title>${escapeXml(`${r.label} · ${t.columns[k]!.key}: ${c === null ? 'no such cell' : 'not computable'}`)}</title></rect>`);
        return;
      }
      const shade = (c.score - lo) / span;
      const interval = c.ci95 === null ? 'no interval' : `95% CI [${c.ci95[0].toFixed(4)}, ${c.ci95[1].toFixed(4)}]`;
      const hover = `${r.label} · ${t.columns[k]!.key}: ${c.score.toFixed(4)} ± ${c.stderr === null ? '?' : c.stderr.toFixed(4)}, ${interval}${c.n === null ? '' : `, n = ${c.n}`}`;
      body.push(
        `<g class="cell"><rect x="${x + 1}" y="${y + 1}" width="${CELL_W - 2}" height="${CELL_H - 2}" fill="${colour(shade)}" stroke="#cccccc"><title>${escapeXml(hover)}</title></rect>` +
          `<text x="${x + CELL_W / 2}" y="${y + CELL_H / 2 + 4}" text-anchor="middle" fill="${shade > 0.55 ? '#ffffff' : '#222222'}" pointer-events="none">${c.score.toFixed(3)}</text></g>`,
      );
    });
  });
  const title = `Audit table: ${t.task}`;
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart heat-map" role="img" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="11">`,
    `<title>${escapeXml(title)}</title>`,
    `<text x="${PAD}" y="14" font-weight="600" fill="#222">${escapeXml(clip(title, 110))}</text>`,
    `<g transform="translate(${PAD}, ${PAD + TITLE_H})">`,
    ...body,
    '</g>',
    '</svg>',
  ].join('\n');
}


const SM_W = 300;
const SM_LABEL_W = 64;
const SM_ROW = 18;
const SM_TOP = 46;

/**
 * One small chart per interaction (a configuration change × a pair of reading rules), all on one
 * x scale so that they compare at a glance: the change's effect under each reading with its paired
 * 95% interval, and their difference (the interaction) with its interval, red where it excludes 0.
 * The first SMALL_MULTIPLES_LIMIT in the order the findings list them (distinguishable first, then
 * by size).
 */
export function interactionMultiples(t: AuditTable): string[] {
  const shown: readonly Interaction[] = leadingInteractions(t, SMALL_MULTIPLES_LIMIT);
  if (shown.length === 0) return [];
  const ends = shown.flatMap((x) => [x.difference, ...x.effects, ...(x.ci95 ?? []), ...x.effect_ci95.flatMap((c) => c ?? [])]);
  const lo = Math.min(0, ...ends);
  const hi = Math.max(0, ...ends);
  const pad = (hi - lo) * 0.05 || 0.05;
  const [x0, x1] = [lo - pad, hi + pad];
  const plotW = SM_W - SM_LABEL_W - 16;
  const xAt = (v: number) => SM_LABEL_W + ((v - x0) / (x1 - x0)) * plotW;
  const f = (v: number) => v.toFixed(4);
  const height = SM_TOP + 3 * SM_ROW + 22;
  return shown.map((x, index) => {
    const title = `${x.readings[0]} vs ${x.readings[1]}`;
    const change = `${x.from} → ${x.to}`;
    const marks: { label: string; name: string; value: number; ci: [number, number] | null; colour: string }[] = [
      { label: 'effect A', name: `effect under ${x.readings[0]}`, value: x.effects[0], ci: x.effect_ci95[0], colour: '#1f4e9a' },
      { label: 'effect B', name: `effect under ${x.readings[1]}`, value: x.effects[1], ci: x.effect_ci95[1], colour: '#1f4e9a' },
      { label: 'A − B', name: 'difference of the effects (the interaction)', value: x.difference, ci: x.ci95, colour: x.distinguishable ? '#b00000' : '#555555' },
    ];
    const body = marks.map((m, k) => {
      const y = SM_TOP + k * SM_ROW + SM_ROW / 2;
      const interval = m.ci === null ? 'no interval (one item)' : `95% CI [${f(m.ci[0])}, ${f(m.ci[1])}]`;
      const hover = `${change}: ${m.name} ${f(m.value)}, ${interval}, n = ${x.n}`;
      const bar = m.ci === null ? '' : `<line x1="${xAt(m.ci[0]).toFixed(1)}" x2="${xAt(m.ci[1]).toFixed(1)}" y1="${y}" y2="${y}" stroke="${m.colour}" stroke-width="2"/>`;
      return (
        `<text x="${SM_LABEL_W - 6}" y="${y + 4}" text-anchor="end" fill="#333">${escapeXml(m.label)}</text>` +
        `<g class="mark">${bar}<circle cx="${xAt(m.value).toFixed(1)}" cy="${y}" r="3.5" fill="${m.colour}"/><title>${escapeXml(hover)}</title></g>`
      );
    });
    const axisY = SM_TOP + 3 * SM_ROW + 4;
    return [
      `<svg xmlns="http://www.w3.org/2000/svg" class="chart interaction" data-index="${index}" role="img" width="${SM_W}" height="${height}" viewBox="0 0 ${SM_W} ${height}" font-family="system-ui, sans-serif" font-size="10">`,
      `<title>${escapeXml(`Interaction in ${t.task}: ${change}, ${title}`)}</title>`,
      `<text x="4" y="12" font-weight="600" fill="#222">${escapeXml(clip(`A: ${x.readings[0]}`, 52))}</text>`,
      `<text x="4" y="24" font-weight="600" fill="#222">${escapeXml(clip(`B: ${x.readings[1]}`, 52))}</text>`,
      `<text x="4" y="36" fill="#555">${escapeXml(clip(change, 56))}<title>${escapeXml(`${change} (${x.change.join(', ')} changes)`)}</title></text>`,
      `<line x1="${xAt(0).toFixed(1)}" x2="${xAt(0).toFixed(1)}" y1="${SM_TOP - 2}" y2="${axisY}" stroke="#999" stroke-dasharray="3 2"/>`,
      ...body,
      `<line x1="${SM_LABEL_W}" x2="${SM_LABEL_W + plotW}" y1="${axisY}" y2="${axisY}" stroke="#bbb"/>`,
      `<text x="${SM_LABEL_W}" y="${axisY + 12}" fill="#777">${f(x0)}</text>`,
      `<text x="${xAt(0).toFixed(1)}" y="${axisY + 12}" text-anchor="middle" fill="#777">0</text>`,
      `<text x="${SM_LABEL_W + plotW}" y="${axisY + 12}" text-anchor="end" fill="#777">${f(x1)}</text>`,
      '</svg>',
    ].join('\n');
  });
}
