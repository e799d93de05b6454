/**
 * Built requests as rows of the store's `instances` table (src/store/schema.ts): one
 * row per Instance, the same records `lmaudit prompts` writes and `lmaudit run` sends.
 */
import { dumpsPy } from '../py/json.ts';
import { pyStrOf, type DocRequests } from './build.ts';

export interface InstanceRow {
  run_id: string;
  task: string;
  doc_id: string;
  group: string | null;
  request_idx: number;
  request_type: string;
  arg_context: string | null;
  arg_continuation: string | null;
  gen_kwargs_json: string | null;
  doc_json: string | null;
  doc_hash: string;
  prompt_hash: string | null;
  target: string | null;
  choices_json: string | null;
  fewshot_doc_ids: string | null;
  /** No response yet: a built request has not been sent. */
  response_text: null;
}

export function instanceRows(record: DocRequests, runId: string, group: string | null = null): InstanceRow[] {
  const docJson = dumpsPy(record.doc);
  // doc_to_choice(doc), as lm-eval's acc_norm measures it (without the target delimiter the continuations carry;
  // a multiple-input task's contexts); not recorded when the task has no choice list.
  const multipleChoice = record.request_type === 'loglikelihood' && record.arguments.length > 1;
  const choices = multipleChoice && record.choices !== null ? dumpsPy(record.choices.map(pyStrOf)) : null;
  return record.arguments.map((args, i) => {
    const [context, second] = args;
    const isGen = record.request_type === 'generate_until';
    const rolling = record.request_type === 'loglikelihood_rolling';
    return {
      run_id: runId,
      task: record.task,
      doc_id: String(record.doc_id),
      group,
      request_idx: i,
      request_type: record.request_type,
      // A rolling request's only argument is the text scored; an API chat context is a one-element list.
      arg_context: rolling ? null : Array.isArray(context) ? pyStrOf(context[0]) : pyStrOf(context),
      arg_continuation: rolling ? pyStrOf(context) : isGen ? null : pyStrOf(second),
      gen_kwargs_json: isGen ? dumpsPy(second) : null,
      doc_json: docJson,
      doc_hash: record.doc_hash,
      prompt_hash: record.prompt_hash,
      target: record.target === null || record.target === undefined ? null : pyStrOf(record.target),
      choices_json: choices,
      fewshot_doc_ids: dumpsPy(record.fewshot_doc_ids),
      response_text: null,
    };
  });
}
