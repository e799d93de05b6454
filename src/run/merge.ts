/**
 * `lmaudit merge <out> <shard stores…>`: the stores of `lmaudit run … --shard i/N` joined into the
 * store the unsharded run would have written. The shards must be every shard of one run, each
 * once, each finished, and agree on everything but the shard number and the server they talked
 * to (the first setting that differs is named, with both values). The join is the unsharded run
 * itself, re-run from the shards' recorded flags with the replay backend over the union of
 * their responses: prompts, scoring and aggregation go through exactly the path a run takes, so
 * the results equal the unsharded run's by construction, and no model is called.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { BadInputError, StoreError } from '../errors.ts';
import type { ModelArgs } from '../models/lm.ts';
import { openReplay } from '../models/replay.ts';
import { parsePyJson } from '../py/json.ts';
import { PyFloat } from '../py/values.ts';
import { DISCLOSURE_FIELDS, PER_TASK_ITEMS, StoreManifest, type RecordNote, type RunProvenance, type Setting } from '../store/schema.ts';
import { dumpsPy } from '../py/json.ts';
import type { RunEvents } from './events.ts';
import { executeRunOn, type RunOptions, type RunSummary } from './runner.ts';
import { SHARD_OPTIONS_KEY, type ShardSpec } from './shard.ts';

/**
 * --model_args that say how to reach a server, not what it computes: shards of one run may
 * differ in them (each its own server). Everything else must agree.
 */
export const PER_SERVER_ARGS = ['base_url', 'num_concurrent', 'max_retries', 'timeout', 'max_requests_per_minute', 'backoff_ms', 'max_backoff_ms', 'max_retry_after', 'record_exchanges', 'api_key_env'];

/** Per-task settings whose used value depends on which documents a shard holds (compared as configured only). */
const DOCUMENT_DEPENDENT = new Set(['task.dataset_hash', 'samples.document_count', 'samples.document_ids', 'scoring.output_type', 'chat_template.target_delimiter', 'system.message_sent', 'fewshot.count', 'generation.stop_sequences', 'generation.backend_additions']);

const DOCUMENTS_BOTH_SIDES = new Set(['task.dataset_hash', 'samples.document_count', 'samples.document_ids']);

export interface ShardStore {
  path: string;
  spec: ShardSpec;
  run: RunProvenance;
  config: Record<string, unknown>;
  options: Record<string, unknown>;
}

async function readShard(path: string): Promise<ShardStore> {
  let manifest: StoreManifest;
  try {
    manifest = StoreManifest.parse(JSON.parse(await readFile(join(path, 'provenance.json'), 'utf8')));
  } catch (error) {
    // The error's file names the folder; Node's ENOENT would name it again.
    const why = (error as NodeJS.ErrnoException).code === 'ENOENT' ? (existsSync(path) ? 'it has no provenance.json' : 'no such folder') : (error as Error).message.split('\n')[0];
    throw new BadInputError(`not a run store (${why})`, { file: path });
  }
  const recording = manifest.recording;
  if (recording === undefined || manifest.runs.length !== 1) throw new BadInputError(`not the store of one \`lmaudit run … --shard i/N\``, { file: path });
  const label = recording.config['--shard'];
  if (typeof label !== 'string') throw new BadInputError(`a run without --shard; merge joins the shards of one run`, { file: path });
  if (recording.status !== 'finished') throw new BadInputError(`shard ${label} did not finish; \`lmaudit run … --resume ${path}\` finishes it first`, { file: path });
  const [index, count] = label.split('/').map(Number) as [number, number];
  const typed = recording.config[SHARD_OPTIONS_KEY];
  if (typeof typed !== 'string') throw new BadInputError(`shard ${label} does not record its flags as typed values (field '${SHARD_OPTIONS_KEY}' of recording.config); rerun it with this lmaudit`, { file: path });
  const options = parsePyJson(typed) as Record<string, unknown>;
  return { path, spec: { index, count }, run: manifest.runs[0]!, config: recording.config, options };
}

/** Each shard once, all of one count. */
function checkComplete(shards: readonly ShardStore[]): void {
  const count = shards[0]!.spec.count;
  for (const s of shards) {
    if (s.spec.count !== count) throw new BadInputError(`--shard differs between the shards: ${shards[0]!.path} is shard ${shards[0]!.spec.index}/${count}, ${s.path} is ${s.spec.index}/${s.spec.count}`);
  }
  const byIndex = new Map<number, ShardStore>();
  for (const s of shards) {
    const seen = byIndex.get(s.spec.index);
    if (seen !== undefined) throw new BadInputError(`shard ${s.spec.index}/${count} is given twice: ${seen.path} and ${s.path}`);
    byIndex.set(s.spec.index, s);
  }
  const missing = Array.from({ length: count }, (_, i) => i).filter((i) => !byIndex.has(i));
  if (missing.length > 0) throw new BadInputError(`shard${missing.length > 1 ? 's' : ''} ${missing.map((i) => `${i}/${count}`).join(', ')} ${missing.length > 1 ? 'are' : 'is'} missing (given: ${shards.map((s) => `${s.spec.index}/${count} ${s.path}`).join(', ')})`);
}

const factText = (f: Setting['configured'] | undefined): string => (f === undefined ? '(not recorded)' : f.status === 'unknown' ? 'unknown' : dumpsPy(f.value ?? null));

/** Everything a shard's results depend on, as setting name → text; shards of one run have equal maps. */
export function comparableSettings(s: ShardStore): Map<string, string> {
  const out = new Map<string, string>();
  for (const [key, value] of Object.entries(s.config)) {
    if (key === '--shard' || key === SHARD_OPTIONS_KEY || key === '--model_args') continue;
    out.set(key, typeof value === 'string' ? value : dumpsPy(value ?? null));
  }
  const args = (s.options.model_args ?? {}) as Record<string, unknown>;
  for (const [k, v] of Object.entries(args)) if (!PER_SERVER_ARGS.includes(k)) out.set(`--model_args ${k}`, dumpsPy(v));
  const r = s.run;
  out.set('harness version', factText(r.harness.version?.used));
  for (const field of ['backend', 'model_id', 'dtype', 'revision'] as const) out.set(`model.${field}`, factText(r.model[field]?.used));
  const device = (r.model.device?.used.status === 'recorded' ? r.model.device.used.value : {}) as Record<string, unknown>;
  for (const field of ['files_sha256', 'adds_bos', 'eos_token', 'max_length']) out.set(`model ${field === 'files_sha256' ? 'files (sha256)' : field}`, dumpsPy(device[field] ?? null));
  // The libraries and protocol that computed the answers (onnxruntime's version, the API spoken), not where the server was.
  const runtime = { ...((r.harness.runtime?.used.status === 'recorded' ? r.harness.runtime.used.value : {}) as Record<string, unknown>) };
  delete runtime.node;
  delete runtime.server;
  out.set('model runtime', dumpsPy(runtime));
  out.set('tasks', dumpsPy(Object.keys(r.tasks).sort()));
  for (const [task, block] of Object.entries(r.tasks)) {
    for (const item of PER_TASK_ITEMS) {
      for (const field of DISCLOSURE_FIELDS[item]) {
        const setting = (block[item] as Record<string, Setting>)[field];
        const name = `${item}.${field}`;
        // Failures are observations; a shard's documents make the rest of these differ on both sides.
        if (item === 'failures' || DOCUMENTS_BOTH_SIDES.has(name)) continue;
        out.set(`${task}: ${name} (configured)`, factText(setting?.configured));
        if (!DOCUMENT_DEPENDENT.has(name)) out.set(`${task}: ${name}`, factText(setting?.used));
      }
    }
  }
  return out;
}

/** Refuses shards that are not of one run, naming the first setting that differs. */
function checkAgree(shards: readonly ShardStore[]): void {
  const [first, ...rest] = shards;
  const reference = comparableSettings(first!);
  for (const s of rest) {
    const mine = comparableSettings(s);
    for (const key of new Set([...reference.keys(), ...mine.keys()])) {
      const a = reference.get(key) ?? '(not recorded)';
      const b = mine.get(key) ?? '(not recorded)';
      if (a !== b) throw new BadInputError(`the shards are not of one run: ${key} differs (${first!.path}: ${a}; ${s.path}: ${b}); shards agree on everything but --shard and the server they talked to`);
    }
  }
}

const num = (v: unknown): number | null => (v === null || v === undefined ? null : v instanceof PyFloat ? v.value : Number(v));

/** The unsharded run's options, from a shard's typed record of its flags; per-server arguments that differ are left out. */
function wholeRunOptions(shards: readonly ShardStore[], out: string, date: Date, outputPath: string | null): RunOptions {
  const o = shards[0]!.options;
  const args = { ...((o.model_args ?? {}) as ModelArgs) };
  for (const key of PER_SERVER_ARGS) {
    const values = new Set(shards.map((s) => dumpsPy(((s.options.model_args ?? {}) as Record<string, unknown>)[key] ?? null)));
    if (values.size > 1) delete args[key];
  }
  return {
    model: String(o.model),
    modelArgs: args,
    tasks: o.tasks as string[],
    includePaths: (o.include_path as string[] | undefined)?.length ? (o.include_path as string[]) : undefined,
    numFewshot: num(o.num_fewshot),
    batchSize: Number(num(o.batch_size)),
    limit: num(o.limit),
    applyChatTemplate: o.apply_chat_template as string | boolean | null,
    fewshotAsMultiturn: o.fewshot_as_multiturn as boolean | null,
    systemInstruction: o.system_instruction as string | null,
    genKwargs: o.gen_kwargs as Record<string, unknown> | null,
    seed: o.seed as string | null,
    predictOnly: o.predict_only === true,
    store: out,
    resume: false,
    outputPath,
    date,
  };
}

function mergeNote(shards: readonly ShardStore[], differing: string[]): RecordNote {
  const count = shards[0]!.spec.count;
  const servers = differing.length === 0 ? '' : `; per-shard ${differing.join(', ')}: ${shards.map((s) => `${s.spec.index}/${count} ${differing.map((k) => dumpsPy(((s.options.model_args ?? {}) as Record<string, unknown>)[k] ?? null)).join(' ')}`).join(', ')}`;
  return {
    task: null,
    kind: 'merge',
    message: `merged from ${count} shard stores (${[...shards].sort((a, b) => a.spec.index - b.spec.index).map((s) => `${s.spec.index}/${count} ${s.path}`).join(', ')}) by re-running the unsharded run over their responses${servers}`,
    evidence: [JSON.stringify(shards.map((s) => ({ shard: `${s.spec.index}/${count}`, store: s.path, run_id: s.run.run_id })))],
  };
}

export async function mergeShards(out: string, paths: readonly string[], events: RunEvents, options: { outputPath?: string | null; date?: Date } = {}): Promise<{ summary: RunSummary; shards: ShardStore[] }> {
  if (paths.length === 0) throw new BadInputError('lmaudit merge needs the shard stores to join');
  const shards: ShardStore[] = [];
  for (const p of paths) shards.push(await readShard(p));
  checkComplete(shards);
  checkAgree(shards);
  const ordered = [...shards].sort((a, b) => a.spec.index - b.spec.index);
  const run = wholeRunOptions(ordered, out, options.date ?? new Date(), options.outputPath ?? null);
  const differing = PER_SERVER_ARGS.filter((k) => new Set(ordered.map((s) => dumpsPy(((s.options.model_args ?? {}) as Record<string, unknown>)[k] ?? null))).size > 1);
  const lm = await openReplay(ordered.map((s) => s.path));
  try {
    const summary = await executeRunOn(lm, { ...run, notes: [mergeNote(ordered, differing)] }, events);
    if (summary.replay?.missing) throw new StoreError(`${out}: the shards left requests unanswered`);
    return { summary, shards: ordered };
  } finally {
    await lm.close();
  }
}
