import type { Command } from 'commander';
import { BadInputError } from '../../errors.ts';
import { buildPrompts, writePromptFile } from '../../prompt/prompts.ts';
import { statSync } from 'node:fs';
import { dirname } from 'node:path';
import { checkWritableParent, makeFolders } from '../../store/outputPath.ts';
import { printJson, printLines, formatTable } from '../output.ts';
import { parseBool, parseCount, parseKeyValueArgs, parseNumber } from '../keyValueArgs.ts';

interface PromptFlags {
  tasks: string;
  include_path?: string[];
  num_fewshot?: string;
  limit?: string;
  apply_chat_template?: string | boolean;
  fewshot_as_multiturn?: string | boolean;
  system_instruction?: string;
  seed?: string;
  gen_kwargs?: string;
  out: string;
  json: boolean;
}


export function registerPrompts(program: Command): void {
  program
    .command('prompts')
    .description('Build every request of lm-eval-compatible tasks without a model, one JSON line per document')
    .requiredOption('--tasks <names>', 'comma-separated task, group or tag names, or task YAML paths')
    .option('--include_path <dir...>', 'extra task folders (override the shipped ones)')
    .option('--num_fewshot <n>', 'few-shot examples per prompt (a YAML num_fewshot of 0 wins, as in lm-eval)')
    .option('--limit <n>', 'first N documents of each task (a fraction below 1 takes that share)')
    .option('--apply_chat_template [template]', 'render with a chat template: tokenizer_config.json or template file path, or llama3 / qwen3')
    .option('--fewshot_as_multiturn [bool]', 'few-shot examples as chat turns (bare: true; default true with a chat template)')
    .option('--system_instruction <text>', 'system instruction placed before the description')
    .option('--seed <seeds>', "lm-eval's --seed: one value or random,numpy,torch[,fewshot]", '0,1234,1234,1234')
    .option('--gen_kwargs <pairs>', 'generation kwargs merged into the task’s (k=v,...)')
    .requiredOption('--out <file>', 'JSONL file to write')
    .option('--json', 'print a JSON summary', false)
    .action(async (flags: PromptFlags) => {
      await checkWritableParent(flags.out, 'the prompts file');
      if (statSync(flags.out, { throwIfNoEntry: false })?.isDirectory()) throw new BadInputError('is a folder: --out names the JSONL file to write (e.g. prompts.jsonl)', { file: flags.out });
      // Required, so an empty list has no default to fall back on (it wrote an empty file): said as run says it.
      const tasks = flags.tasks.split(',').map((s) => s.trim()).filter(Boolean);
      if (tasks.length === 0) throw new BadInputError('lmaudit prompts needs --tasks <names> (`lmaudit tasks` lists them)', { field: '--tasks' });
      const chat = flags.apply_chat_template;
      if (chat === true) throw new BadInputError('--apply_chat_template needs a template here (no model is loaded): a tokenizer_config.json, a template file, llama3 or qwen3');
      const { built, groups, chatTemplate, seeds } = await buildPrompts({
        tasks,
        includePaths: flags.include_path,
        numFewshot: parseCount(flags.num_fewshot, '--num_fewshot'),
        limit: parseNumber(flags.limit, '--limit'),
        applyChatTemplate: typeof chat === 'string' ? chat : null,
        fewshotAsMultiturn: parseBool(flags.fewshot_as_multiturn, '--fewshot_as_multiturn'),
        systemInstruction: flags.system_instruction ?? null,
        seed: flags.seed,
        genKwargs: flags.gen_kwargs === undefined ? null : parseKeyValueArgs(flags.gen_kwargs, '--gen_kwargs'),
      });
      // Its folder is made as every other command's --out is, once the prompts are built (a refused build makes none).
      await makeFolders(dirname(flags.out), 'the folder of the prompts file');
      try {
        writePromptFile(built, flags.out);
      } catch (error) {
        throw new BadInputError(`cannot write the prompts file (${(error as Error).message})`, { file: flags.out });
      }
      const summary = {
        out: flags.out,
        chat_template: chatTemplate ? { origin: chatTemplate.origin, name: chatTemplate.name, sha256: chatTemplate.sha256 } : null,
        fewshot_seed: seeds.fewshot,
        groups: groups.map((g) => ({
          group: g.group,
          children: g.children.map((c) => (typeof c === 'string' ? c : c.group)),
          aggregate_metric_list: g.aggregate_metric_list,
        })),
        tasks: built.map((t) => ({
          task: t.config.task,
          num_fewshot: t.numFewshot,
          fewshot_as_multiturn: t.fewshotAsMultiturn,
          docs: t.docs.length,
          eval_docs: t.evalDocCount,
          requests: t.docs.reduce((n, d) => n + d.arguments.length, 0),
        })),
      };
      if (flags.json) return printJson(summary);
      printLines([
        `Wrote ${summary.tasks.reduce((n, t) => n + t.docs, 0)} document(s) to ${flags.out}`,
        ...formatTable(['task', 'shots', 'docs', 'of', 'requests'], summary.tasks.map((t) => [t.task, t.num_fewshot, t.docs, t.eval_docs, t.requests])),
      ]);
    });
}
