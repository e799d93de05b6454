/**
 * The cells of the markdown tables in a text (lm_eval's printed results, lmaudit run's): header and data rows, each
 * cell without its padding but for a name's indentation (the first column's leading spaces show the group depth).
 * The reference runs print through a pytablewriter stub that pads nothing; lmaudit pads as pytablewriter does.
 */
export function tableCells(text: string): string[][] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^[|\-:]+$/.test(l))
    .map((l) => l.slice(1, -1).split('|').map((c, i) => (i === 0 ? c.trimEnd() : c.trim())));
}
