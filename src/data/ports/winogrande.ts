/** Port of lm_eval/tasks/winogrande/preprocess_winogrande.py (partial evaluation: contexts are the options). */
import { BadInputError } from '../../errors.ts';
import { pyStrip } from '../../py/str.ts';

type Doc = Record<string, unknown>;

function blank(doc: Doc): number {
  const sentence = String(doc.sentence);
  const i = sentence.indexOf('_');
  if (i < 0) throw new BadInputError("winogrande sentence has no '_' blank", { field: 'sentence' });
  return i;
}

export function docToText(doc: Doc): number {
  const index = ({ '1': 0, '2': 1 } as Record<string, number>)[String(doc.answer)];
  if (index === undefined) throw new BadInputError(`winogrande answer must be "1" or "2", got ${JSON.stringify(doc.answer)}`, { field: 'answer' });
  return index;
}

export function docToTarget(doc: Doc): string {
  return pyStrip(String(doc.sentence).slice(blank(doc) + 1));
}

export function docToChoice(doc: Doc): string[] {
  const i = blank(doc);
  const sentence = String(doc.sentence);
  return [String(doc.option1), String(doc.option2)].map((option) => sentence.slice(0, i) + option);
}
