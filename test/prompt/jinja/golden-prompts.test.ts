import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { compileTemplate, pyIsDigit } from '../../../src/prompt/jinja/index.ts';
import { literalEval } from '../../../src/py/literalEval.ts';
import { goldenPromptText } from '../../helpers/fixtures.ts';

// Real requests built by lm-eval itself (fixtures/golden-prompts, lm-eval 4e7e0d47, Jinja2 3.1.6), zero-shot,
// so each context is description + doc_to_text and each continuation is " " + choice: this checks the Jinja part
// of prompt assembly on 100 real documents per task. Templates are the real ones recorded in jinja_cases.json.
const cases = (JSON.parse(readFileSync(new URL('../../golden/jinja_cases.json', import.meta.url), 'utf8')) as {
  cases: { id: string; template: string }[];
}).cases;
const template = (id: string): string => {
  const c = cases.find((x) => x.id === `${id}:0`);
  assert.ok(c, id);
  return c.template;
};

interface Request {
  doc: Record<string, unknown>;
  target: unknown;
  arguments: [string, unknown][];
}
const requests = (file: string): Request[] =>
  goldenPromptText(file)
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Request);

/** lm-eval's doc_to_target coercion for multiple-choice tasks: a digit string becomes an int. */
const coerce = (s: string): unknown => (pyIsDigit(s) ? literalEval(s) : s);

const TASKS: { file: string; text: string; description?: string; target?: string; choices?: string | string[]; continuation?: string }[] = [
  { file: 'arc_easy.0shot.jsonl', text: 'arc/arc_easy.yaml:doc_to_text', target: 'arc/arc_easy.yaml:doc_to_target', choices: 'arc/arc_easy.yaml:doc_to_choice' },
  { file: 'mmlu_abstract_algebra.0shot.jsonl', text: 'mmlu/default/mmlu_abstract_algebra.yaml:doc_to_text', description: 'mmlu/default/mmlu_abstract_algebra.yaml:description', choices: ['A', 'B', 'C', 'D'] },
  { file: 'truthfulqa_mc1.0shot.jsonl', text: 'truthfulqa/truthfulqa_mc1.yaml:doc_to_text', choices: 'truthfulqa/truthfulqa_mc1.yaml:doc_to_choice' },
  { file: 'lambada_openai.0shot.jsonl', text: 'lambada/lambada_openai.yaml:doc_to_text', continuation: 'lambada/lambada_openai.yaml:doc_to_target' },
  { file: 'gsm8k.0shot.jsonl', text: 'gsm8k/gsm8k.yaml:doc_to_text', target: 'gsm8k/gsm8k.yaml:doc_to_target' },
];

for (const task of TASKS) {
  test(`${task.file}: rendered contexts, choices and targets equal lm-eval's requests`, () => {
    const text = compileTemplate(template(task.text));
    const description = task.description ? compileTemplate(template(task.description)) : undefined;
    const target = task.target ? compileTemplate(template(task.target)) : undefined;
    const choices = typeof task.choices === 'string' ? compileTemplate(template(task.choices)) : undefined;
    const continuation = task.continuation ? compileTemplate(template(task.continuation)) : undefined;
    const reqs = requests(task.file);
    assert.equal(reqs.length, 100);
    for (const [i, r] of reqs.entries()) {
      const context = (description?.render(r.doc) ?? '') + text.render(r.doc);
      for (const [ctx] of r.arguments) assert.equal(ctx, context, `doc ${i}`);
      if (choices || Array.isArray(task.choices)) {
        const list = choices ? (literalEval(choices.render(r.doc)) as string[]) : (task.choices as string[]);
        assert.deepEqual(r.arguments.map(([, cont]) => cont), list.map((c) => ` ${c}`), `doc ${i} choices`);
      }
      if (continuation) assert.equal(r.arguments[0]![1], continuation.render(r.doc), `doc ${i} continuation`);
      if (target) {
        const rendered = target.render(r.doc);
        assert.deepEqual(choices ? coerce(rendered) : rendered, r.target, `doc ${i} target`);
      }
    }
  });
}
