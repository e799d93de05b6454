/**
 * Every Eval Ever's two official JSON Schemas (draft-07, schema 0.3.0; fixtures/eee/schemas, MIT), compiled
 * once with Ajv, plus the rules EEE's validator checks outside the schema (interchange-formats.md §2.2): a
 * single_turn record has `output` and no `messages`; a continuous metric has both bounds. A written file
 * that fails either is a defect of the exporter, never shipped: the caller refuses to write it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { packageRoot } from '../../util/packageRoot.ts';

const SCHEMA_FOLDER = 'fixtures/eee/schemas';
export const AGGREGATE_SCHEMA_FILE = `${SCHEMA_FOLDER}/eval.schema.json`;
export const INSTANCE_SCHEMA_FILE = `${SCHEMA_FOLDER}/instance_level_eval.schema.json`;

let compiled: { aggregate: ValidateFunction; instance: ValidateFunction; version: string } | undefined;

function validators(): NonNullable<typeof compiled> {
  if (compiled !== undefined) return compiled;
  // The schemas carry a non-standard top-level "version" key: strict mode would refuse it.
  const ajv = new Ajv({ strict: false, allErrors: true });
  const addFormats = addFormatsModule as unknown as (a: Ajv) => Ajv;
  addFormats(ajv);
  const load = (file: string) => JSON.parse(readFileSync(join(packageRoot(), file), 'utf8')) as Record<string, unknown>;
  const aggregate = load(AGGREGATE_SCHEMA_FILE);
  const instance = load(INSTANCE_SCHEMA_FILE);
  compiled = { aggregate: ajv.compile(aggregate), instance: ajv.compile(instance), version: String(aggregate.version) };
  return compiled;
}

/** The version the bundled schemas declare (what an export writes). */
export function schemaVersion(): string {
  return validators().version;
}

function problems(validate: ValidateFunction, value: unknown): string[] {
  if (validate(value)) return [];
  return (validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${e.params && Object.keys(e.params).length > 0 ? ` ${JSON.stringify(e.params)}` : ''}`);
}

export function aggregateProblems(record: unknown): string[] {
  const found = problems(validators().aggregate, record);
  for (const [i, r] of (((record as { evaluation_results?: unknown[] }).evaluation_results ?? []) as Record<string, Record<string, unknown>>[]).entries()) {
    const m = r.metric_config ?? {};
    if (m.score_type === 'continuous' && (m.min_score === undefined || m.max_score === undefined)) found.push(`/evaluation_results/${i}/metric_config continuous without min_score and max_score`);
  }
  return found;
}

export function instanceProblems(record: unknown): string[] {
  const found = problems(validators().instance, record);
  const r = record as Record<string, unknown>;
  if (r.interaction_type === 'single_turn' && (r.output === undefined || r.output === null || (r.messages !== undefined && r.messages !== null))) {
    found.push('/ single_turn needs output and no messages');
  }
  return found;
}
