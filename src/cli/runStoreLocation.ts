/**
 * Where `lmaudit run` writes, and what it says about a folder that already holds a run: the
 * store folder from --out, --output_path, --resume or lm-eval's --use_cache, and whether the
 * run continues it or replays its answers.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BadInputError } from '../errors.ts';
import type { ModelArgs } from '../models/lm.ts';
import { dateId, lmevalFilesDir, modelName } from '../run/lmevalFiles.ts';

export interface StoreFlags {
  out?: string;
  resume?: string;
  output_path?: string;
  use_cache?: string;
  grid: string[];
}

/** 'finished' or 'unfinished' for a store `lmaudit run` wrote; null for a folder that is not one. */
function runStoreStatus(dir: string): 'finished' | 'unfinished' | null {
  try {
    const manifest = JSON.parse(readFileSync(join(dir, 'provenance.json'), 'utf8')) as { recording?: { status?: string } };
    return manifest.recording === undefined ? 'finished' : manifest.recording.status === 'finished' ? 'finished' : 'unfinished';
  } catch {
    return null;
  }
}

/**
 * What to do with a finished store instead of running into it again. `--resume` asks to continue that run, which has
 * nothing left to send; `--out` may ask for other tasks or settings, so it is told only that the folder is taken.
 */
function finishedAdvice(dir: string, flag: '--out' | '--resume'): string {
  const what = flag === '--resume' ? `the run in ${dir} already finished; nothing is left to send` : `${dir} already holds a finished run, and a store is written once`;
  return `${what}. To run again give a new --out; to look at it use \`lmaudit ls ${dir}\`, \`lmaudit rescore ${dir}\` or \`lmaudit report ${dir}\``;
}

/** The backend that answered in a finished store (its first run's record), or null when not recorded. */
function recordedBackend(dir: string): string | null {
  try {
    type Fact = { status?: string; value?: unknown };
    const manifest = JSON.parse(readFileSync(join(dir, 'provenance.json'), 'utf8')) as { runs?: { model?: { backend?: { configured?: Fact; used?: Fact } } }[] };
    const setting = manifest.runs?.[0]?.model?.backend;
    const fact = [setting?.used, setting?.configured].find((f) => f !== undefined && f.status !== 'unknown' && typeof f.value === 'string');
    return fact === undefined ? null : (fact.value as string);
  } catch {
    return null;
  }
}

export interface StoreLocation {
  store: string;
  /** Continue the unfinished run in `store`. */
  resume: boolean;
  /** lm-eval's --use_cache on a finished store: its answers are replayed (`--model replay`) into `store`. */
  replayFrom: string | null;
}

/**
 * The store folder and whether the run continues it. `--use_cache <dir>` is lm-eval's response
 * cache, and the store is lmaudit's: a new folder becomes the run's store, an unfinished one is
 * resumed (only the requests without a response are sent), and a finished one answers the run
 * through the replay backend (src/models/replay.ts) into a new store — lm-eval's "re-score or
 * re-run without running the model again"; a request the cache does not hold is refused there.
 */
export function storeLocation(flags: StoreFlags, model: string, args: ModelArgs, date: Date): StoreLocation {
  if (flags.use_cache !== undefined) {
    const cache = flags.use_cache;
    if (flags.resume !== undefined) throw new BadInputError("--use_cache names the run's store (lm-eval's response cache); leave out --resume");
    const status = runStoreStatus(cache);
    if (status === 'finished') {
      const backend = recordedBackend(cache);
      if (backend !== null && backend !== model) throw new BadInputError(`--use_cache ${cache}: its answers came from the ${backend} backend, not ${model}; give a new --use_cache folder for this model`);
      if (flags.out === undefined && flags.output_path === undefined) throw new BadInputError(`--use_cache ${cache} holds a finished run: its answers are replayed into a new store; give --out <new store> (or --output_path <dir>)`);
      return { ...newStore(flags, model, args, date), replayFrom: cache };
    }
    if (flags.out !== undefined && flags.out !== cache) throw new BadInputError("--use_cache names the run's store (lm-eval's response cache); leave out --out or give the same folder");
    if (status === 'unfinished') return { store: cache, resume: true, replayFrom: null };
    if (existsSync(cache) && (!statSync(cache).isDirectory() || readdirSync(cache).length > 0)) {
      throw new BadInputError(`--use_cache ${cache}: not an lmaudit store (lmaudit keeps responses in a store folder, not lm-eval's sqlite cache); name a new folder`);
    }
    return { store: cache, resume: false, replayFrom: null };
  }
  if (flags.resume !== undefined) {
    if (flags.out !== undefined && flags.out !== flags.resume) throw new BadInputError('--resume names the store to continue; leave out --out or give the same folder');
    // A grid's store is judged by the grid code (src/run/grid.ts), which knows its cells.
    if (flags.grid.length === 0 && runStoreStatus(flags.resume) === 'finished') throw new BadInputError(`--resume: ${finishedAdvice(flags.resume, '--resume')}`);
    return { store: flags.resume, resume: true, replayFrom: null };
  }
  return newStore(flags, model, args, date);
}

/** A new store: --out, else beside lm-eval's files under --output_path. */
function newStore(flags: StoreFlags, model: string, args: ModelArgs, date: Date): StoreLocation {
  const out = flags.out ?? (flags.output_path === undefined ? undefined : join(lmevalFilesDir(flags.output_path, modelName(model, args)), `store_${dateId(date)}`));
  if (out === undefined) throw new BadInputError('lmaudit run needs --out <store> (or --output_path <dir>, which puts the store beside lm-eval’s files)');
  if (existsSync(out) && !statSync(out).isDirectory()) throw new BadInputError(`--out ${out} is a file, not a store folder`);
  if (existsSync(out) && readdirSync(out).length > 0) {
    if (runStoreStatus(out) === 'finished') throw new BadInputError(`--out: ${finishedAdvice(out, '--out')}`);
    if (runStoreStatus(out) === 'unfinished') throw new BadInputError(`--out ${out} holds an unfinished run; to continue it use --resume ${out} (with the same flags), or give a new --out`);
    throw new BadInputError(`--out ${out} already exists and is not a store; give a new --out`);
  }
  return { store: out, resume: false, replayFrom: null };
}
