/**
 * `lmaudit merge <out> <shard stores…>`: the stores of `lmaudit run … --shard i/N` joined into the
 * store the unsharded run would have written (src/run/merge.ts), which rescore, diff and report read.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { checkLmevalFilesPath } from '../../run/lmevalFiles.ts';
import type { Command } from 'commander';
import { BadInputError } from '../../errors.ts';
import { RunEvents } from '../../run/events.ts';
import { resultsTable } from '../../run/resultsTable.ts';
import { mergeShards } from '../../run/merge.ts';
import { printJson, printLines } from '../output.ts';

export function registerMerge(program: Command): void {
  program
    .command('merge')
    .description('Join the stores of `lmaudit run … --shard i/N` (every shard of one run, each once, finished) into one store with the unsharded run\'s results; no model is called')
    .argument('<out>', 'the merged store folder (must not exist)')
    .argument('<shards...>', 'the shard stores')
    .option('--output_path <dir>', "also write lm-eval's results and samples files for the merged run under <dir>/<model>/")
    .option('--json', 'print a JSON summary', false)
    .action(async (out: string, shards: string[], flags: { output_path?: string; json: boolean }) => {
      if (existsSync(out) && !statSync(out).isDirectory()) throw new BadInputError('is a file; merge writes a new store folder', { file: out });
      if (existsSync(out) && readdirSync(out).length > 0) throw new BadInputError(`${out} already exists; merge writes a new store`);
      if (flags.output_path !== undefined) await checkLmevalFilesPath(flags.output_path);
      if (shards.includes(out)) throw new BadInputError(`${out} is both the merged store and a shard`);
      const { summary, shards: joined } = await mergeShards(out, shards, new RunEvents(), { outputPath: flags.output_path ?? null });
      const count = joined[0]!.spec.count;
      if (flags.json) {
        return printJson({
          store: summary.store,
          shards: joined.map((s) => ({ shard: `${s.spec.index}/${count}`, store: s.path, run_id: s.run.run_id })),
          requests: summary.replay?.requests ?? 0,
          answered_from_store: summary.counters.answered_from_store ?? 0,
          lmeval_files: summary.lmevalFiles,
          results: summary.scores.map((s) => ({ task: s.task, metrics: s.results })),
          groups: summary.groups.filter((g) => g.results.length > 0).map((g) => ({ group: g.group, metrics: g.results })),
        });
      }
      printLines([
        ...resultsTable(summary.tasks, summary.scores, summary.groups),
        '',
        `Store: ${summary.store} (${count} shards joined: ${joined.map((s) => s.path).join(', ')}; ${summary.replay?.requests ?? 0} responses, none sent to a model)`,
        ...summary.lmevalFiles.map((f) => `lm-eval file: ${f}`),
      ]);
    });
}
