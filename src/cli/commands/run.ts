/**
 * `lmaudit run`: lm-eval's command line (same flag names and meanings) on lmaudit's
 * backends, writing a store through the run recorder and, with --output_path, lm-eval's
 * own results and samples files. The store goes to --out, else to
 * <output_path>/<model_name_sanitized>/store_<date_id>; --resume <store> continues an
 * unfinished one.
 */
import type { Command } from 'commander';
import { BadInputError, UnknownNameError } from '../../errors.ts';
import type { ModelArgs } from '../../models/lm.ts';
import { ProgressState, RunEvents, formatDuration, progressLine } from '../../run/events.ts';
import { resultsTable } from '../../run/resultsTable.ts';
import { checkLmevalFilesPath } from '../../run/lmevalFiles.ts';
import { executeRun, type RunOptions, type RunSummary } from '../../run/runner.ts';
import { executeGrid, GRID_AXES, loadGridFile, parseGridFlags, type GridAxis } from '../../run/grid.ts';
import { parseBool, parseCount, parseKeyValueArgs, parseNumber } from '../keyValueArgs.ts';
import { parseShard } from '../../run/shard.ts';
import { backendNames } from '../../models/registry.ts';
import { printJson, printLines } from '../output.ts';
import { addLmevalFlags, lmauditBackend, lmevalFlagEffects, type LmevalFlags } from '../lmevalFlags.ts';
import { taskCatalogue } from './tasks.ts';
import { storeLocation } from '../runStoreLocation.ts';

interface RunFlags extends LmevalFlags {
  model?: string;
  model_args?: string[];
  tasks?: string[];
  include_path?: string[];
  num_fewshot?: string;
  batch_size: string;
  limit?: string;
  apply_chat_template?: string | boolean;
  fewshot_as_multiturn?: string | boolean;
  system_instruction?: string;
  gen_kwargs?: string[];
  seed?: string;
  output_path?: string;
  out?: string;
  resume?: string;
  grid: string[];
  shard?: string;
  allowMissing?: boolean;
  json: boolean;
}


function batchSize(text: string): number {
  // lm-eval's "auto" probes the largest batch that fits a GPU; lmaudit's backends take 1 for it.
  if (text === 'auto' || text.startsWith('auto:')) return 1;
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1) throw new BadInputError(`--batch_size takes a positive integer or auto, got '${text}'`);
  return n;
}

/** lm-eval's MergeDictAction: `--model_args a=1,b=2` or `--model_args a=1 b=2`, the pieces merged in order. */
function mergedKeyValues(pieces: readonly string[] | undefined, flag: string): Record<string, unknown> | null {
  if (pieces === undefined) return null;
  return Object.assign({}, ...pieces.map((p) => parseKeyValueArgs(p, flag))) as Record<string, unknown>;
}

function modelArgs(pieces: readonly string[] | undefined): ModelArgs {
  const parsed = mergedKeyValues(pieces, '--model_args') ?? {};
  const out: ModelArgs = {};
  for (const [k, v] of Object.entries(parsed)) {
    const plain = v !== null && typeof v === 'object' && 'value' in v ? (v as { value: number }).value : v;
    if (plain !== null && !['string', 'number', 'boolean'].includes(typeof plain)) throw new BadInputError(`--model_args: ${k} must be a string, number or boolean`);
    out[k] = plain as ModelArgs[string];
  }
  return out;
}

export function registerRun(program: Command): void {
  const command = program
    .command('run')
    .description('Run lm-eval-compatible tasks against a backend; store every request, response and the settings used')
    .option('-M, --model <backend>', `backend name (${backendNames().join(', ')}; lm-eval's local-completions and local-chat-completions are openai-completions and openai-chat; replay answers from a stored run: --model_args store=<dir>)`)
    .option('-a, --model_args <args...>', 'backend arguments, k=v,... or a JSON object (values typed as lm-eval types them; several pieces are merged)')
    .option('-t, --tasks <names...>', 'task, group or tag names or task YAML paths, comma- or space-separated; `list` lists them (as `lmaudit tasks`)')
    .option('--include_path <dir...>', 'extra task folders (override the shipped ones)')
    .option('-f, --num_fewshot <n>', 'few-shot examples per prompt (a YAML num_fewshot of 0 wins, as in lm-eval)')
    .option('-b, --batch_size <n>', 'requests per backend call (auto: 1)', '1')
    .option('-L, --limit <n>', 'first N documents of each task (a fraction below 1 takes that share)')
    .option('--apply_chat_template [template]', "render with a chat template: the model's own, or a tokenizer_config.json / template file / llama3 / qwen3")
    .option('--fewshot_as_multiturn [bool]', 'few-shot examples as chat turns (bare: true; default true with a chat template)')
    .option('--system_instruction <text>', 'system instruction placed before the description')
    .option('--gen_kwargs <pairs...>', 'generation kwargs merged into the task’s (k=v,... or a JSON object)')
    .option('--seed <seeds>', "lm-eval's --seed: one value or random,numpy,torch[,fewshot]", '0,1234,1234,1234')
    .option('-o, --output_path <dir>', "write lm-eval's results_<ts>.json and samples_<task>_<ts>.jsonl under <dir>/<model>/")
    .option('--out <store>', 'the run store folder (default: <output_path>/<model>/store_<ts>)')
    .option('--resume <store>', 'continue the unfinished run in <store>: send only the requests without a response (with --grid: the unfinished grid, its finished cells reused)')
    .option('--grid <axis=values|file.yaml>', `a configuration grid, one run per cell into one store (repeatable; axes: ${Object.keys(GRID_AXES).join(', ')}), or a YAML file naming the axes (audits/grids/)`, (v: string, all: string[]) => [...all, v], [] as string[])
    .option('--shard <i/N>', 'run shard i of N (counted from 0): whole documents, balanced by prompt length; `lmaudit merge` joins the shard stores')
    .option('--allow-missing', 'with --model replay: leave out the documents the store does not answer (listed in the provenance) instead of refusing')
    .option('--json', 'print a JSON summary', false);
  addLmevalFlags(command).action(async (flags: RunFlags) => {
      const tasks = (flags.tasks ?? []).flatMap((t) => t.split(',')).map((s) => s.trim()).filter(Boolean);
      if (tasks.length === 1 && tasks[0] === 'list') {
        const catalogue = taskCatalogue(flags.include_path ?? []);
        return flags.json ? printJson(catalogue.json) : printLines(catalogue.lines);
      }
      if (flags.model === undefined) throw new BadInputError("lmaudit run needs --model <backend> (one of " + backendNames().join(', ') + ')');
      if (tasks.length === 0) throw new BadInputError('lmaudit run needs --tasks <names> (`lmaudit tasks` lists them)');
      const date = new Date();
      const args = modelArgs(flags.model_args);
      const model = lmauditBackend(flags.model, args);
      const lmeval = lmevalFlagEffects(flags, model);
      if (flags.output_path !== undefined) await checkLmevalFilesPath(flags.output_path);
      const location = storeLocation(flags, model, args, date);
      if (location.replayFrom !== null) process.stderr.write(`lmaudit run: --use_cache ${location.replayFrom} holds a finished run: its answers are replayed (--model replay), none is sent to a model\n`);
      const options: RunOptions = {
        ...(location.replayFrom === null ? { model, modelArgs: args } : { model: 'replay', modelArgs: { store: location.replayFrom } }),
        tasks,
        includePaths: flags.include_path,
        numFewshot: parseCount(flags.num_fewshot, '--num_fewshot'),
        batchSize: batchSize(flags.batch_size),
        batchSizeText: flags.batch_size,
        limit: parseNumber(flags.limit, '--limit'),
        applyChatTemplate: flags.apply_chat_template ?? null,
        fewshotAsMultiturn: parseBool(flags.fewshot_as_multiturn, '--fewshot_as_multiturn'),
        systemInstruction: flags.system_instruction ?? null,
        genKwargs: mergedKeyValues(flags.gen_kwargs, '--gen_kwargs'),
        seed: flags.seed ?? null,
        store: location.store,
        resume: location.resume,
        outputPath: flags.output_path ?? null,
        date,
        shard: flags.shard === undefined ? null : parseShard(flags.shard),
        allowMissing: flags.allowMissing === true,
        predictOnly: flags.predict_only === true,
        ...(lmeval.notes.length > 0 && { notes: lmeval.notes }),
      };
      for (const w of lmeval.warnings) process.stderr.write(`lmaudit run: ${w}\n`);
      if (options.allowMissing && options.model !== 'replay') throw new BadInputError('--allow-missing goes with --model replay (a model answers every request)');
      if (options.shard && flags.grid.length > 0) throw new BadInputError('--shard and --grid do not combine (shard each cell as a run of its own)');
      const events = new RunEvents();
      const stopView = await attachProgress(events);
      // Ctrl-C: every part already written is whole (written under a temporary name, then renamed),
      // so the process may stop at once; the view is taken down first so the terminal is left clean.
      const onInterrupt = () => {
        void stopView().finally(() => {
          const where = flags.grid.length > 0 ? `${options.store}.grid-cells` : options.store;
          process.stderr.write(`lmaudit run: interrupted; the responses recorded so far are in ${where}; \`lmaudit run … --resume ${options.store}\` continues the ${flags.grid.length > 0 ? 'grid (the same --grid and flags)' : 'run'}\n`);
          process.exit(130);
        });
      };
      process.once('SIGINT', onInterrupt);
      let summary: RunSummary;
      try {
        if (flags.grid.length > 0) return await runGrid(options, flags, events);
        summary = await executeRun(options, events);
      } catch (error) {
        // The registries name the kind of thing; the user needs the flag that named it.
        if (error instanceof UnknownNameError && error.kind === 'task') throw new BadInputError(`--tasks: ${error.message}`);
        if (error instanceof UnknownNameError && error.kind === 'model backend') throw new BadInputError(`--model: ${error.message}`);
        throw error;
      } finally {
        process.off('SIGINT', onInterrupt);
        await stopView();
      }
      // Said on stderr as well, so that --json output does not hide it.
      for (const line of replayLines(summary).filter((l) => l.startsWith('WARNING'))) process.stderr.write(`lmaudit run: ${line}\n`);
      const overhead = summary.wallMs > 0 ? (summary.wallMs - summary.inferenceMs) / summary.wallMs : 0;
      if (flags.json) {
        return printJson({
          store: summary.store,
          lmeval_files: summary.lmevalFiles,
          sent: summary.sent,
          held_before: summary.heldBefore,
          wall_seconds: summary.wallMs / 1000,
          inference_seconds: summary.inferenceMs / 1000,
          harness_overhead: overhead,
          backend_counters: summary.counters,
          results: summary.scores.map((s) => ({ task: s.task, metrics: s.results })),
          ...(summary.shard !== null && { shard: { index: options.shard!.index, count: options.shard!.count, documents: summary.shard.documents, requests: summary.shard.requests, total_documents: summary.shard.totalDocuments, total_requests: summary.shard.totalRequests } }),
          ...(summary.replay !== null && { replay: { requests: summary.replay.requests, missing_requests: summary.replay.missing?.requests.length ?? 0, documents_left_out: Object.fromEntries(summary.replay.missing?.documents ?? []) } }),
          groups: summary.groups.filter((g) => g.results.length > 0).map((g) => ({ group: g.group, metrics: g.results })),
        });
      }
      if (flags.show_config) printJson(Object.fromEntries(summary.tasks.map((t) => [t.config.task, t.config])));
      printLines([
        ...resultsTable(summary.tasks, summary.scores, summary.groups),
        '',
        ...(summary.shard === null ? [] : [`Shard ${flags.shard}: ${summary.shard.documents} of ${summary.shard.totalDocuments} documents, ${summary.shard.requests} of ${summary.shard.totalRequests} requests (\`lmaudit merge <out> <shard stores…>\` joins the shards)`]),
        ...replayLines(summary),
        // A replayed run sends nothing to a model: its requests were answered from the replayed store (said above).
        `Store: ${summary.store} (${summary.sent} request(s) ${summary.replay === null ? 'sent' : 'answered by replay'} this time${summary.heldBefore > 0 ? `, ${summary.heldBefore} response(s) already held` : ''})`,
        ...summary.lmevalFiles.map((f) => `lm-eval file: ${f}`),
        `Time: ${(summary.inferenceMs / 1000).toFixed(2)} s in inference calls of ${(summary.wallMs / 1000).toFixed(2)} s wall; harness overhead ${(overhead * 100).toFixed(1)}%`,
      ]);
    });
}

/** What a replayed run says about itself; said loudly when documents were left out. */
function replayLines(summary: RunSummary): string[] {
  if (summary.replay === null) return [];
  const missing = summary.replay.missing;
  const lines = [`Replayed: ${summary.sent} request(s) answered from the store this time, none sent to a model`];
  if (missing !== null) {
    const docs = [...missing.documents].map(([task, ids]) => `${task}: ${ids.length} (doc ${ids.slice(0, 10).join(', ')}${ids.length > 10 ? ', …' : ''})`);
    lines.push(`WARNING --allow-missing: ${missing.requests.length} request(s) had no recorded answer; their documents were left out of the results (${docs.join('; ')}), as the store's provenance notes say`);
  }
  return lines;
}

async function runGrid(options: RunOptions, flags: RunFlags, events: RunEvents): Promise<void> {
  const files = flags.grid.filter((g) => /\.ya?ml$/i.test(g) && !g.includes('='));
  const axes: GridAxis[] = [...parseGridFlags(flags.grid.filter((g) => !files.includes(g)))];
  for (const f of files) axes.push(...(await loadGridFile(f)));
  const grid = await executeGrid(options, axes, events);
  const { requests } = grid.record;
  if (flags.json) {
    printJson({
      store: grid.store,
      grid: grid.record,
      cells: grid.cells.map((c, i) => ({ run_id: grid.record.cells[i]!.run_id, settings: c.settings, sent: c.summary.sent, reused: c.reused, results: c.summary.scores.map((s) => ({ task: s.task, metrics: s.results })) })),
    });
    return;
  }
  printLines([
    ...grid.cells.flatMap((c) => [`cell ${Object.entries(c.settings).map(([k, v]) => `${k}=${v}`).join(' ')}:`, ...resultsTable(c.summary.tasks, c.summary.scores, c.summary.groups), '']),
    `Store: ${grid.store} (${grid.cells.length} runs, one per cell; axes ${grid.record.axes.map((a) => `${a.name}=${a.values.join(',')}`).join(' × ')})`,
    ...(grid.record.resumes ?? []).map((r, i, all) => `Resumed: ${resumeText(r, grid.cells.map((c) => c.settings), i === all.length - 1)}`),
    `Requests: ${requests.total} asked by the cells, ${requests.sent} sent to the model, ${requests.shared} answered from an identical request of an earlier cell (recorded as from_cache)`,
    `The table across them: lmaudit table ${grid.store}`,
  ]);
}

/**
 * What one --resume of a grid found and did, cell by cell (named by their settings, as they are
 * printed); only the last one, which finished the grid, ran every other cell.
 */
function resumeText(r: { reused: number[]; continued: number | null; held: number }, cells: Record<string, string>[], last: boolean): string {
  const name = (i: number) => `[${Object.entries(cells[i]!).map(([k, v]) => `${k}=${v}`).join(' ')}]`;
  const list = (xs: number[]) => xs.map(name).join(', ');
  const ran = [...cells.keys()].filter((i) => !r.reused.includes(i) && i !== r.continued);
  return [
    r.reused.length > 0 ? `${list(r.reused)} reused as they were (no model call)` : 'no cell had finished',
    ...(r.continued === null ? [] : [`${name(r.continued)} continued (${r.held} response(s) already held)`]),
    ...(last && ran.length > 0 ? [`${list(ran)} run afresh`] : []),
  ].join('; ');
}

/** The live view: ink when stderr is a terminal, plain periodic lines otherwise (never escape codes into a log). */
async function attachProgress(events: RunEvents): Promise<() => Promise<void>> {
  const state = new ProgressState();
  events.on((e) => state.update(e));
  if (process.stderr.isTTY && !process.env.LMAUDIT_PLAIN_PROGRESS) {
    const { showProgress } = await import('../../tui/progressView.ts');
    return showProgress(state, events);
  }
  const every = Number(process.env.LMAUDIT_PROGRESS_SECONDS ?? 10) * 1000;
  let last = 0;
  const stop = events.on((e) => {
    if (e.kind === 'planned') {
      process.stderr.write(`lmaudit run: ${state.doneAll}/${state.totalAll} responses held in ${e.store}; sending the rest\n`);
      last = performance.now();
    } else if (e.kind === 'responses' && performance.now() - last >= every) {
      last = performance.now();
      process.stderr.write(`lmaudit run: ${progressLine(state)}\n`);
    } else if (e.kind === 'scoring') {
      process.stderr.write(`lmaudit run: ${progressLine(state)}; scoring\n`);
    } else if (e.kind === 'failed') {
      process.stderr.write(`lmaudit run: request failed: ${e.message}\n`);
    } else if (e.kind === 'finished') {
      process.stderr.write(`lmaudit run: finished in ${formatDuration(e.wallMs / 1000)}\n`);
    }
  });
  return async () => stop();
}
