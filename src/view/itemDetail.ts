/**
 * Everything the item page shows about one document of a (run, task), read from the
 * store: every request (context, continuation) and response (text, log-probability,
 * finish reason), the gold and the document, the per-item values the source recorded,
 * each reading's extracted answer and value from the matrix, and the prompt's shape
 * (promptShape: chat messages or turns, or the blank-line segments lm-eval joins few-shot
 * examples with). The multiple-choice gold comes from score/'s readChoiceDoc, the rule the
 * log-probability readers score with.
 */
import { promptShape } from '../audit/promptShape.ts';
import { looksLikeWinogrande, readChoiceDoc } from '../score/lmeval/choiceReading.ts';
import type { OpenStore } from '../store/readStore.ts';
import { queryRows, sqlString } from '../util/duckdb.ts';
import { parseJsonObject } from '../util/json.ts';
import type { ScopeItems } from './scopeItems.ts';
import { ViewRequestError } from './viewErrors.ts';

export interface PromptPart {
  role: string;
  text: string;
  /** Shown folded: a few-shot example or template text before the question. */
  folded: boolean;
}

export interface ItemDetail {
  run_id: string;
  task: string;
  doc_id: string;
  pos: number;
  previous: string | null;
  next: string | null;
  target: string | null;
  choices: string[] | null;
  doc_json: string | null;
  prompt: string | null;
  promptParts: PromptPart[];
  /** How the prompt was split into parts, in words. */
  promptHow: string;
  requests: { request_idx: number; request_type: string; continuation: string | null; context_same_as_first: boolean }[];
  responses: { request_idx: number; repeat: number; text: string | null; logprob: number | null; is_greedy: boolean | null; finish_reason: string | null; tokens_out: number | null; error: string | null }[];
  /** Multiple choice: a bar per choice with its summed log-probability; gold marked. */
  choiceBars: { index: number; choice: string; logprob: number | null; gold: boolean }[] | null;
  recorded: { filter: string; metric: string; value_json: string }[];
  readings: { extractor: string; normalizer: string; extracted: string | null; value: number | null }[];
}

/** lm-eval's default few-shot delimiter (and target delimiter's paragraph break): where examples join. */
const FEWSHOT_DELIMITER = '\n\n';

export function promptParts(prompt: string): { parts: PromptPart[]; how: string } {
  const shape = promptShape(prompt);
  if (shape.kind === 'messages') {
    const lastUser = shape.messages.map((m) => m.role).lastIndexOf('user');
    return {
      parts: shape.messages.map((m, i) => ({ role: m.role, text: m.content, folded: i < lastUser && m.role !== 'system' })),
      how: 'the chat messages the source logged; turns before the last user message folded',
    };
  }
  if (shape.kind === 'chat') {
    const f = shape.format;
    const markers = [
      { role: 'user', marker: f.user },
      { role: 'assistant', marker: f.assistant },
      ...(f.system === null ? [] : [{ role: 'system', marker: f.system }]),
    ];
    const starts: { at: number; role: string }[] = [];
    for (const { role, marker } of markers) for (let i = prompt.indexOf(marker); i !== -1; i = prompt.indexOf(marker, i + marker.length)) starts.push({ at: i, role });
    starts.sort((a, b) => a.at - b.at);
    const parts: PromptPart[] = [];
    if (starts[0]!.at > 0) parts.push({ role: 'text', text: prompt.slice(0, starts[0]!.at), folded: false });
    starts.forEach((s, i) => parts.push({ role: s.role, text: prompt.slice(s.at, starts[i + 1]?.at ?? prompt.length), folded: false }));
    const lastUser = parts.map((p) => p.role).lastIndexOf('user');
    parts.forEach((p, i) => (p.folded = i < lastUser && p.role !== 'system' && p.role !== 'text'));
    return { parts, how: `${f.name} turn markers found in the prompt; turns before the last user turn folded` };
  }
  const segments = prompt.split(FEWSHOT_DELIMITER);
  if (segments.length === 1) return { parts: [{ role: 'prompt', text: prompt, folded: false }], how: 'one piece (no blank line in the prompt)' };
  const last = segments.pop()!;
  return {
    parts: [
      { role: 'examples', text: segments.join(FEWSHOT_DELIMITER) + FEWSHOT_DELIMITER, folded: true },
      { role: 'question', text: last, folded: false },
    ],
    how: `split at the last blank line (lm-eval joins few-shot examples with "\\n\\n" by default): ${segments.length} segment(s) before the question folded`,
  };
}

export async function itemDetail(store: OpenStore, items: ScopeItems, runId: string, task: string, docId: string): Promise<ItemDetail> {
  const row = await items.row(docId);
  if (row === null) throw new ViewRequestError(`no document ${JSON.stringify(docId)} in ${task}`);
  const where = `run_id = ${sqlString(runId)} AND task = ${sqlString(task)} AND doc_id = ${sqlString(docId)}`;
  const [instances, responses, recorded, neighbours] = await Promise.all([
    queryRows<{ request_idx: number; request_type: string; arg_context: string | null; arg_continuation: string | null; target: string | null; choices_json: string | null; doc_json: string | null }>(
      `SELECT request_idx, request_type, arg_context, arg_continuation, target, choices_json, doc_json FROM ${store.table('instances')} WHERE ${where} ORDER BY request_idx`,
    ),
    queryRows<ItemDetail['responses'][number]>(
      `SELECT request_idx, "repeat", text, logprob, is_greedy, finish_reason, tokens_out, error FROM ${store.table('responses')} WHERE ${where} ORDER BY request_idx, "repeat"`,
    ),
    queryRows<{ filter: string; metric: string; value_json: string }>(`SELECT filter, metric, value_json FROM ${store.table('scores')} WHERE ${where} ORDER BY filter, metric`),
    items.neighbours(row.pos),
  ]);
  const first = instances[0]!;
  const prompt = first.arg_context;
  const shaped = prompt === null ? { parts: [], how: 'no prompt recorded' } : promptParts(prompt);
  const choices = parseChoices(first.choices_json);
  const loglikelihood = instances.filter((i) => i.request_type === 'loglikelihood');
  let choiceBars: ItemDetail['choiceBars'] = null;
  if (loglikelihood.length > 1) {
    const texts = choices ?? loglikelihood.map((i) => i.arg_continuation ?? '');
    const doc = parseJsonObject(first.doc_json);
    const read = readChoiceDoc(
      { winogrande: looksLikeWinogrande(doc), targetDelimiter: null },
      { target: first.target, choices, continuations: loglikelihood.map((i) => i.arg_continuation), doc },
      loglikelihood.length,
    );
    const gold = read.kind === 'read' ? [read.gold].flat() : [];
    choiceBars = loglikelihood.map((i, index) => ({
      index,
      choice: texts[index] ?? i.arg_continuation ?? '',
      logprob: responses.find((r) => r.request_idx === i.request_idx && r.repeat === 0)?.logprob ?? null,
      gold: gold.includes(index),
    }));
  }
  return {
    run_id: runId,
    task,
    doc_id: docId,
    pos: row.pos,
    ...neighbours,
    target: first.target,
    choices,
    doc_json: first.doc_json,
    prompt,
    promptParts: shaped.parts,
    promptHow: shaped.how,
    requests: instances.map((i) => ({ request_idx: i.request_idx, request_type: i.request_type, continuation: i.arg_continuation, context_same_as_first: i.arg_context === prompt })),
    responses,
    choiceBars,
    recorded,
    readings: items.cells.map((c, k) => ({ ...c, extracted: row.extracted[k] ?? null, value: row.values[k] ?? null })),
  };
}

function parseChoices(json: string | null): string[] | null {
  if (json === null) return null;
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.map(String) : null;
  } catch {
    return null;
  }
}

