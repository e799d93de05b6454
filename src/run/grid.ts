/**
 * `lmaudit run --grid`: a configuration grid run into one store. Each cell (one value per axis) is a
 * run with its own provenance; the cells share one open backend, and a request identical to one an
 * earlier cell sent is answered from that response (sharedAnswers.ts), recorded as from_cache and
 * counted in the store's grid record. The cells are written through the run recorder into a
 * working folder beside the store (`<store>.grid-cells/<i>`, with the plan in grid.json), then
 * merged into the store in one atomic write; `--resume <store>` continues a grid that stopped.
 */
import { existsSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PROMPT_VARIANTS, type PromptVariantName } from '../audit/promptVariants.ts';
import { BackendError, BadInputError, nameHint } from '../errors.ts';
import { TRANSPORT_MODEL_ARGS } from '../models/lm.ts';
import { backendFactory } from '../models/registry.ts';
import { openReplay } from '../models/replay.ts';
import { queryRows } from '../util/duckdb.ts';
import { mergeStores } from '../store/mergeStores.ts';
import { checkWritableParent, makeFolders } from '../store/outputPath.ts';
import { openStore } from '../store/readStore.ts';
import { GridPlan, type GridRecord } from '../store/schema.ts';
import { RunEvents } from './events.ts';
import { configFingerprint, redactedArgs } from './provenance.ts';
import { executeRunOn, type RunOptions, type RunSummary } from './runner.ts';
import { parseSeed } from '../prompt/prompts.ts';
import { shareAnswers } from './sharedAnswers.ts';

type Axis = (o: RunOptions, value: string) => RunOptions;

const genKwarg = (o: RunOptions, key: string, value: unknown): RunOptions => ({ ...o, genKwargs: { ...(o.genKwargs ?? {}), [key]: value } });

function num(axis: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new BadInputError(`--grid ${axis}: '${value}' is not a number`, { field: '--grid' });
  return n;
}

/** A few-shot count: a whole number, as lm-eval's --num_fewshot (argparse int) takes it. */
function count(axis: string, value: string): number {
  if (!/^\d+$/.test(value.trim())) throw new BadInputError(`--grid ${axis}: '${value}' is not a whole number ≥ 0`, { field: '--grid' });
  return Number(value.trim());
}

function onOff(axis: string, value: string): boolean {
  if (/^(on|true|yes|1)$/i.test(value)) return true;
  if (/^(off|false|no|0)$/i.test(value)) return false;
  throw new BadInputError(`--grid ${axis}: '${value}' is neither on nor off`, { field: '--grid' });
}

/** Every run setting a grid can vary: what each value does to the run's options. */
export const GRID_AXES = {
  num_fewshot: (o, v) => ({ ...o, numFewshot: count('num_fewshot', v) }),
  reasoning: (o, v) => {
    if (!onOff('reasoning', v)) return o;
    const variant = PROMPT_VARIANTS.reasoning;
    return genKwarg({ ...o, systemInstruction: variant.system_instruction }, 'max_gen_toks', variant.max_gen_toks);
  },
  apply_chat_template: (o, v) => ({ ...o, applyChatTemplate: /^(on|true|yes|1)$/i.test(v) ? true : /^(off|false|no|0|none)$/i.test(v) ? null : v }),
  system_instruction: (o, v) => ({ ...o, systemInstruction: v === 'none' ? null : v }),
  max_gen_toks: (o, v) => genKwarg(o, 'max_gen_toks', num('max_gen_toks', v)),
  // One value is one stop list; '|' separates its sequences (',' separates the axis's values).
  until: (o, v) => genKwarg(o, 'until', v.split('|')),
  temperature: (o, v) => {
    const t = num('temperature', v);
    return genKwarg(genKwarg(o, 'temperature', t), 'do_sample', t > 0);
  },
  seed: (o, v) => ({ ...o, seed: v }),
} satisfies Record<string, Axis>;

export type GridAxisName = keyof typeof GRID_AXES;
export interface GridAxis {
  name: GridAxisName;
  values: string[];
}

function axis(name: string, values: string[], where: string): GridAxis {
  if (!Object.hasOwn(GRID_AXES, name)) throw new BadInputError(`${where}: unknown grid axis '${name}'.${nameHint(name, Object.keys(GRID_AXES))}`, { field: '--grid' });
  if (values.length === 0 || values.some((v) => v === '')) throw new BadInputError(`${where}: axis '${name}' needs values (k=v1,v2)`, { field: '--grid' });
  if (new Set(values).size !== values.length) throw new BadInputError(`${where}: axis '${name}' repeats a value`, { field: '--grid' });
  return { name: name as GridAxisName, values };
}

/** `--grid k=v1,v2` (repeatable). */
export function parseGridFlags(flags: readonly string[]): GridAxis[] {
  const axes = flags.map((f) => {
    const eq = f.indexOf('=');
    if (eq <= 0) throw new BadInputError(`--grid takes axis=value1,value2, got '${f}'`, { field: '--grid' });
    return axis(f.slice(0, eq).trim(), f.slice(eq + 1).split(',').map((s) => s.trim()), `--grid ${f}`);
  });
  const names = axes.map((a) => a.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice !== undefined) throw new BadInputError(`--grid: axis '${twice}' is given twice`, { field: '--grid' });
  return axes;
}

/** A grid file (e.g. audits/grids/*.yaml): `axes: {num_fewshot: [0, 5], reasoning: [off, on]}`. */
export async function loadGridFile(path: string): Promise<GridAxis[]> {
  const yaml = await import('js-yaml');
  let doc: unknown;
  try {
    doc = yaml.load(await readFile(path, 'utf8'));
  } catch (error) {
    throw new BadInputError(`cannot read the grid file (${(error as Error).message.split('\n')[0]})`, { file: path });
  }
  const axes = (doc as { axes?: unknown } | null)?.axes;
  if (axes === null || typeof axes !== 'object' || Array.isArray(axes)) throw new BadInputError('a grid file needs `axes:` mapping each axis to a list of values', { file: path, field: 'axes' });
  return Object.entries(axes as Record<string, unknown>).map(([name, values]) => {
    if (!Array.isArray(values)) throw new BadInputError(`axis '${name}' needs a list of values`, { file: path, field: `axes.${name}` });
    // YAML 1.1 reads off/on as booleans: they mean the same here.
    return axis(name, values.map((v) => (v === true ? 'on' : v === false ? 'off' : String(v))), path);
  });
}

/** Every combination, the first axis varying slowest. */
export function gridCells(axes: readonly GridAxis[]): Record<string, string>[] {
  return axes.reduce<Record<string, string>[]>((cells, a) => cells.flatMap((c) => a.values.map((v) => ({ ...c, [a.name]: v }))), [{}]);
}

export function cellOptions(base: RunOptions, cell: Record<string, string>, store: string): RunOptions {
  let o: RunOptions = { ...base, store, resume: false };
  for (const [name, value] of Object.entries(cell)) o = GRID_AXES[name as GridAxisName](o, value);
  return o;
}

export interface GridSummary {
  store: string;
  /** `reused`: finished before this resume; its summary re-read through a replay of its store (nothing sent). */
  cells: { settings: Record<string, string>; summary: RunSummary; reused: boolean }[];
  record: GridRecord;
}

const PLAN = 'grid.json';

/**
 * What each cell's values can be refused for, checked before the backend opens and the plan is written: a refusal
 * met only when its cell's turn came would leave an unfinished grid that neither a new run (an unfinished grid is
 * there) nor --resume (a flag changed) continues.
 */
async function checkCells(base: RunOptions, cells: readonly Record<string, string>[]): Promise<void> {
  for (const cell of cells) {
    const o = cellOptions(base, cell, base.store);
    parseSeed(o.seed);
    if (typeof o.applyChatTemplate === 'string') (await import('../prompt/chatTemplate.ts')).loadChatTemplate(o.applyChatTemplate);
  }
}

/** The settings a resume must repeat: the axes and every flag the cells share (how requests travel aside). */
function gridSettings(base: RunOptions, axes: readonly GridAxis[]): Record<string, string> {
  return configFingerprint({
    '--grid': axes.map((a) => `${a.name}=${a.values.join(',')}`).join(' × '),
    '--model': base.model,
    '--model_args': redactedArgs(Object.fromEntries(Object.entries(base.modelArgs).filter(([k]) => !TRANSPORT_MODEL_ARGS.includes(k)))),
    '--tasks': base.tasks.join(','),
    '--include_path': base.includePaths ?? [],
    '--num_fewshot': base.numFewshot,
    '--batch_size': base.batchSize,
    '--limit': base.limit,
    '--apply_chat_template': base.applyChatTemplate,
    '--fewshot_as_multiturn': base.fewshotAsMultiturn,
    '--system_instruction': base.systemInstruction,
    '--gen_kwargs': base.genKwargs,
    '--seed': base.seed ?? '0,1234,1234,1234',
    '--output_path': base.outputPath,
  });
}

async function writePlan(work: string, plan: GridPlan): Promise<void> {
  const path = join(work, PLAN);
  await writeFile(`${path}.tmp`, `${JSON.stringify(plan, null, 1)}\n`);
  await rename(`${path}.tmp`, path);
}

/** The interrupted grid's plan, checked against the flags given now (exit 2 naming what changed). */
async function resumedPlan(store: string, work: string, settings: Record<string, string>): Promise<GridPlan> {
  let text: string;
  try {
    text = await readFile(join(work, PLAN), 'utf8');
  } catch {
    const finished = existsSync(join(store, 'provenance.json')) && (await readFile(join(store, 'provenance.json'), 'utf8')).includes('"grid"');
    throw new BadInputError(finished ? `--resume ${store}: the grid there finished; nothing to resume: give a new --out to run it again, or look at it with \`lmaudit table ${store}\` or \`lmaudit report ${store}\`` : `--resume ${store}: no unfinished grid (${join(work, PLAN)} not found)`, { field: '--resume' });
  }
  let plan: GridPlan;
  try {
    plan = GridPlan.parse(JSON.parse(text));
  } catch (error) {
    throw new BadInputError(`not a grid plan lmaudit can resume (${(error as Error).message.split('\n')[0]})`, { file: join(work, PLAN) });
  }
  for (const [setting, value] of Object.entries(settings)) {
    if (plan.settings[setting] !== value) {
      throw new BadInputError(`--resume ${store}: ${setting} changed (the grid was started with ${plan.settings[setting] ?? '(not recorded)'}, now ${value}); resume with the same settings, or start a new store`, { field: setting });
    }
  }
  return plan;
}

/** Requests, sent and shared, counted from the cells' stored responses (a resumed grid's sessions together). */
async function storedCounts(stores: readonly string[]): Promise<GridRecord['requests']> {
  let total = 0;
  let shared = 0;
  for (const path of stores) {
    const store = await openStore(path);
    const [row] = await queryRows<{ n: number; cached: number }>(`SELECT count(*)::INTEGER AS n, (count(*) FILTER (WHERE from_cache))::INTEGER AS cached FROM ${store.table('responses')}`);
    total += row!.n;
    shared += row!.cached;
  }
  return { total, sent: total - shared, shared };
}

/**
 * Runs the grid, or with `base.resume` continues an interrupted one: finished cells are reused as
 * they are (their summaries re-read through a replay of their stores, nothing sent), the unfinished
 * cell goes on through the run recorder's resume, the rest run; the answers the earlier session
 * stored are shared with every cell, as they would have been had it not stopped.
 */
export async function executeGrid(base: RunOptions, axes: readonly GridAxis[], events: RunEvents): Promise<GridSummary> {
  const cells = gridCells(axes);
  const work = `${base.store}.grid-cells`;
  const cellStore = (i: number) => join(work, String(i));
  const settingsNow = gridSettings(base, axes);
  let plan: GridPlan;
  let resume: GridPlan['resumes'][number] | null = null;
  if (base.resume) {
    plan = await resumedPlan(base.store, work, settingsNow);
    const continued = cells.findIndex((_, i) => !plan.finished.includes(i) && existsSync(join(cellStore(i), 'provenance.json')));
    const held = continued < 0 ? 0 : ((await openStore(cellStore(continued))).unfinished?.responses ?? 0);
    resume = { reused: [...plan.finished], continued: continued < 0 ? null : continued, held };
  } else {
    if (existsSync(work)) throw new BadInputError(`an unfinished grid is in ${work}; \`lmaudit run … --grid … --resume ${base.store}\` continues it (or remove the folder to start again)`, { field: '--out' });
    await checkCells(base, cells);
    // The store and its working folder beside it: a file on the way, or /proc (where mkdir -p never returns), refused now.
    await checkWritableParent(base.store, 'the store');
    plan = { settings: settingsNow, axes: axes.map((a) => ({ name: a.name, values: a.values })), cells, finished: [], resumes: [] };
  }
  const lm = await backendFactory(base.model).open(base.modelArgs, { batchSize: base.batchSize });
  // Recorded once the backend is open: this session is one that continued the grid.
  if (resume !== null) plan.resumes.push(resume);
  await makeFolders(work, "the grid's working folder");
  await writePlan(work, plan);
  const earlier = resume === null ? [] : [...resume.reused, ...(resume.continued === null ? [] : [resume.continued])].map(cellStore);
  const prior = earlier.length > 0 ? await openReplay(earlier).catch(async (error: unknown) => { await lm.close(); throw error; }) : undefined;
  const shared = shareAnswers(lm, prior);
  const done: GridSummary['cells'] = [];
  try {
    for (const [i, settings] of cells.entries()) {
      const o = cellOptions(base, settings, cellStore(i));
      if (plan.finished.includes(i)) {
        // The finished cell's store stays as it is; a replay of it into a scratch store gives its summary.
        const scratch = join(work, `replay-${i}`);
        await rm(scratch, { recursive: true, force: true });
        const summary = await executeRunOn(await openReplay([o.store]), { ...o, model: 'replay', modelArgs: { store: o.store }, store: scratch, outputPath: null }, new RunEvents());
        await rm(scratch, { recursive: true, force: true });
        done.push({ settings, summary: { ...summary, store: o.store, sent: 0, heldBefore: summary.sent, lmevalFiles: [] }, reused: true });
        continue;
      }
      // lm-eval's files for each cell go in a folder of their own.
      const cellRun = { ...o, resume: i === resume?.continued, outputPath: o.outputPath === null ? null : join(o.outputPath, `grid-cell-${i}`) };
      // A cell folder the recorder never began (stopped before its first write) starts again.
      if (!cellRun.resume) await rm(o.store, { recursive: true, force: true });
      done.push({ settings, summary: await executeRunOn(shared, cellRun, events), reused: false });
      plan.finished.push(i);
      await writePlan(work, plan);
    }
  } catch (error) {
    await lm.close();
    // Refused before anything was recorded (a setting the cell's run checks, such as a chat template the model lacks):
    // the folder holds the plan alone, which would only block the corrected command.
    if (resume === null && plan.finished.length === 0 && !existsSync(cellStore(done.length))) await rm(work, { recursive: true, force: true });
    if (error instanceof BackendError) {
      const at = done.length;
      throw new BackendError(
        `grid cell ${at + 1} of ${cells.length} (${Object.entries(cells[at]!).map(([k, v]) => `${k}=${v}`).join(' ')}): ${error.message.split('\n')[0]}\n` +
          `${plan.finished.length} cell(s) finished; \`lmaudit run … --grid … --resume ${base.store}\` (the same flags) continues the grid`,
        { cause: error },
      );
    }
    throw error;
  }
  await lm.close();
  const runIds = await Promise.all(done.map(async (c) => (JSON.parse(await readFile(join(c.summary.store, 'provenance.json'), 'utf8')) as { runs: { run_id: string }[] }).runs[0]!.run_id));
  const requests =
    plan.resumes.length === 0 ? { total: shared.counts.sent + shared.counts.shared, sent: shared.counts.sent, shared: shared.counts.shared } : await storedCounts(done.map((c) => c.summary.store));
  const record: GridRecord = {
    axes: axes.map((a) => ({ name: a.name, values: a.values })),
    cells: done.map((c, i) => ({ run_id: runIds[i]!, settings: c.settings })),
    requests,
    ...(plan.resumes.length > 0 ? { resumes: plan.resumes } : {}),
  };
  const how = plan.resumes.length === 0 ? '' : `, resumed ${plan.resumes.length} time(s)`;
  await mergeStores(base.store, done.map((c) => c.summary.store), { created_by: `lmaudit run --grid (${cells.length} cells${how})`, grid: record });
  await rm(work, { recursive: true, force: true });
  return { store: base.store, cells: done, record };
}
