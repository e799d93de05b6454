/**
 * How lm-eval reads one multiple-choice document, from what a store records of it: the gold
 * index and the choice texts its acc_norm/acc_bytes measure (doc_to_choice, without the target
 * delimiter), for ordinary tasks and for multiple-input ones (winogrande's partial evaluation:
 * the choices are the contexts, the continuation is shared, the gold is doc_to_text, an index).
 * The as-recorded rescorer and the matrix's log-prob cells both read documents through here,
 * so a cell named after an lm-eval metric computes what lm-eval computed.
 */
import { docToChoice as winograndeChoices, docToText as winograndeGold } from '../../data/ports/winogrande.ts';
import { isPlainObject } from '../../util/json.ts';
import { mcGold } from './metrics.ts';

/** What the store holds of one multiple-choice document. */
export interface RecordedChoiceDoc {
  /** str(doc_to_target(doc)) as recorded. */
  target: string | null;
  /** choices_json as recorded (doc_to_choice for lm-eval imports and `lmaudit run`). */
  choices: readonly string[] | null;
  /** Each request's continuation, request order (null where not recorded). */
  continuations: readonly (string | null)[];
  doc: Record<string, unknown> | null;
}

/** The task-level facts the reading needs (from the run's provenance). */
export interface ChoiceTaskFacts {
  /** The task is winogrande by its dataset (partial evaluation). */
  winogrande: boolean;
  /** The target delimiter lm-eval put before each choice, when recorded. */
  targetDelimiter: string | null;
}

export type ChoiceRead =
  /** choicesInferred: the choice strings were taken from the continuations, with `removed` cut from each (null: none was). */
  | { kind: 'read'; gold: number | number[]; choices: readonly string[] | null; choicesInferred: false | { removed: string | null } }
  /** `why` is the same for every document the same cause leaves unreadable (so that counts group); `example` is this one's. */
  | { kind: 'unreadable'; why: string; example?: string };

const MULTIPLE_INPUT_WHY =
  "multiple-input task (the choices are contexts sharing one continuation): lm-eval's gold is doc_to_text(doc), task code lmaudit has no port for, and the recorded target is the shared continuation";

/** Winogrande's document shape: a sentence with a `_` blank, two options and answer "1"/"2". */
export function looksLikeWinogrande(doc: Record<string, unknown> | null): boolean {
  return doc !== null && typeof doc.sentence === 'string' && doc.sentence.includes('_') && 'option1' in doc && 'option2' in doc && 'answer' in doc;
}

/** Every request shares one continuation and there are several: lm-eval's multiple-input (partial evaluation) layout. */
export function isMultipleInput(continuations: readonly (string | null)[]): boolean {
  return continuations.length > 1 && continuations.every((c) => c !== null && c === continuations[0]);
}

export function readChoiceDoc(facts: ChoiceTaskFacts, rec: RecordedChoiceDoc, count: number): ChoiceRead {
  const multipleInput = isMultipleInput(rec.continuations);
  // A winogrande task by its dataset is read the same way where its records keep only some continuations.
  if (multipleInput || (facts.winogrande && looksLikeWinogrande(rec.doc))) {
    if (rec.doc === null || !looksLikeWinogrande(rec.doc)) return { kind: 'unreadable', why: MULTIPLE_INPUT_WHY };
    try {
      return { kind: 'read', gold: winograndeGold(rec.doc), choices: winograndeChoices(rec.doc), choicesInferred: false as const };
    } catch (error) {
      return { kind: 'unreadable', why: `winogrande gold: ${(error as Error).message}` };
    }
  }
  let choices = rec.choices;
  let choicesInferred: false | { removed: string | null } = false;
  const conts = rec.continuations;
  const d = facts.targetDelimiter;
  if (choices !== null && d !== null && d !== '' && choices.length === conts.length && choices.every((c, i) => c === conts[i] && c.startsWith(d))) {
    // Each choice equals its continuation although lm-eval sends delimiter + choice: the store (lmaudit run
    // before it recorded doc_to_choice) kept the continuations; acc_norm measures the choice without the delimiter.
    choices = choices.map((c) => c.slice(d.length));
    choicesInferred = { removed: d };
  } else if (choices === null && conts.length > 0 && conts.every((c) => c !== null)) {
    // lm-eval measures the choice without its target delimiter (default " ").
    const delimiter = d ?? ' ';
    const spaced = conts.every((c) => c!.startsWith(delimiter));
    choices = spaced ? conts.map((c) => c!.slice(delimiter.length)) : (conts as string[]);
    choicesInferred = { removed: spaced ? delimiter : null };
  }
  if (rec.target === null) return { kind: 'unreadable', why: 'no target recorded' };
  const gold = mcGold(rec.target, choices, count);
  if (gold === null) {
    return { kind: 'unreadable', why: 'the gold index cannot be read from the target without the choice list', example: `target ${JSON.stringify(rec.target.slice(0, 60))}` };
  }
  return { kind: 'read', gold, choices, choicesInferred };
}

/** truthfulqa_mc2's documents: `mc2_targets.labels`, which process_results_mc2 reads. */
export function hasMc2Targets(doc: Record<string, unknown> | null): boolean {
  return doc !== null && isPlainObject(doc.mc2_targets) && Array.isArray(doc.mc2_targets.labels);
}
