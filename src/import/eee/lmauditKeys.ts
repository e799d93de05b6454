/**
 * Where `lmaudit export --format eee` keeps what EEE has no typed field for, and how the importer reads it
 * back: each disclosure field as `lmaudit.<item>.<field>` in an `additional_details` map (EEE's only open
 * places, string to string), its value the Setting's JSON ({configured, used}, each recorded / inferred with
 * how / unknown). Per-run items go in `model_info.additional_details`, per-task items in each result's
 * `generation_config.additional_details`, and the result's own task, filter and metric in its
 * `metric_config.additional_details`.
 */
import { BadInputError, type InputLocation } from '../../errors.ts';
import { PER_RUN_ITEMS, PER_TASK_ITEMS, Setting, type DisclosureItem } from '../../store/schema.ts';

export const LMAUDIT_PREFIX = 'lmaudit.';

export const RESULT_KEYS = { task: 'lmaudit.task', filter: 'lmaudit.filter', metric: 'lmaudit.metric' } as const;
/** On a result's metric_config: the reported key it is, or that lmaudit computed its score. */
export const REPORTED_KEY = 'lmaudit.reported_key';
export const SCORE_KEY = 'lmaudit.score';
export const REPORTED_STDERR_KEY = 'lmaudit.reported_stderr_key';

/**
 * In an instance record's metadata: a per-item value EEE's number-only score cannot hold (a pair, a string, a
 * field lmaudit kept), as `lmaudit.score:<metric>,<filter>` → JSON [value, value_json]; and the exported
 * score's own value_json where its JSON says more than the number (`lmaudit.value_json`).
 */
export const KEPT_SCORE_PREFIX = 'lmaudit.score:';
export const VALUE_JSON_KEY = 'lmaudit.value_json';

/**
 * In an instance record's metadata: the item's log-likelihood requests, which EEE has no field for, as JSON
 * [[request_idx, logprob, is_greedy, continuation], …] (continuation since this key's second version; a record
 * written before holds triples, whose continuation is the choice of that index).
 */
export const LOGPROBS_KEY = 'logprobs';

/** The log-likelihood requests an lmaudit export kept in `metadata.logprobs`, or null when it holds none of its shape. */
export function keptLoglikelihoods(value: unknown, choices: readonly string[] | null): { idx: number; logprob: number; isGreedy: boolean | null; continuation: string | null }[] | null {
  if (typeof value !== 'string') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed) || parsed.length === 0) return null;
  const out: { idx: number; logprob: number; isGreedy: boolean | null; continuation: string | null }[] = [];
  for (const e of parsed) {
    if (!Array.isArray(e) || (e.length !== 3 && e.length !== 4)) return null;
    const [idx, logprob, isGreedy, continuation] = e as unknown[];
    if (!Number.isSafeInteger(idx) || (idx as number) < 0 || typeof logprob !== 'number' || !(isGreedy === null || typeof isGreedy === 'boolean')) return null;
    if (e.length === 4 && continuation !== null && typeof continuation !== 'string') return null;
    out.push({ idx: idx as number, logprob, isGreedy: isGreedy as boolean | null, continuation: e.length === 4 ? (continuation as string | null) : (choices?.[idx as number] ?? null) });
  }
  // One response a request, requests 0, 1, … in order, as the export writes them.
  return out.every((e, i) => e.idx === i) ? out : null;
}

export const RUN_KEYS = { run_id: 'lmaudit.run_id', source_kind: 'lmaudit.source_kind', source_format: 'lmaudit.source_format', label: 'lmaudit.label', reported: 'lmaudit.reported', notes: 'lmaudit.notes', scored_by_process_results: 'lmaudit.scored_by_process_results' } as const;

export const settingKey = (item: DisclosureItem, field: string): string => `${LMAUDIT_PREFIX}${item}.${field}`;

/** Every group of `items` as flat `lmaudit.<item>.<field>` → JSON text entries. */
export function settingEntries(groups: Partial<Record<DisclosureItem, Record<string, Setting>>>, items: readonly DisclosureItem[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const item of items) for (const [field, setting] of Object.entries(groups[item] ?? {})) out[settingKey(item, field)] = JSON.stringify(setting);
  return out;
}

/** The Settings an lmaudit export kept in `details`, by item (items with none absent); a malformed value is refused where `at` places its key. */
export function settingsFrom(details: Record<string, unknown> | undefined, items: readonly DisclosureItem[], at: (key: string) => InputLocation): Partial<Record<DisclosureItem, Record<string, Setting>>> {
  const out: Partial<Record<DisclosureItem, Record<string, Setting>>> = {};
  for (const [key, value] of Object.entries(details ?? {})) {
    if (!key.startsWith(LMAUDIT_PREFIX)) continue;
    const rest = key.slice(LMAUDIT_PREFIX.length);
    const dot = rest.indexOf('.');
    const item = rest.slice(0, dot) as DisclosureItem;
    if (dot < 0 || !items.includes(item)) continue;
    const parsed = Setting.safeParse(typeof value === 'string' ? safeJson(value) : undefined);
    if (!parsed.success) throw new BadInputError(`${key} is not a setting lmaudit wrote ({configured, used} as JSON)`, at(key));
    (out[item] ??= {})[rest.slice(dot + 1)] = parsed.data;
  }
  return out;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export { PER_RUN_ITEMS, PER_TASK_ITEMS };
