/**
 * Builds every request of a task without a model, as lm-eval's `build_all_requests`
 * does: eval docs in dataset order, one few-shot RNG per task advanced doc by doc,
 * `fewshot_context` then `construct_requests` (lmeval-prompts.md §1, §7, §8).
 */
import { hash, randomInt } from 'node:crypto';
import { dirname } from 'node:path';
import { BadInputError } from '../errors.ts';
import { loadSplit, type Doc } from '../data/datasets.ts';
import { dumpsPyIndent2 } from '../py/json.ts';
import { resolveFunction } from '../tasks/functions.ts';
import { fieldLocation } from '../tasks/include.ts';
import type { TaskConfig } from '../tasks/config.ts';
import { FunctionRef } from '../tasks/yaml.ts';
import type { ChatTemplate } from './chatTemplate.ts';
import { PromptShapeError, buildQaTurn, endsWithWhitespace, maybeDelimit, messagesToText, multiturnToSingleturn, toChat, truthy, type Message } from './context.ts';
import { TaskFields } from './fields.ts';
import { pythonStr } from './jinja/index.ts';
import { PyRandom } from '../py/random.ts';
import { makeSampler, type Sampler } from './samplers.ts';

export type RequestType = 'loglikelihood' | 'loglikelihood_rolling' | 'generate_until';

export interface BuildOptions {
  /** Task roots, for `!function` keys. */
  roots: readonly string[];
  numFewshot?: number | null;
  /** Docs to build: a count, or a fraction below 1 (`ceil(n * limit)`). */
  limit?: number | null;
  chatTemplate?: ChatTemplate | null;
  /** Defaults to true with a chat template, as lm-eval's CLI. */
  fewshotAsMultiturn?: boolean | null;
  systemInstruction?: string | null;
  /** lm-eval's fewshot_random_seed (default 1234); null means OS entropy, as `Random(None)`. */
  fewshotSeed?: number | null;
  /** `--gen_kwargs`, merged into generation_kwargs. */
  genKwargs?: Record<string, unknown> | null;
}

export interface DocRequests {
  task: string;
  doc_id: number;
  doc: Doc;
  target: unknown;
  request_type: RequestType;
  /** One argument tuple per Instance, in idx order. */
  arguments: unknown[][];
  doc_hash: string;
  prompt_hash: string;
  /** Positions of the few-shot examples in the few-shot pool, in prompt order. */
  fewshot_doc_ids: number[];
  /** The system message placed before the prompt (system instruction + description), or null; for provenance. */
  system_message: string | null;
  /** The target delimiter the continuations carry (chat templates change it), for multiple_choice; else null. */
  target_delimiter_used: string | null;
  /** doc_to_choice(doc), for scoring (acc_norm measures these); null without doc_to_choice. */
  choices: unknown[] | null;
  /** What process_results compares against: doc_to_text(doc) for a multiple-input task (its int gold), else doc_to_target(doc). */
  gold: unknown;
}

export interface BuiltTask {
  config: TaskConfig;
  numFewshot: number;
  fewshotAsMultiturn: boolean;
  evalDocCount: number;
  docs: DocRequests[];
}

/** Python `str()` of a document value. */
export const pyStrOf = (v: unknown): string => (typeof v === 'string' ? v : pythonStr(v));

/** sha256 hex of the UTF-8 text (one-shot `crypto.hash`: no Hash object per call). */
const sha256Hex = (text: string): string => hash('sha256', text, 'hex');

/** `doc_hash`: sha256 of `json.dumps(doc, indent=2, ensure_ascii=False)`. */
export function docHash(doc: Doc): string {
  return sha256Hex(dumpsPyIndent2(doc));
}

async function processed(config: TaskConfig, ref: FunctionRef | null, docs: Doc[], roots: readonly string[], field: string): Promise<Doc[]> {
  if (ref === null) return docs;
  const fn = resolveFunction(ref, roots, config.task, field);
  if (fn.kind !== 'process_docs') throw new BadInputError(`task '${config.task}': !function ${ref.name} is not a process_docs function`, fieldLocation(config.source, field));
  return fn.fn(docs);
}

async function split(config: TaskConfig, name: string): Promise<Doc[]> {
  try {
    return await loadSplit({ path: config.dataset_path, name: config.dataset_name, kwargs: config.dataset_kwargs }, name, dirname(config.source));
  } catch (error) {
    if (error instanceof BadInputError && error.where.file === undefined) {
      throw new BadInputError(`task '${config.task}': ${error.detail}`, error.where.field === undefined ? { file: config.source } : fieldLocation(config.source, error.where.field));
    }
    throw error;
  }
}

export async function loadEvalDocs(config: TaskConfig, roots: readonly string[]): Promise<Doc[]> {
  const name = config.test_split ?? config.validation_split;
  if (name === null) throw new BadInputError(`task '${config.task}' has neither test_split nor validation_split`, fieldLocation(config.source, 'test_split'));
  return processed(config, config.process_docs, await split(config, name), roots, 'process_docs');
}

async function fewshotPool(config: TaskConfig, roots: readonly string[]): Promise<Doc[]> {
  const fs = config.fewshot_config;
  if (fs.split !== null) return processed(config, fs.process_docs, await split(config, fs.split), roots, 'fewshot_config.process_docs');
  if (fs.samples !== null) {
    if (fs.samples instanceof FunctionRef) throw new BadInputError(`task '${config.task}': callable fewshot_config.samples are not supported`, fieldLocation(config.source, 'fewshot_config.samples'));
    return fs.samples;
  }
  for (const name of [config.training_split, config.validation_split, config.test_split]) {
    if (name !== null) return processed(config, config.process_docs, await split(config, name), roots, 'process_docs');
  }
  throw new BadInputError(`task '${config.task}' has no split to draw few-shot examples from`, fieldLocation(config.source, 'fewshot_split'));
}

export async function buildTask(config: TaskConfig, options: BuildOptions): Promise<BuiltTask> {
  const evalDocs = await loadEvalDocs(config, options.roots);
  const features = new Set(evalDocs.length > 0 ? Object.keys(evalDocs[0]!) : []);
  const fields = new TaskFields(config, features, options.roots);

  // lm-eval probes the first eval doc: an int from doc_to_text means one context per choice.
  let multipleInput = false;
  if (evalDocs.length > 0 && config.doc_to_choice !== null) {
    fields.docId = 0;
    const probe = fields.docToText(evalDocs[0]!);
    if (typeof probe === 'number') {
      fields.docToChoice(evalDocs[0]!);
      multipleInput = true;
    }
  }

  const numFewshot = config.num_fewshot === 0 ? 0 : (options.numFewshot ?? config.num_fewshot ?? 0);
  const chat = options.chatTemplate ?? null;
  if (options.fewshotAsMultiturn === true && chat === null) throw new BadInputError('--fewshot_as_multiturn true needs --apply_chat_template');
  const multiturn = chat !== null && options.fewshotAsMultiturn !== false;
  const genKwargs = config.generation_kwargs === null ? null : { ...config.generation_kwargs, ...(options.genKwargs ?? {}) };

  let sampler: Sampler | null = null;
  const poolIndex = new Map<Doc, number>();
  if (numFewshot > 0) {
    const seed = options.fewshotSeed === undefined ? 1234 : options.fewshotSeed;
    const rnd = new PyRandom(seed === null ? randomInt(2 ** 47) : seed);
    const pool = await fewshotPool(config, options.roots);
    pool.forEach((d, i) => poolIndex.set(d, i));
    sampler = makeSampler(config.fewshot_config.sampler, pool, rnd, config.task);
  }
  const passEvalDoc = config.fewshot_config.split === config.test_split;
  const fs = config.fewshot_config;

  // evaluator_utils.get_sample_size: ceil(len × limit) below 1, else int(limit) (1.5 takes one document).
  let limit = evalDocs.length;
  if (options.limit !== null && options.limit !== undefined) limit = options.limit < 1 ? Math.ceil(evalDocs.length * options.limit) : Math.min(Math.trunc(options.limit), evalDocs.length);
  // lm-eval stops there too (ValueError: task.build_requests() did not find any docs!), rather than write empty results.
  if (limit <= 0) throw new BadInputError(`task '${config.task}': no documents to evaluate (${evalDocs.length === 0 ? 'its evaluation split is empty' : `--limit ${options.limit} selects none of ${evalDocs.length}`}); lm-eval refuses such a run (task.build_requests() did not find any docs)`, { field: '--limit' });

  const render = (messages: Message[], genPrefix: unknown): string => {
    if (chat === null) return messagesToText(messages);
    return chat.render(multiturn ? toChat(messages) : multiturnToSingleturn(messages), !genPrefix);
  };

  const shotTurns = new WeakMap<Doc, Message[]>();
  const docs: DocRequests[] = [];
  for (let docId = 0; docId < limit; docId++) {
    const doc = evalDocs[docId]!;
    fields.docId = docId;
    try {
      docs.push(buildDoc(doc, docId));
    } catch (error) {
      if (error instanceof PromptShapeError) throw new BadInputError(`task '${config.task}', doc ${docId}: ${error.message}`, { file: config.source });
      throw error;
    }
  }

  function shotTurn(shot: Doc): Message[] {
    let q = fields.docToText(shot, fs.doc_to_text, 'fewshot_config.doc_to_text');
    let c: unknown[] | null = truthy(fs.doc_to_choice) ? fields.docToChoice(shot, fs.doc_to_choice, 'fewshot_config.doc_to_choice') : null;
    const a = fields.docToTarget(shot, fs.doc_to_target, 'fewshot_config.doc_to_target');
    const gp = fields.resolveField(shot, fs.gen_prefix, 'fewshot_config.gen_prefix');
    if (multipleInput) {
      q = c!.at(q as number);
      c = null;
    }
    return buildQaTurn({ q, c, a, genPrefix: gp === null ? null : pyStrOf(gp), tgtDelim: fs.target_delimiter, fewDelim: fs.fewshot_delimiter, pyStr: pyStrOf });
  }

  function buildDoc(doc: Doc, docId: number): DocRequests {
    const genPrefixRaw = fields.docToPrefix(doc);
    const genPrefix = genPrefixRaw === null || genPrefixRaw === undefined ? null : pyStrOf(genPrefixRaw);
    const description = pyStrOrEmpty(fields.resolveField(doc, config.description, 'description'));
    const systemPrompt = maybeDelimit(options.systemInstruction ?? null, description, config.fewshot_delimiter);
    const shotIds: number[] = [];
    const messages: Message[] = systemPrompt ? [{ role: 'system', content: systemPrompt, delimiter: '' }] : [];
    if (sampler !== null) {
      for (const shot of sampler.sample(numFewshot, passEvalDoc ? doc : null)) {
        shotIds.push(poolIndex.get(shot) ?? -1);
        // A shot's turn depends only on the shot doc, so each pool doc is rendered once.
        let turn = shotTurns.get(shot);
        if (turn === undefined) shotTurns.set(shot, (turn = shotTurn(shot)));
        messages.push(...turn);
      }
    }
    const q = fields.docToText(doc);
    const choices = truthy(config.doc_to_choice) ? fields.docToChoice(doc) : null;
    const target = fields.docToTarget(doc);
    let ctx: string | string[];
    if (multipleInput) {
      ctx = choices!.map((choice) => render([...messages, ...buildQaTurn({ q: choice, genPrefix, tgtDelim: '', pyStr: pyStrOf })], genPrefix));
    } else {
      messages.push(...buildQaTurn({ q, c: choices, genPrefix, tgtDelim: config.target_delimiter, fewDelim: '', pyStr: pyStrOf }));
      ctx = render(messages, genPrefix);
    }
    const args = constructRequests(ctx, choices, target);
    // API chat contexts are `JsonChatStr` tuples; the hash is of the JSON text inside.
    const first = args[0]?.[0];
    const hashed = chat?.kind === 'api' && Array.isArray(first) ? first[0] : first;
    return {
      task: config.task,
      doc_id: docId,
      doc,
      target,
      request_type: config.output_type === 'multiple_choice' ? 'loglikelihood' : config.output_type,
      arguments: args,
      doc_hash: docHash(doc),
      prompt_hash: sha256Hex(pyStrOf(hashed ?? '')),
      fewshot_doc_ids: shotIds,
      system_message: systemPrompt || null,
      target_delimiter_used: config.output_type === 'multiple_choice' ? mcDelimiter() : null,
      choices,
      gold: multipleInput ? q : target,
    };
  }

  /** lm-eval drops the delimiter under a chat template unless a gen_prefix without trailing whitespace needs it. */
  function mcDelimiter(): string {
    if (chat === null) return config.target_delimiter;
    return config.gen_prefix && !endsWithWhitespace(config.gen_prefix) ? config.target_delimiter : '';
  }

  function constructRequests(ctx: string | string[], choices: unknown[] | null, target: unknown): unknown[][] {
    switch (config.output_type) {
      case 'loglikelihood':
        return [[ctx, target]];
      case 'loglikelihood_rolling':
        return [[target]];
      case 'generate_until':
        return [[chat?.kind === 'api' ? [ctx] : ctx, deepCopy(genKwargs)]];
      case 'multiple_choice': {
        const delim = mcDelimiter();
        const args = multipleInput
          ? (ctx as string[]).map((c) => [c, `${delim}${pyStrOf(target)}`])
          : choices!.map((choice) => [ctx, `${delim}${pyStrOf(choice)}`]);
        if ((config.metric_list ?? []).some((m) => m.metric === 'acc_mutual_info')) args.push(...choices!.map((choice) => ['', `${delim}${pyStrOf(choice)}`]));
        return args;
      }
    }
  }

  return { config, numFewshot, fewshotAsMultiturn: multiturn, evalDocCount: evalDocs.length, docs };
}

function pyStrOrEmpty(v: unknown): string {
  if (v === null || v === undefined || v === '') return '';
  return pyStrOf(v);
}

/** `copy.deepcopy` of generation kwargs; keeps PyFloat instances (structuredClone would not). */
function deepCopy<T>(v: T): T {
  if (Array.isArray(v)) return v.map(deepCopy) as T;
  if (v !== null && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, deepCopy(x)])) as T;
  }
  return v;
}
