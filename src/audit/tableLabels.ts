/**
 * Row labels for the audit table: what differs between the runs, read from the provenance
 * diff (never from file names or run ids). Each differing setting becomes one part of a
 * label ("5-shot", "reasoning on", "chat template off"); a row's label is its parts joined.
 */
import type { DisclosureItem, RunProvenance } from '../store/schema.ts';
import { PROMPT_VARIANTS } from './promptVariants.ts';
import { valueOf } from './provenanceView.ts';
import { diffSettings, differingFields } from './settingsDiff.ts';
import { brief } from './settingRecord.ts';

export interface RowRef {
  run: RunProvenance;
  task: string;
}

export interface LabelPart {
  /** The setting, as 'item.field' (generation settings by key: 'generation.settings.max_gen_toks'). */
  field: string;
  text: string;
}

/**
 * What a label leaves out: the record files identify a run, and the failure counts are what
 * happened (truncations, errors), not how it was configured.
 */
const NOT_SETTINGS = ['records.', 'failures.', 'samples.document_ids'];

/** A label says the few settings that vary; past this many, the rest are counted, not listed. */
const MAX_PARTS = 4;

/** Settings in words (the label of a row), for the fields partText does not phrase itself. */
const FIELD_WORDS: Record<string, string> = {
  'samples.limit': 'limit',
  'samples.document_count': 'documents:',
  'model.model_id': 'model',
  'model.dtype': 'dtype',
  'model.batch_size': 'batch size',
  'model.backend': 'backend',
  'model.device': 'device',
  'harness.version': 'harness version',
  'harness.name': 'harness',
  'task.version': 'task version',
  'task.dataset_path': 'dataset',
  'task.dataset_name': 'dataset config',
  'task.dataset_split': 'split',
  'fewshot.seed': 'few-shot seed',
  'fewshot.sampler': 'few-shot sampler',
  'scoring.metrics': 'metrics:',
  'scoring.filters': 'filters:',
  'scoring.output_type': 'output type',
  'generation.max_tokens': 'max tokens',
  'generation.stop_sequences': 'stops:',
  'repeats.repeats': 'repeats',
};

/**
 * Fields that follow from another differing field: the system message sent follows from the
 * instruction, and which documents were read (their count, their ids) from the --limit.
 */
const FOLLOWS: Record<string, string> = {
  'system.message_sent': 'system.instruction',
  'samples.document_count': 'samples.limit',
  'samples.document_ids': 'samples.limit',
};

/**
 * The model first when it differs (rows of several models are told apart by it; past MAX_PARTS it was counted among
 * "other settings", and HELM's BBQ rows of gpt-4-turbo and gpt-4o read alike), then prompt settings (what the
 * table is about), then generation, then everything else.
 */
const ORDER = ['model.model_id', 'fewshot.', 'system.', 'chat_template.', 'task.', 'generation.', 'scoring.', 'samples.', 'model.', 'harness.', 'environment.'];
const rank = (field: string) => {
  const i = ORDER.findIndex((p) => field.startsWith(p));
  return i < 0 ? ORDER.length : i;
};

/** The fields whose values differ between any two rows (equality is transitive, so each row against the first suffices). */
export function differingSettings(rows: readonly RowRef[]): string[] {
  const fields = new Set<string>();
  for (const row of rows.slice(1)) {
    for (const f of differingFields(diffSettings(rows[0]!.run, rows[0]!.task, row.run, row.task))) fields.add(f);
  }
  return [...fields].filter((f) => !NOT_SETTINGS.some((p) => f.startsWith(p)) && !(FOLLOWS[f] !== undefined && fields.has(FOLLOWS[f]))).sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

function path(field: string): `${DisclosureItem}.${string}` {
  return field as `${DisclosureItem}.${string}`;
}

function generationSettings(row: RowRef): Record<string, unknown> {
  const v = valueOf(row.run, row.task, 'generation.settings');
  if (v === null || typeof v !== 'object' || Array.isArray(v)) return {};
  // lm-eval records {task, cli}; the CLI's values win, as lm-eval merges them.
  const o = v as Record<string, unknown>;
  if ('task' in o || 'cli' in o) return { ...(o.task as object | null), ...(o.cli as object | null) };
  return o;
}

function variantOf(instruction: unknown): string | null {
  for (const [name, variant] of Object.entries(PROMPT_VARIANTS)) if (variant.system_instruction === instruction) return name;
  return null;
}

/** Each row's label parts, in the same field order for every row. */
export function labelParts(rows: readonly RowRef[]): LabelPart[][] {
  const fields = differingSettings(rows);
  const out: LabelPart[][] = rows.map(() => []);
  for (const field of fields) {
    if (field === 'generation.settings') {
      // Only the keys whose values differ: "max_gen_toks=256", not the whole object.
      const settings = rows.map(generationSettings);
      const keys = [...new Set(settings.flatMap((s) => Object.keys(s)))].sort();
      for (const key of keys) {
        const values = settings.map((s) => JSON.stringify(s[key] ?? null));
        if (new Set(values).size === 1) continue;
        settings.forEach((s, i) => out[i]!.push({ field: `${field}.${key}`, text: key in s ? `${key}=${brief(s[key], 40)}` : `${key} unset` }));
      }
      continue;
    }
    const values = rows.map((r) => valueOf(r.run, r.task, path(field)));
    const variants = values.map((v) => (field === 'system.instruction' ? variantOf(v) : null));
    values.forEach((value, i) => out[i]!.push({ field, text: partText(field, value, variants[i]!, variants.find((v) => v !== null) ?? null) }));
  }
  return out;
}

function partText(field: string, value: unknown, variant: string | null, anyVariant: string | null): string {
  if (value === undefined) return `${field} unknown`;
  switch (field) {
    case 'fewshot.count':
      return `${String(value)}-shot`;
    case 'chat_template.applied':
      return `chat template ${value === true ? 'on' : 'off'}`;
    case 'chat_template.fewshot_as_multiturn':
      return `few-shot as multiturn ${value === true ? 'on' : 'off'}`;
    case 'system.instruction':
      if (variant !== null) return `${variant} on`;
      if (value === null || value === '') return anyVariant !== null ? `${anyVariant} off` : 'no system instruction';
      return `system ${brief(value, 40)}`;
    case 'task.name':
      return String(value);
    default: {
      const words = FIELD_WORDS[field] ?? field.replace('.', ' ').replace(/_/g, ' ');
      return `${words} ${inWords(value)}`;
    }
  }
}

/**
 * A value as a reader says it: a name or number as it is (its line breaks and runs of spaces as one space: a label
 * is one line of a table), a list as its items, an object as key value pairs.
 */
function inWords(value: unknown): string {
  if (typeof value === 'string') {
    const line = value.replace(/\s+/g, ' ').trim();
    return line.length > 40 ? `${line.slice(0, 39)}…` : line;
  }
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'none';
  if (Array.isArray(value)) return value.length <= 4 ? value.map((v) => (typeof v === 'string' ? v : brief(v, 20))).join(', ') : `${value.length} items`;
  return brief(value, 40);
}

export function labelText(parts: readonly LabelPart[]): string {
  if (parts.length === 0) return 'no setting differs';
  const shown = parts.slice(0, MAX_PARTS).map((p) => p.text);
  const rest = parts.length - MAX_PARTS;
  return [...shown, ...(rest > 0 ? [`${rest} other setting${rest === 1 ? '' : 's'}`] : [])].join(' · ');
}
