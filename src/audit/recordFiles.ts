/**
 * The source's own results file, read back from the records item (disclosure
 * item 12). Some settings that decide what reached the model — the target
 * delimiter, the few-shot delimiter, the tokenizer's special tokens — are not
 * disclosure fields of their own, so the configured-vs-used checks read them
 * where the source wrote them. The file is used only when its sha256 still
 * matches the one recorded at import; otherwise the check says it cannot tell.
 */
import { readFile } from 'node:fs/promises';
import type { RunProvenance } from '../store/schema.ts';
import { sha256Hex } from '../util/hash.ts';
import { isPlainObject } from '../util/json.ts';
import { parseOrdered, toValue } from '../py/orderedJson.ts';
import { valueOf } from './provenanceView.ts';

export type RawResults = { status: 'read'; path: string; json: Record<string, unknown> } | { status: 'unavailable'; why: string };

const cache = new Map<string, Promise<RawResults>>();

export function rawResults(run: RunProvenance): Promise<RawResults> {
  let entry = cache.get(run.run_id);
  if (entry === undefined) {
    entry = readRaw(run);
    cache.set(run.run_id, entry);
  }
  return entry;
}

/** An imported run's role is 'results…'; `lmaudit run` records the results file it wrote as 'lm-eval results'. */
async function readRaw(run: RunProvenance): Promise<RawResults> {
  const files = valueOf(run, null, 'records.files');
  if (!Array.isArray(files)) return { status: 'unavailable', why: 'the records item lists no files' };
  const file = files.find((f) => isPlainObject(f) && typeof f.role === 'string' && /^(?:lm-eval )?results/.test(f.role)) as
    | { path: string; sha256: string }
    | undefined;
  if (file === undefined) return { status: 'unavailable', why: noResultsFile(run, files) };
  let bytes: Buffer;
  try {
    bytes = await readFile(file.path);
  } catch {
    return { status: 'unavailable', why: `${file.path} is no longer readable` };
  }
  if (sha256Hex(bytes) !== file.sha256) return { status: 'unavailable', why: `${file.path} changed since it was imported (sha256 differs)` };
  try {
    // The importer's reader: it accepts Python's bare NaN/Infinity, which lm-eval writes.
    const json = toValue(parseOrdered(bytes.toString('utf8'), { file: file.path }));
    return isPlainObject(json) ? { status: 'read', path: file.path, json } : { status: 'unavailable', why: `${file.path} is not a JSON object` };
  } catch {
    return { status: 'unavailable', why: `${file.path} is not valid JSON` };
  }
}

/**
 * Why there is no lm-eval results file to read. 'The run has no results file'
 * is true only of an lm-eval run imported without one (samples or write_out
 * files alone); another harness's run has its own record of its results (an
 * Inspect log's results, an EEE aggregate, lighteval's results file), so what
 * is missing there is an lm-eval results file, whose keys these checks read.
 */
const OTHER_FORMATS: [RegExp, string][] = [
  [/^inspect-/, 'an Inspect eval log'],
  [/^eee-/, 'Every Eval Ever records'],
  [/^helm-/, 'a HELM run folder'],
  [/^lighteval-/, "lighteval's results and details files"],
  [/^opencompass-/, 'an OpenCompass work folder'],
  [/^records$/, 'generic records'],
];
const LMEVAL_ROLES = /^(?:samples:|write_out:|examples$|lm-eval )/;

function noResultsFile(run: RunProvenance, files: unknown[]): string {
  const roles = files.map((f) => (isPlainObject(f) && typeof f.role === 'string' ? f.role : ''));
  for (const [pattern, name] of OTHER_FORMATS) if (roles.some((r) => pattern.test(r))) return `imported from ${name}, not an lm-eval results file`;
  if (roles.length > 0 && roles.every((r) => LMEVAL_ROLES.test(r))) return 'the run has no results file';
  const harness = valueOf(run, null, 'harness.name');
  return typeof harness === 'string' ? `imported from ${harness}'s output, not an lm-eval results file` : 'imported from files that are not an lm-eval results file';
}

/** `configs[task]` of an lm-eval results file, or null. */
export function taskConfig(raw: RawResults, task: string): Record<string, unknown> | null {
  if (raw.status !== 'read') return null;
  const configs = raw.json.configs;
  if (!isPlainObject(configs)) return null;
  const cfg = configs[task];
  return isPlainObject(cfg) ? cfg : null;
}
