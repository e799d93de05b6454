/**
 * Which lm-eval output file is this? Decided from the name and the first bytes, so a
 * folder walk stays cheap; the full parse confirms it (and fails with the file named).
 * Formats by version are in reference/lmeval-scoring-and-outputs.md §5 and SOURCES.md.
 */
import type { FileProbe } from '../types.ts';

export type LmevalFileKind =
  /** `results_<ts>.json`, `results.json` and other names: top-level `results` object (v0.3 through v0.4.x). */
  | 'results'
  /** BigScience fork (2022): `agg-*.json` / `slim-*.json`, `results` is a list of one-metric dicts. */
  | 'bigscience-results'
  /** `samples_<task>_<ts>.jsonl` and ≤0.4.2's `<model_args>_<task>.jsonl` (JSONL or one JSON array). */
  | 'samples'
  /** lm-eval v0.3 `--write_out`: a JSON array of `{doc_id, prompt_i, logit_i, truth, <metrics>}`. */
  | 'write-out'
  /** BigScience fork `examples-*.jsonl`: `{pred, target, ctx, prompt_name, …}` per (doc, template). */
  | 'bigscience-examples';

// Any value after the key: a results file with a wrongly typed `results` is still a results file (and an error).
const FIRST_KEY_RESULTS = /^\{\s*"results"\s*:\s*(\S)/;
const FIRST_KEY_DOC_ID = /^\[?\s*\{\s*"doc_id"\s*:/;

export function sniffLmeval(probe: FileProbe): LmevalFileKind | null {
  const head = probe.head.replace(/^\uFEFF/, '').trimStart();
  const results = FIRST_KEY_RESULTS.exec(head);
  if (results !== null) return results[1] === '[' ? 'bigscience-results' : 'results';
  if (FIRST_KEY_DOC_ID.test(head)) {
    if (head.startsWith('[') && /"prompt_0"\s*:/.test(head) && /"logit_0"\s*:/.test(head)) return 'write-out';
    // A samples line always carries these; a record without them is somebody else's JSONL.
    if (/"arguments"\s*:/.test(head) || /"resps"\s*:/.test(head)) return 'samples';
    // A first record longer than the probe (a long document) hides its later keys: the doc key is enough then.
    if (probe.head.length >= 60_000 && /^\[?\s*\{\s*"doc_id"\s*:\s*\d+\s*,\s*"doc"\s*:/.test(head)) return 'samples';
    return null;
  }
  // A samples file by its lm-eval name, even when its first record is broken (so the error names the field).
  if (samplesTaskOf(probe.name) !== null && timestampOf(probe.name) !== null && /^[[{]/.test(head)) return 'samples';
  if (/^\{\s*"pred"\s*:/.test(head) && /"ctx"\s*:/.test(head) && /"prompt_name"\s*:/.test(head)) return 'bigscience-examples';
  return null;
}

/** The `<ts>` of `results_<ts>.json`, `samples_<task>_<ts>.jsonl`, `<name>_<ts>.json`, `agg-…_<ts>.json`. */
export function timestampOf(name: string): string | null {
  const m = /_(\d{4}-\d{2}-\d{2}T\d{2}[-:]\d{2}[-:]\d{2}(?:\.\d+)?)\.jsonl?$/.exec(name);
  return m === null ? null : m[1]!;
}

/** `samples_<task>_<ts>.jsonl` → task (lm-eval's own rule: between the first and the last `_`). */
export function samplesTaskOf(name: string): string | null {
  const m = /^samples_(.+)_[^_]+\.jsonl$/.exec(name);
  return m === null ? null : m[1]!;
}

/** ≤0.4.2 named samples `<model_args sanitised>_<task>.jsonl`; both sanitisations seen in the wild. */
export function legacySamplesNames(modelArgs: string, task: string): string[] {
  const slashOnly = modelArgs.replaceAll('/', '__');
  const slashAndEquals = modelArgs.replace(/[/=]/g, '__');
  return [...new Set([`${slashOnly}_${task}.jsonl`, `${slashAndEquals}_${task}.jsonl`])];
}
