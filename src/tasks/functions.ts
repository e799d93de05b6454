/**
 * The `!function` registry. lm-eval imports arbitrary Python from a task's folder;
 * lmaudit runs only the ports listed here, keyed like lm-eval's module layout
 * (`<task folder under tasks/>/<module>.<function>`). Anything else is refused with the
 * task and the function named, never guessed.
 */
import { relative, dirname, sep } from 'node:path';
import { BadInputError, closestNames } from '../errors.ts';
import * as hellaswag from '../data/ports/hellaswag.ts';
import * as truthfulqa from '../data/ports/truthfulqa.ts';
import * as winogrande from '../data/ports/winogrande.ts';
import type { FunctionRef } from './yaml.ts';
import { fieldLocation } from './include.ts';

type Doc = Record<string, unknown>;

export type PortedFunction =
  | { kind: 'process_docs'; fn: (docs: Doc[]) => Doc[] }
  | { kind: 'doc'; fn: (doc: Doc) => unknown }
  /** Scoring hooks: prompts never call them; the scoring layer looks them up by name. */
  | { kind: 'process_results'; name: string };

export const FUNCTIONS: Record<string, PortedFunction> = {
  'hellaswag/utils.process_docs': { kind: 'process_docs', fn: hellaswag.processDocs },
  'truthfulqa/utils.process_docs_gen': { kind: 'process_docs', fn: truthfulqa.processDocsGen },
  'truthfulqa/utils.process_results_mc2': { kind: 'process_results', name: 'truthfulqa.process_results_mc2' },
  'truthfulqa/utils.process_results_gen': { kind: 'process_results', name: 'truthfulqa.process_results_gen' },
  'winogrande/preprocess_winogrande.doc_to_text': { kind: 'doc', fn: winogrande.docToText },
  'winogrande/preprocess_winogrande.doc_to_target': { kind: 'doc', fn: winogrande.docToTarget },
  'winogrande/preprocess_winogrande.doc_to_choice': { kind: 'doc', fn: winogrande.docToChoice },
};

/**
 * The registry key of a reference: its folder relative to the task root that holds
 * the YAML, plus the dotted name (lm-eval looks for `<yaml dir>/<module>.py` first).
 * `lm_eval.tasks.<folder>.<module>.<fn>` (the importable spelling) maps to the same key.
 */
export function functionKey(ref: FunctionRef, roots: readonly string[]): string {
  const imported = /^lm_eval\.tasks\.(.+)\.([^.]+)\.([^.]+)$/.exec(ref.name);
  if (imported) return `${imported[1]!.replaceAll('.', '/')}/${imported[2]}.${imported[3]}`;
  const folder = dirname(ref.file);
  const root = roots.find((r) => !relative(r, folder).startsWith('..'));
  const rel = root === undefined ? folder.split(sep).at(-1)! : relative(root, folder).split(sep).join('/');
  const lastDot = ref.name.lastIndexOf('.');
  const module = ref.name.slice(0, lastDot).replaceAll('.', '/');
  return `${rel === '' ? '' : `${rel}/`}${module}.${ref.name.slice(lastDot + 1)}`;
}

export function resolveFunction(ref: FunctionRef, roots: readonly string[], task: string, field: string): PortedFunction {
  const key = functionKey(ref, roots);
  const found = FUNCTIONS[key];
  if (found !== undefined) return found;
  const close = closestNames(key, Object.keys(FUNCTIONS));
  const hint = close.length > 0 ? ` Did you mean: ${close.join(', ')}?` : '';
  throw new BadInputError(
    `task '${task}': !function ${ref.name} (${key}) is not one of lmaudit's ported functions; lmaudit never runs Python from task folders.${hint}`,
    fieldLocation(ref.file, field),
  );
}
