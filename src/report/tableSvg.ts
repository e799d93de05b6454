/**
 * The audit table as an inline SVG heat map: one square per (configuration, reading), coloured by
 * score (white at the table's lowest cell, deep blue at its highest), the score written in it and
 * its interval and n on hover (an SVG <title>). Row labels and reading names come from the records,
 * so every string is XML-escaped; nothing is fetched.
 */
import type { AuditTable } from '../audit/table.ts';
import { escapeXml } from './svg.ts';

const CELL_W = 92;
const CELL_H = 26;
const LABEL_W = 300;
const HEAD_H = 48;
const PAD = 12;

function colour(t: number): string {
  // White (#ffffff) to #1f4e9a.
  const mix = (a: number, b: number) => Math.round(a + (b - a) * t);
  return `rgb(${mix(255, 31)}, ${mix(255, 78)}, ${mix(255, 154)})`;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

export function heatMap(t: AuditTable): string {
  const width = LABEL_W + t.columns.length * CELL_W + PAD * 2;
  const height = HEAD_H + t.rows.length * CELL_H + PAD * 2;
  const lo = t.extremes?.lowest.score ?? 0;
  const span = t.extremes === null || t.extremes.difference === 0 ? 1 : t.extremes.difference;
  const body: string[] = [];
  t.columns.forEach((c, k) => {
    const x = LABEL_W + k * CELL_W + CELL_W / 2;
    body.push(`<text class="reading" x="${x}" y="${HEAD_H - 8}" text-anchor="middle">${escapeXml(clip(c.key, 16))}<title>${escapeXml(c.key)}</title></text>`);
  });
  t.rows.forEach((r, i) => {
    const y = HEAD_H + i * CELL_H;
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
    `<g transform="translate(${PAD}, ${PAD})">`,
    ...body,
    '</g>',
    '</svg>',
  ].join('\n');
}
