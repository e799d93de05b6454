/**
 * Port of lm_eval/tasks/hellaswag/utils.py `process_docs`. Order matters and is
 * Python's: strip, " [title]" -> ". " everywhere, delete `\[.*?\]` (`.` stops at
 * "\n"), then one pass of "  " -> " ", with no final strip. `capitalize` is the
 * template engine's Python port (title case of the first character, lower case of the rest).
 */
import { pyCapitalize } from '../../py/str.ts';
import { pyStrip } from '../../py/str.ts';

export function preprocess(text: string): string {
  let t = pyStrip(text);
  t = t.replaceAll(' [title]', '. ');
  t = t.replace(/\[[^\n]*?\]/g, '');
  return t.replaceAll('  ', ' ');
}

export function processDocs(docs: Record<string, unknown>[]): Record<string, unknown>[] {
  return docs.map((doc) => {
    const ctx = `${doc.ctx_a} ${pyCapitalize(String(doc.ctx_b))}`;
    return {
      ...doc,
      query: preprocess(`${doc.activity_label}: ${ctx}`),
      choices: (doc.endings as string[]).map(preprocess),
      gold: Number.parseInt(String(doc.label), 10),
    };
  });
}
