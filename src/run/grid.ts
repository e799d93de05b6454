/**
 * `lmaudit run --grid`: a configuration grid run into one store. Each cell (one value per axis) is a
 * run with its own provenance; the cells share one open backend, and a request identical to one an
 * earlier cell sent is answered from that response (sharedAnswers.ts), recorded as from_cache and
 * counted in the store's grid record. The cells are written through the run recorder into a
 * working folder beside the store, then merged into the store in one atomic write.
 */
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { PROMPT_VARIANTS, type PromptVariantName } from '../audit/promptVariants.ts';
import { BadInputError } from '../errors.ts';
import { backendFactory } from '../models/registry.ts';
import { mergeStores } from '../store/mergeStores.ts';
import type { GridRecord } from '../store/schema.ts';
import type { RunEvents } from './events.ts';
import { executeRunOn, type RunOptions, type RunSummary } from './runner.ts';
import { shareAnswers } from './sharedAnswers.ts';

type Axis = (o: RunOptions, value: string) => RunOptions;

const genKwarg = (o: RunOptions, key: string, value: unknown): RunOptions => ({ ...o, genKwargs: { ...(o.genKwargs ?? {}), [key]: value } });

function num(axis: string, value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new BadInputError(`--grid ${axis}: '${value}' is not a number`, { field: '--grid' });
  return n;
}

function onOff(axis: string, value: string): boolean {
  if (/^(on|true|yes|1)$/i.test(value)) return true;
  if (/^(off|false|no|0)$/i.test(value)) return false;
  throw new BadInputError(`--grid ${axis}: '${value}' is neither on nor off`, { field: '--grid' });
}

/** Every run setting a grid can vary: what each value does to the run's options. */
export const GRID_AXES = {
  num_fewshot: (o, v) => ({ ...o, numFewshot: num('num_fewshot', v) }),
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
  if (!Object.hasOwn(GRID_AXES, name)) throw new BadInputError(`${where}: unknown grid axis '${name}' (known: ${Object.keys(GRID_AXES).join(', ')})`, { field: '--grid' });
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
  cells: { settings: Record<string, string>; summary: RunSummary }[];
  record: GridRecord;
}

export async function executeGrid(base: RunOptions, axes: readonly GridAxis[], events: RunEvents): Promise<GridSummary> {
  if (base.resume) throw new BadInputError('--grid cannot --resume (each cell is a run; rerun the grid)', { field: '--resume' });
  const cells = gridCells(axes);
  const lm = await backendFactory(base.model).open(base.modelArgs, { batchSize: base.batchSize });
  const shared = shareAnswers(lm);
  const work = `${base.store}.grid-cells`;
  const done: GridSummary['cells'] = [];
  try {
    for (const [i, settings] of cells.entries()) {
      const o = cellOptions(base, settings, join(work, String(i)));
      // lm-eval's files for each cell go in a folder of their own.
      const cellRun = { ...o, outputPath: o.outputPath === null ? null : join(o.outputPath, `grid-cell-${i}`) };
      done.push({ settings, summary: await executeRunOn(shared, cellRun, events) });
    }
  } catch (error) {
    await lm.close();
    throw error;
  }
  await lm.close();
  const runIds = await Promise.all(done.map(async (c) => (JSON.parse(await readFile(join(c.summary.store, 'provenance.json'), 'utf8')) as { runs: { run_id: string }[] }).runs[0]!.run_id));
  const record: GridRecord = {
    axes: axes.map((a) => ({ name: a.name, values: a.values })),
    cells: done.map((c, i) => ({ run_id: runIds[i]!, settings: c.settings })),
    requests: { total: shared.counts.sent + shared.counts.shared, sent: shared.counts.sent, shared: shared.counts.shared },
  };
  await mergeStores(base.store, done.map((c) => c.summary.store), { created_by: `lmaudit run --grid (${cells.length} cells)`, grid: record });
  await rm(work, { recursive: true, force: true });
  return { store: base.store, cells: done, record };
}
