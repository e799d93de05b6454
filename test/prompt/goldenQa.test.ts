/**
 * test/golden/qa-prompts: requests lm-eval 0.4.13's own code built (scripts/fixtures/make_golden_prompts_qa.py,
 * a recording model under simple_evaluate) for the settings the older golden files lack: the shipped tasks without
 * golden files (boolq, piqa, winogrande, hellaswag, truthfulqa_mc2, mmlu subjects as a group) at 0/1/5 shots, with a
 * system instruction, --gen_kwargs, and the qwen3-tiny chat template multiturn and single-turn; and synthetic tasks
 * for the TaskConfig fields no shipped task sets (test/prompt/qa-tasks/synth). Every document's arguments, target,
 * document and few-shot positions must be byte-identical (compared in Python's JSON spelling).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { gunzipSync } from 'node:zlib';
import type { DocRequests } from '../../src/prompt/build.ts';
import { buildPrompts } from '../../src/prompt/prompts.ts';
import { dumpsPy, parsePyJson } from '../../src/py/json.ts';
import { PyFloat } from '../../src/py/values.ts';

const repo = fileURLToPath(new URL('../../', import.meta.url));
const dir = `${repo}test/golden/qa-prompts/`;
// lm-eval resolves the tasks' data_files against the working directory: the generator ran in the repository root.
process.chdir(repo);

interface Setting {
  file: string;
  tasks: string[];
  num_fewshot: number | null;
  apply_chat_template: boolean;
  fewshot_as_multiturn: boolean;
  system_instruction: string | null;
  gen_kwargs: string | null;
  limit: number | null;
  docs: number;
}
const manifest = JSON.parse(readFileSync(`${dir}MANIFEST.json`, 'utf8')) as { settings: Setting[] };

/** `--gen_kwargs` as the generator passed it, already parsed (lm_eval.utils.simple_parse_args_string). */
const GEN_KWARGS: Record<string, Record<string, unknown>> = {
  'temperature=0.5,max_gen_toks=7,do_sample=true,until=Q:': { temperature: new PyFloat(0.5), max_gen_toks: 7, do_sample: true, until: 'Q:' },
};

for (const s of manifest.settings) {
  test(`golden qa ${s.file}: ${s.docs} documents`, async () => {
    const lines = gunzipSync(readFileSync(dir + s.file)).toString('utf8').split('\n').filter(Boolean).map((l) => parsePyJson(l) as Record<string, unknown>);
    const { built } = await buildPrompts({
      tasks: s.tasks,
      includePaths: ['test/prompt/qa-tasks'],
      numFewshot: s.num_fewshot,
      limit: s.limit,
      applyChatTemplate: s.apply_chat_template ? 'fixtures/models/qwen3-tiny/tokenizer_config.json' : null,
      fewshotAsMultiturn: s.apply_chat_template ? s.fewshot_as_multiturn : null,
      systemInstruction: s.system_instruction,
      genKwargs: s.gen_kwargs === null ? null : GEN_KWARGS[s.gen_kwargs]!,
    });
    const mine = new Map<string, DocRequests>(built.flatMap((t) => t.docs.map((d) => [`${d.task}/${d.doc_id}`, d] as const)));
    assert.equal(mine.size, lines.length, 'documents built');
    const wrong: string[] = [];
    for (const g of lines) {
      const key = `${g.task}/${g.doc_id}`;
      const m = mine.get(key);
      if (m === undefined) {
        wrong.push(`${key}: not built`);
        continue;
      }
      for (const [field, a, b] of [
        ['doc', m.doc, g.doc],
        ['target', m.target, g.target],
        ['request_type', m.request_type, g.request_type],
        ['fewshot_doc_ids', m.fewshot_doc_ids, g.fewshot_doc_ids],
        ['arguments', m.arguments, g.arguments],
      ] as const) {
        if (dumpsPy(a) !== dumpsPy(b)) wrong.push(`${key} ${field}:\n  lmaudit ${dumpsPy(a).slice(0, 600)}\n  lm-eval ${dumpsPy(b).slice(0, 600)}`);
      }
    }
    assert.equal(wrong.length, 0, `${wrong.length} differences:\n${wrong.slice(0, 6).join('\n')}`);
  });
}
