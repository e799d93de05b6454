/** The rows the recorder test writes: instance i has one response whose every value derives from i. */
import type { InstanceRow, ResponseRow } from '../../../src/store/schema.ts';

export function instanceRows(total: number): InstanceRow[] {
  return Array.from({ length: total }, (_, i) => ({
    run_id: 'r', task: `t${i % 3}`, doc_id: String(i), group: null, request_idx: 0, request_type: 'generate_until',
    arg_context: `Q${i}?`, arg_continuation: null, gen_kwargs_json: null, doc_json: '{}', doc_hash: `h${i}`,
    prompt_hash: null, target: 'A', choices_json: null, fewshot_doc_ids: null, response_text: null,
  }));
}

export function expectedRows(total: number): ResponseRow[] {
  return Array.from({ length: total }, (_, i) => ({
    run_id: 'r', task: `t${i % 3}`, doc_id: String(i), request_idx: 0, repeat: 0,
    text: `answer ${i} ${'x'.repeat(i % 50)}`, logprob: i % 7 === 0 ? -Infinity : -i / 3, is_greedy: i % 2 === 0,
    finish_reason: 'stop', tokens_in: i, tokens_out: i + 1, latency_ms: i / 10, attempt: 1, from_cache: false, error: null,
  }));
}
