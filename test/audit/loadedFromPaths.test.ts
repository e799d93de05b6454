/**
 * A path that names what was loaded keeps its folders. The absolute-path noise rule compares a path by its last
 * component (where an output file sat is not a setting), and it made two fine-tuned checkpoints one model:
 * `diff` of gpt2-tiny's boolq records with model_args pretrained=/scratch/sft/lr1e-5/checkpoint-500 and
 * …/lr1e-6/checkpoint-500 printed "no run-level setting differs" and "model_id same (noise: absolute_path)".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareValues } from '../../src/audit/noise.ts';
import { compareField } from '../../src/audit/settingsDiff.ts';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';
import { recorded, same } from '../../src/store/schema.ts';
import { fixturePath } from '../helpers/fixtures.ts';
import { runCli } from '../helpers/cli.ts';

const [LR5, LR6] = ['/scratch/sft/lr1e-5/checkpoint-500', '/scratch/sft/lr1e-6/checkpoint-500'];

test('a model path, model args and a dataset path keep their folders; an output path still compares by its name', () => {
  assert.equal(compareField('model', 'model_id', same(recorded(LR5)), same(recorded(LR6))).verdict, 'differs');
  assert.equal(compareField('model', 'args', same(recorded({ pretrained: LR5 })), same(recorded({ pretrained: LR6 }))).verdict, 'differs');
  assert.equal(compareField('task', 'dataset_path', same(recorded('/data/v1/test')), same(recorded('/data/v2/test'))).verdict, 'differs');
  assert.equal(compareField('model', 'model_id', same(recorded(LR5)), same(recorded(LR5))).verdict, 'same');
  // Hub ids still compare without case.
  assert.equal(compareField('model', 'model_id', same(recorded('Qwen/Qwen2.5-7B')), same(recorded('qwen/qwen2.5-7B'))).verdict, 'same');
  assert.deepEqual(compareValues('/home/a/out/results.json', '/tmp/b/results.json'), { equal: true, rules: ['absolute_path'] });
});

/** gpt2-tiny's boolq records (fixtures/models/lmeval-reference/gpt2-tiny/cells-mc), with the model loaded from `path`. */
function boolqRun(dir: string, path: string): string {
  const source = fixturePath('models/lmeval-reference/gpt2-tiny/cells-mc');
  mkdirSync(dir);
  const files = readdirSync(source);
  const samples = files.find((f) => f.startsWith('samples_boolq_'))!;
  const results = files.find((f) => f.startsWith('results_'))!;
  copyFileSync(join(source, samples), join(dir, samples));
  const json = JSON.parse(readFileSync(join(source, results), 'utf8'));
  json.config.model_args = { ...json.config.model_args, pretrained: path };
  json.model_name = path;
  json.model_name_sanitized = path.replaceAll('/', '__');
  for (const key of ['results', 'configs', 'versions', 'n-shot', 'higher_is_better', 'n-samples', 'task_hashes']) {
    json[key] = Object.fromEntries(Object.entries(json[key] as Record<string, unknown>).filter(([task]) => task === 'boolq'));
  }
  json.group_subtasks = { boolq: [] };
  writeFileSync(join(dir, results), JSON.stringify(json));
  return dir;
}

test('diff of two checkpoints at the same step: the model differs, in the settings, the source configuration and the CLI summary', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'lmaudit-loaded-from-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const [a, b] = [boolqRun(join(root, 'a'), LR5), boolqRun(join(root, 'b'), LR6)];
  const options = { skipBad: false, fields: {} };
  const d = await diffStores((await loadSource([a], options)).store, (await loadSource([b], options)).store, { iterations: 10 });
  const model = d.comparisons[0]!.runSettings.items.find((i) => i.item === 'model')!;
  assert.equal(model.verdict, 'differs');
  assert.deepEqual(model.fields.filter((f) => f.verdict === 'differs').map((f) => f.field), ['model_id', 'args']);
  const source = d.comparisons[0]!.tasks[0]!.sourceConfig.rows.filter((r) => r.verdict === 'differs').map((r) => r.key);
  assert.deepEqual(source, ['config.model_args', 'model_name', 'model_name_sanitized']);
  const cli = runCli(['diff', a, b, '--iterations', '10']);
  assert.equal(cli.status, 0, cli.stderr);
  assert.match(cli.stdout, /run level differs: model\.model_id, model\.args/);
  assert.doesNotMatch(cli.stdout, /absolute_path/);
});
