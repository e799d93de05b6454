/**
 * `lmaudit run` as a library call: open the backend, build the Instances with the prompt
 * engine (the same records `lmaudit prompts` writes), send the requests the store does
 * not hold yet, record each batch's responses durably, then score with lm-eval's rules
 * and finish the store. Every step emits a typed event (events.ts).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BackendError, BadInputError, UnsupportedError } from '../errors.ts';
import { backendFactory } from '../models/registry.ts';
import { TRANSPORT_MODEL_ARGS, type LanguageModel, type ModelArgs } from '../models/lm.ts';
import { apiChatTemplate, compileChatTemplate, type ChatTemplate } from '../prompt/chatTemplate.ts';
import { instanceRows } from '../prompt/instances.ts';
import { buildPrompts, type Seeds } from '../prompt/prompts.ts';
import type { BuiltTask } from '../prompt/build.ts';
import { RunRecorder, responseKey } from '../store/recorder.ts';
import { SCHEMA_VERSION, type InstanceRow, type SourceFile, type StoreManifest } from '../store/schema.ts';
import { sha256File, sha256Hex } from '../util/hash.ts';
import { packageRoot } from '../util/packageRoot.ts';
import { dumpsPy } from '../py/json.ts';
import { RunEvents } from './events.ts';
import { generationSettings } from './generation.ts';
import { dateId, writeLmevalFiles } from './lmevalFiles.ts';
import { configFingerprint, redactedArgs, runProvenance, type RunFacts, type TaskObservations } from './provenance.ts';
import { planWork, sendBatch, type RecordedResponse, type WorkItem } from './schedule.ts';
import { checkScorable, scoreTask, type TaskScores } from './scoring.ts';
import { groupResults, type GroupResult } from './groups.ts';
import { readResponses } from './storedResponses.ts';
import type { GenerationSettings } from '../models/lm.ts';
import { replaySource } from '../models/replay.ts';
import type { RecordNote, RunProvenance } from '../store/schema.ts';
import { cutShard, SHARD_OPTIONS_KEY, shardLabel, shardNote, type ShardCut, type ShardSpec } from './shard.ts';
import { amendReplayedProvenance, checkReplayCoverage, type MissingAnswers } from './replayed.ts';

export interface RunOptions {
  model: string;
  modelArgs: ModelArgs;
  tasks: string[];
  includePaths?: string[];
  numFewshot: number | null;
  batchSize: number;
  /** --batch_size as typed, for lm-eval's results file (absent: the number is written). */
  batchSizeText?: string;
  limit: number | null;
  /** A template spec (path, llama3, qwen3), true for the model's own, null for none. */
  applyChatTemplate: string | boolean | null;
  fewshotAsMultiturn: boolean | null;
  systemInstruction: string | null;
  genKwargs: Record<string, unknown> | null;
  seed: string | null;
  /** The store folder. */
  store: string;
  /** Continue the unfinished run in `store`. */
  resume: boolean;
  /** Where lm-eval's results and samples files go (null: not written). */
  outputPath: string | null;
  /** The run's start, which names lm-eval's files (and the default store folder). */
  date: Date;
  /** `--shard i/N`: only that shard's documents (src/run/shard.ts); `lmaudit merge` joins the shards. */
  shard?: ShardSpec | null;
  /** With the replay backend: leave out documents the stores do not answer, instead of refusing the run. */
  allowMissing?: boolean;
  /** Notes the provenance carries besides the run's own (`lmaudit merge` names its shards). */
  notes?: RecordNote[];
  /** lm-eval's --predict_only: the outputs are stored, every task's metrics are lm-eval's bypass (nothing is scored). */
  predictOnly?: boolean;
}

export interface RunSummary {
  store: string;
  tasks: BuiltTask[];
  scores: TaskScores[];
  groups: GroupResult[];
  lmevalFiles: string[];
  sent: number;
  heldBefore: number;
  wallMs: number;
  inferenceMs: number;
  /** The backend's work counters for this invocation (empty when it keeps none). */
  counters: Record<string, number>;
  shard: ShardCut | null;
  /** Set when the replay backend answered: the requests it was asked for, and those without an answer (--allow-missing). */
  replay: { requests: number; missing: MissingAnswers | null } | null;
}

/** Settings whose change makes a resumed run a different run. */
function resumeConfig(o: RunOptions, instances: readonly InstanceRow[]): Record<string, string> {
  return configFingerprint({
    '--model': o.model,
    // Secret-looking values never reach disk; a changed secret is not a changed run.
    // How requests travel (server address, concurrency, retries) does not change the run: a resume may use another server.
    '--model_args': redactedArgs(Object.fromEntries(Object.entries(o.modelArgs).filter(([k]) => !TRANSPORT_MODEL_ARGS.includes(k)))),
    '--tasks': o.tasks.join(','),
    '--include_path': o.includePaths ?? [],
    '--num_fewshot': o.numFewshot,
    '--batch_size': o.batchSize,
    '--limit': o.limit,
    '--apply_chat_template': o.applyChatTemplate,
    '--fewshot_as_multiturn': o.fewshotAsMultiturn,
    '--system_instruction': o.systemInstruction,
    '--gen_kwargs': o.genKwargs,
    '--seed': o.seed ?? '0,1234,1234,1234',
    // Not a flag: the task files or data changed under the same flags.
    'the requests built (task files and data)': sha256Hex(instances.map((r) => dumpsPy([r.task, r.doc_id, r.request_idx, r.arg_context, r.arg_continuation, r.gen_kwargs_json])).join('\n')),
    // Only when set, so that stores started before these flags existed still resume.
    ...(o.shard ? { '--shard': shardLabel(o.shard), [SHARD_OPTIONS_KEY]: shardRunOptions(o) } : {}),
    ...(o.allowMissing ? { '--allow-missing': true } : {}),
  });
}

/** The flags a shard ran with, typed (as dumpsPy writes them), so that `lmaudit merge` reruns the whole run. */
function shardRunOptions(o: RunOptions): string {
  return dumpsPy({
    model: o.model, model_args: redactedArgs(o.modelArgs), tasks: o.tasks, include_path: o.includePaths ?? [], num_fewshot: o.numFewshot, batch_size: o.batchSize, limit: o.limit,
    apply_chat_template: o.applyChatTemplate, fewshot_as_multiturn: o.fewshotAsMultiturn, system_instruction: o.systemInstruction, gen_kwargs: o.genKwargs, seed: o.seed,
    // Only when set, so that shard stores written before the flag was honoured keep their record.
    ...(o.predictOnly ? { predict_only: true } : {}),
  });
}

function lmauditVersion(): string {
  try {
    return String((JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: string }).version);
  } catch {
    return 'unknown';
  }
}

export async function executeRun(o: RunOptions, events: RunEvents): Promise<RunSummary> {
  const startedAt = performance.now();
  const date = o.date;
  // Everything that can be refused is checked before the store is touched.
  const factory = backendFactory(o.model);
  const opening = factory.open(o.modelArgs, { batchSize: o.batchSize });
  // The prompts do not depend on the model unless its own chat template renders them: they are built
  // while the backend loads (a graph's session takes most of a second to create).
  const prompts = o.applyChatTemplate === true ? null : promptsFor(o, null);
  prompts?.catch(() => undefined);
  let lm: LanguageModel;
  try {
    lm = await opening;
  } catch (error) {
    await prompts?.catch(() => undefined);
    throw error;
  }
  try {
    return await runWith(lm, o, events, startedAt, date, prompts);
  } finally {
    await lm.close();
  }
}

function promptsFor(o: RunOptions, chatTemplate: ChatTemplate | null): ReturnType<typeof buildPrompts> {
  return buildPrompts({
    tasks: o.tasks,
    includePaths: o.includePaths,
    numFewshot: o.numFewshot,
    limit: o.limit,
    applyChatTemplate: typeof o.applyChatTemplate === 'string' ? o.applyChatTemplate : null,
    chatTemplate,
    fewshotAsMultiturn: o.fewshotAsMultiturn,
    systemInstruction: o.systemInstruction,
    seed: o.seed,
    genKwargs: o.genKwargs,
  });
}

/** One run on a backend already open (a grid's cells share one backend and its answers; the caller closes it). */
export function executeRunOn(lm: LanguageModel, o: RunOptions, events: RunEvents): Promise<RunSummary> {
  return runWith(lm, o, events, performance.now(), o.date);
}

async function runWith(lm: LanguageModel, o: RunOptions, events: RunEvents, startedAt: number, date: Date, early: ReturnType<typeof buildPrompts> | null = null): Promise<RunSummary> {
  const description = lm.describe();
  let chatTemplate: ChatTemplate | null = null;
  if (lm.capabilities.messages === 'required' && o.applyChatTemplate === null) {
    throw new BadInputError(`--model ${o.model} takes chat messages: run with --apply_chat_template (lm-eval's local-chat-completions needs it too)`);
  }
  // A messages API gets lm-eval's API chat "template": the messages as JSON, sent as they are.
  if (o.applyChatTemplate === true && lm.capabilities.messages !== undefined) chatTemplate = apiChatTemplate();
  else if (o.applyChatTemplate === true) {
    if (description.chatTemplate === null) throw new BadInputError(`--apply_chat_template: the model (${description.modelId}) has no chat template; name one (a tokenizer_config.json, a template file, llama3 or qwen3)`);
    chatTemplate = compileChatTemplate(description.chatTemplate, { origin: `model ${description.modelId}` });
  }
  const { built: allBuilt, seeds, groups } = await (early ?? promptsFor(o, chatTemplate));
  const cut = o.shard ? cutShard(allBuilt, o.shard) : null;
  let built = cut?.built ?? allBuilt;
  if (chatTemplate === null && typeof o.applyChatTemplate === 'string') {
    const { loadChatTemplate } = await import('../prompt/chatTemplate.ts');
    chatTemplate = loadChatTemplate(o.applyChatTemplate);
  }
  for (const t of built) checkScorable(t, o.predictOnly ?? false);
  const leafTasks = built.map((t) => ({ name: t.config.task, tags: t.config.tag }));
  groupResults(groups, [], leafTasks);
  checkCapabilities(lm, built);
  const settings = new Map<string, GenerationSettings>();
  for (const t of built) if (t.config.output_type === 'generate_until') settings.set(t.config.task, generationSettings(t.config.generation_kwargs === null ? null : { ...t.config.generation_kwargs, ...(o.genKwargs ?? {}) }, t.config.task, seeds.random));
  for (const [task, s] of settings) {
    try {
      lm.checkGeneration?.(s);
    } catch (error) {
      if (error instanceof BadInputError) throw new BadInputError(`task '${task}': ${error.detail}`, error.where);
      if (error instanceof UnsupportedError) throw new UnsupportedError(`task '${task}': ${error.message}`, { cause: error });
      throw error;
    }
  }
  const source = replaySource(lm);
  const coverage = source === undefined ? null : checkReplayCoverage(source, built, settings, o.allowMissing ?? false);
  if (coverage !== null) built = coverage.built;
  // The provenance of a shard or a replay says so; a replay keeps the model that answered (not "replay").
  const provenanceOf = (p: RunProvenance): RunProvenance => {
    if (cut !== null) p.notes.push(shardNote(o.shard!, cut));
    if (source !== undefined) amendReplayedProvenance(p, source, coverage!.missing, o.model === 'replay');
    p.notes.push(...(o.notes ?? []));
    return p;
  };
  // Every shard's fingerprint holds the whole run's requests, so that merge can tell shards of one run apart from others.
  const fingerprintInstances = (id: string) => (cut === null ? null : allBuilt.flatMap((t) => t.docs.flatMap((d) => instanceRows(d, id))));

  const asRun: RunOptions = source !== undefined && o.model === 'replay' ? { ...o, model: source.model.backend, modelArgs: source.model.args as ModelArgs } : o;

  let recorder: RunRecorder;
  let runId: string;
  let instances: InstanceRow[];
  if (o.resume) {
    recorder = await RunRecorder.resume(o.store);
    runId = recorder.runId;
    instances = built.flatMap((t) => t.docs.flatMap((d) => instanceRows(d, runId)));
    try {
      checkSameConfig(recorder.recording.config, resumeConfig(o, fingerprintInstances(runId) ?? instances), o.store);
    } catch (error) {
      await recorder.close();
      throw error;
    }
  } else {
    runId = `run-${dateId(date)}-${randomBytes(3).toString('hex')}`;
    instances = built.flatMap((t) => t.docs.flatMap((d) => instanceRows(d, runId)));
    const facts = runFacts(asRun, runId, description, built, chatTemplate, seeds, settings, lm.capabilities.maxLength);
    const manifest: StoreManifest = { schema_version: SCHEMA_VERSION, created_by: `lmaudit ${facts.lmauditVersion} run`, runs: [provenanceOf(runProvenance(facts, null, null, null, []))] };
    recorder = await RunRecorder.start(o.store, { manifest, instances, expectedResponses: expected(built), config: resumeConfig(o, fingerprintInstances(runId) ?? instances) });
  }
  const facts = runFacts(asRun, runId, description, built, chatTemplate, seeds, settings, lm.capabilities.maxLength);
  const stopRecording = events.on(async (e) => {
    if (e.kind === 'responses') await recorder.append(e.rows);
  });
  const heldBefore = recorder.held.size;
  let inferenceMs = 0;
  let sent = 0;
  try {
    const plan = planWork(built, settings, recorder.held);
    await events.emit({ kind: 'planned', tasks: built.map((t) => t.config.task), totals: plan.totals, held: plan.held, store: o.store });
    // An API backend keeps num_concurrent requests in flight only when handed enough at once.
    const size = Math.max(1, o.batchSize, lm.preferredBatchSize ?? 0);
    // A batch's part is written while the next batch is computed: the write costs no wall time
    // beside inference, and a kill loses at most the batch in flight and the part being written.
    let writing: Promise<void> | null = null;
    for (let i = 0; i < plan.items.length; ) {
      const first = plan.items[i]!;
      const batch: WorkItem[] = [];
      while (i < plan.items.length && batch.length < size && plan.items[i]!.requestType === first.requestType && plan.items[i]!.task === first.task) batch.push(plan.items[i++]!);
      await events.emit({ kind: 'batch', requestType: first.requestType, task: first.task, requests: batch.length });
      const t0 = performance.now();
      const inference = sendBatch(lm, batch, runId).then(
        (outcome) => ({ ...outcome, ms: performance.now() - t0 }),
        (error: unknown) => ({ rows: [], exchanges: [], error, ms: 0 }),
      );
      if (writing !== null) {
        const previous = writing;
        writing = null;
        await previous;
      }
      const result = await inference;
      await recorder.appendExchanges(result.exchanges);
      if (result.error !== undefined) {
        // What the failed batch did answer is kept: --resume sends only the rest.
        if (result.rows.length > 0) await events.emit({ kind: 'responses', requestType: first.requestType, task: first.task, rows: result.rows, inferenceMs: result.ms });
        const message = (result.error as Error).message;
        await events.emit({ kind: 'failed', message });
        throw new BackendFailed(o.store, message, recorder.held.size, expected(built), result.error);
      }
      inferenceMs += result.ms;
      sent += batch.length;
      writing = events.emit({ kind: 'responses', requestType: first.requestType, task: first.task, rows: result.rows, inferenceMs: result.ms });
      // A rejected write is awaited before the next batch goes out (not left unhandled).
      writing.catch(() => undefined);
    }
    if (writing !== null) await writing;
  } catch (error) {
    stopRecording();
    await recorder.close();
    throw error;
  }
  stopRecording();

  const counters = (await lm.counters?.()) ?? {};
  await events.emit({ kind: 'scoring' });
  const responses = await readResponses(o.store, recorder);
  const byKey = new Map(responses.map((r) => [responseKey(r), r]));
  const scores = built.map((t) => scoreTask(t, runId, byKey, Math.max(1, t.config.repeats), o.predictOnly ?? false));
  const groupScores = groupResults(groups, scores, leafTasks);
  const observed = observations(built, responses);
  const wallMs = performance.now() - startedAt;
  const lmevalFiles = o.outputPath === null ? [] : await writeLmevalFiles({
    outputPath: o.outputPath, date, model: o.model, modelArgs: redactedArgs(o.modelArgs) as ModelArgs, batchSize: o.batchSize, batchSizeText: o.batchSizeText, limit: o.limit, genKwargs: o.genKwargs, seeds,
    tasks: built, scores, groups: groupScores, systemInstruction: o.systemInstruction, fewshotAsMultiturn: o.fewshotAsMultiturn, chatTemplate: chatTemplate?.source ?? null, tokenizerInfo: description.tokenizerInfo,
    maxLength: lm.capabilities.maxLength, lmauditVersion: facts.lmauditVersion, totalSeconds: wallMs / 1000,
  });
  const records: SourceFile[] = [];
  for (const [i, path] of lmevalFiles.entries()) records.push({ path, sha256: await sha256File(path), role: i === 0 ? 'lm-eval results' : 'lm-eval samples' });
  // Described again: what a server changed (another model, max_tokens) is known only after its answers.
  const manifest: StoreManifest = { schema_version: SCHEMA_VERSION, created_by: `lmaudit ${facts.lmauditVersion} run`, runs: [provenanceOf(runProvenance({ ...facts, description: lm.describe() }, observed, scores, { wallMs, inferenceMs, counters }, records, groupScores))] };
  const text = new Map(responses.filter((r) => r.repeat === 0).map((r) => [`${r.task}\u0000${r.doc_id}\u0000${r.request_idx}`, r.text]));
  const finalInstances = instances.map((r) => ({ ...r, response_text: text.get(`${r.task}\u0000${r.doc_id}\u0000${r.request_idx}`) ?? null }));
  try {
    await recorder.finish({ manifest, instances: finalInstances as InstanceRow[], scores: { rows: scores.flatMap((s) => s.scores) }, filtered: { rows: scores.flatMap((s) => s.filtered) } });
  } finally {
    await recorder.close();
  }
  const totalMs = performance.now() - startedAt;
  await events.emit({ kind: 'finished', wallMs: totalMs, inferenceMs });
  return { store: o.store, tasks: built, scores, groups: groupScores, lmevalFiles, sent, heldBefore, wallMs: totalMs, inferenceMs, counters, shard: cut, replay: coverage === null ? null : { requests: coverage.requests, missing: coverage.missing } };
}

function expected(built: readonly BuiltTask[]): number {
  return built.reduce((n, t) => n + t.docs.reduce((m, d) => m + d.arguments.length, 0) * Math.max(1, t.config.repeats), 0);
}

function runFacts(o: RunOptions, runId: string, description: RunFacts['description'], built: BuiltTask[], chatTemplate: ChatTemplate | null, seeds: Seeds, settings: Map<string, GenerationSettings>, maxLength: number): RunFacts {
  return {
    runId, label: `${o.model} ${o.tasks.join(',')}`, model: o.model, modelArgs: o.modelArgs, batchSize: o.batchSize, description, tasks: built, chatTemplate,
    applyChatTemplate: o.applyChatTemplate, fewshotAsMultiturn: o.fewshotAsMultiturn, systemInstruction: o.systemInstruction, genKwargs: o.genKwargs,
    numFewshot: o.numFewshot, limit: o.limit, seeds, lmauditVersion: lmauditVersion(), settings, maxLength, predictOnly: o.predictOnly ?? false,
  };
}

function checkCapabilities(lm: LanguageModel, built: readonly BuiltTask[]): void {
  for (const t of built) {
    const gen = t.config.output_type === 'generate_until';
    if (gen && !lm.capabilities.generation) throw new BadInputError(`task '${t.config.task}' generates text; the --model backend cannot`);
    if (!gen && !lm.capabilities.logprobs) throw new BadInputError(`task '${t.config.task}' needs log-probabilities; the --model backend gives none`);
  }
}

/** Settings recorded only when given: a resume that leaves one out changes the run too. */
const RECORDED_WHEN_GIVEN = ['--shard', '--allow-missing'];

function checkSameConfig(stored: Record<string, unknown>, now: Record<string, string>, store: string): void {
  const settings = [...Object.keys(now), ...RECORDED_WHEN_GIVEN.filter((k) => stored[k] !== undefined && now[k] === undefined)];
  for (const setting of settings) {
    const value = now[setting];
    if (stored[setting] !== value) {
      const was = stored[setting] === undefined ? '(not recorded)' : String(stored[setting]);
      throw new BadInputError(`--resume ${store}: ${setting} changed (the run was started with ${was}, now ${value ?? '(not given)'}); resume with the same settings, or start a new store`);
    }
  }
}

function observations(built: readonly BuiltTask[], responses: readonly RecordedResponse[]): Map<string, TaskObservations> {
  const out = new Map<string, TaskObservations>();
  for (const t of built) out.set(t.config.task, { stopUsed: [], settingsSent: [], truncatedRequests: 0, truncatedTokens: 0, emptyAnswers: 0, errors: 0 });
  for (const r of responses) {
    const o = out.get(r.task);
    if (o === undefined) continue;
    if (r.error !== null) o.errors++;
    if (r.text === '') o.emptyAnswers++;
    if (r.stop_used) o.stopUsed.push(r.stop_used);
    if (r.truncated_tokens) {
      o.truncatedRequests++;
      o.truncatedTokens += r.truncated_tokens;
    }
  }
  return out;
}

/** The backend failed mid-run: the responses so far are in the store, and `--resume` continues. */
class BackendFailed extends BackendError {
  constructor(store: string, message: string, held: number, total: number, cause: unknown) {
    super(`the backend failed: ${message}\n${held.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} responses are stored in ${store}; \`lmaudit run … --resume ${store}\` continues the run`, { cause });
  }
}
