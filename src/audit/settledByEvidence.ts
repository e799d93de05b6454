/**
 * Settings whose effect the items themselves prove identical. A dataset read from a local copy
 * (`dataset_path: json`) and from the Hub (`allenai/ai2_arc`) are the same documents when every
 * shared document's doc_hash is equal; few-shot, chat-template and system settings are the same in
 * effect when every prompt's bytes are; generation settings cannot change a task that generates
 * nothing. Such a field is 'same in effect', and the row names the evidence; nothing else is.
 */
import { itemVerdict, type FieldRow, type SettingsDiff } from './settingsDiff.ts';
import { countOf } from '../util/plural.ts';

/** What the item join showed, counted over the shared items. */
export interface ItemEvidence {
  shared: number;
  onlyA: number;
  onlyB: number;
  /** Shared items whose doc_hash is recorded and equal on both sides. */
  docHashesEqual: number;
  /** Shared items whose every request (context and continuation) is byte-equal. */
  promptsEqual: number;
  /** Shared items whose target is recorded and equal. */
  targetsEqual: number;
}

/** Every item is shared and each of the counts covers all of them. */
export function allEqual(e: ItemEvidence | null, ...counts: ('docHashesEqual' | 'promptsEqual' | 'targetsEqual')[]): boolean {
  return e !== null && e.shared > 0 && e.onlyA === 0 && e.onlyB === 0 && counts.every((k) => e[k] === e.shared);
}

export const sameDocuments = (e: ItemEvidence) => `same documents (${e.docHashesEqual} of ${e.shared} doc hashes equal)`;
export const samePrompts = (e: ItemEvidence) => `same prompt bytes (${e.promptsEqual} of ${countOf(e.shared, "item's", "items'")} requests byte-equal)`;
export const sameItems = (e: ItemEvidence) =>
  `documents, prompts and targets equal on every shared item (${e.docHashesEqual} doc hashes, ${e.promptsEqual} prompts, ${e.targetsEqual} targets of ${e.shared})`;

/** Where the dataset came from: the documents' hashes settle it. */
const DATASET_FIELDS = ['task.dataset_path', 'task.dataset_name', 'task.dataset_split', 'task.dataset_hash', 'samples.document_ids'];
/** What shapes the prompt text: byte-equal prompts on the same documents settle it. */
const PROMPT_FIELDS = [
  'chat_template.applied',
  'chat_template.text',
  'chat_template.sha256',
  'chat_template.fewshot_as_multiturn',
  'chat_template.target_delimiter',
  'system.instruction',
  'system.description',
  'system.message_sent',
  'fewshot.count',
  'fewshot.sampler',
  'fewshot.seed',
  'fewshot.split',
];
const GENERATION_FIELDS = ['generation.settings', 'generation.stop_sequences', 'generation.max_tokens'];
/** Output types that send no generation request: only log-likelihoods are computed. */
const NON_GENERATING = new Set(['multiple_choice', 'loglikelihood', 'loglikelihood_rolling']);

const UNSETTLED = new Set<FieldRow['verdict']>(['differs', 'unknown in A', 'unknown in B', 'unknown in both']);

function outputTypes(diff: SettingsDiff): { a: unknown; b: unknown } {
  const row = diff.items.find((i) => i.item === 'scoring')?.fields.find((f) => f.field === 'output_type');
  return { a: row?.a.value, b: row?.b.value };
}

/** Marks the per-task fields the evidence settles as 'same in effect' (in place), with the evidence named. */
export function settleByEvidence(diff: SettingsDiff, evidence: ItemEvidence | null): void {
  const types = outputTypes(diff);
  // The output type as configured ('multiple_choice') or as the request types sent (['loglikelihood']).
  const generatesNothing = (t: unknown) => {
    const list = Array.isArray(t) ? t : [t];
    return list.length > 0 && list.every((x) => typeof x === 'string' && NON_GENERATING.has(x));
  };
  const spelled = (t: unknown) => (Array.isArray(t) ? t.join(', ') : String(t));
  const documents = evidence !== null && allEqual(evidence, 'docHashesEqual') ? sameDocuments(evidence) : null;
  const prompts = evidence !== null && documents !== null && allEqual(evidence, 'promptsEqual') ? samePrompts(evidence) : null;
  const noGeneration =
    generatesNothing(types.a) && generatesNothing(types.b)
      ? `the task generates nothing (requests: ${spelled(types.a) === spelled(types.b) ? spelled(types.a) : `${spelled(types.a)} vs ${spelled(types.b)}`}): generation settings cannot change it`
      : null;
  for (const item of diff.items) {
    if (item.task === null) continue;
    for (const f of item.fields) {
      if (!UNSETTLED.has(f.verdict) || f.contradiction !== undefined) continue;
      const path = `${item.item}.${f.field}`;
      const settled = DATASET_FIELDS.includes(path) ? documents : PROMPT_FIELDS.includes(path) ? prompts : GENERATION_FIELDS.includes(path) ? noGeneration : null;
      if (settled === null) continue;
      f.verdict = 'same in effect';
      f.evidence = settled;
    }
    // A contradiction the samples showed (markObservedContradictions) stays the item's verdict.
    if (item.observedContradictions === undefined) item.verdict = itemVerdict(item.fields);
  }
}
