/**
 * Model names across agent runs: 'anthropic/claude-sonnet-4-5-20250929' (LiteLLM's route to Anthropic's API) and
 * 'claude-sonnet-4-5-20250929' are one model, and diff says so by the provider_prefix rule; an undated alias, another
 * date, or a third-party host are not made equal. The second run is the mini-swe-agent fixture as it would have been
 * written with the bare model name (preds.json, trajectories, the evaluation folder and the run summary renamed in a copy).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fixturePath } from '../../helpers/fixtures.ts';
import { runCli } from '../../helpers/cli.ts';
import { importSources } from '../../../src/import/index.ts';
import { compareValues, NOISE_RULES } from '../../../src/audit/noise.ts';
import { diffSettings } from '../../../src/audit/settingsDiff.ts';
import type { RunProvenance } from '../../../src/store/schema.ts';

const options = { skipBad: false, fields: {} };
const PREFIXED = 'anthropic/claude-sonnet-4-5-20250929';
const BARE = 'claude-sonnet-4-5-20250929';

test('the provider-prefix rule: only a first-party prefix is stripped, and the rest must match exactly', () => {
  const on = { providerPrefix: true };
  assert.deepEqual(compareValues(PREFIXED, BARE, on), { equal: true, rules: ['provider_prefix'] });
  assert.deepEqual(compareValues('openai/gpt-4o-2024-08-06', 'gpt-4o-2024-08-06', on), { equal: true, rules: ['provider_prefix'] });
  // Another date, an undated alias, a router's name, a cloud deployment: not the same model by this rule.
  assert.equal(compareValues(PREFIXED, 'claude-sonnet-4-5-20250514', on).equal, false);
  assert.equal(compareValues('anthropic/claude-sonnet-4-5', BARE, on).equal, false);
  assert.equal(compareValues('openrouter/anthropic/claude-sonnet-4-5-20250929', PREFIXED, on).equal, false);
  assert.equal(compareValues('bedrock/claude-sonnet-4-5-20250929', BARE, on).equal, false);
  // Off unless asked for (a Hugging Face id like openai/gpt-oss-20b names a repository, not an API route).
  assert.equal(compareValues(PREFIXED, BARE).equal, false);
});

/** The mini-swe-agent fixture copied with every record of the model name written without the provider prefix. */
function bareCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'lmaudit-alias-'));
  const root = join(dir, 'b');
  cpSync(fixturePath('agents/mini-swe-agent'), root, { recursive: true });
  const preds = join(root, 'preds.json');
  writeFileSync(preds, readFileSync(preds, 'utf8').replaceAll(`"${PREFIXED}"`, `"${BARE}"`));
  for (const id of readdirSync(root).filter((n) => n.startsWith('demo__'))) {
    const t = join(root, id, `${id}.traj.json`);
    writeFileSync(t, readFileSync(t, 'utf8').replaceAll(`"${PREFIXED}"`, `"${BARE}"`));
  }
  renameSync(join(root, 'logs/run_evaluation/mini-eval', PREFIXED.replace('/', '__')), join(root, 'logs/run_evaluation/mini-eval', BARE));
  renameSync(join(root, `${PREFIXED.replace('/', '__')}.mini-eval.json`), join(root, `${BARE}.mini-eval.json`));
  return dir;
}

test('diff of two agent runs naming one model two ways: same by provider_prefix, the rule named; an undated alias differs', async () => {
  const dir = bareCopy();
  try {
    const a = (await importSources([fixturePath('agents/mini-swe-agent')], options)).runs[0]!.provenance;
    const b = (await importSources([join(dir, 'b')], options)).runs[0]!.provenance;
    assert.equal((b.agent!.model_recorded!.used as { value: unknown }).value, BARE);
    const d = diffSettings(a, 'swe-bench', b, 'swe-bench');
    const agent = d.items.find((i) => i.item === 'agent')!;
    for (const field of ['model_configured', 'model_recorded']) {
      const row = agent.fields.find((f) => f.field === field)!;
      assert.deepEqual([row.verdict, row.rules, row.a.value, row.b.value], ['same', ['provider_prefix'], PREFIXED, BARE], field);
    }
    const modelId = d.items.find((i) => i.item === 'model')!.fields.find((f) => f.field === 'model_id')!;
    assert.deepEqual([modelId.verdict, modelId.rules], ['same', ['provider_prefix']]);
    assert.deepEqual(d.rulesApplied.find((r) => r.name === 'provider_prefix'), { name: 'provider_prefix', description: NOISE_RULES.provider_prefix.description });

    // Harbor's fixture names the undated alias 'anthropic/claude-sonnet-4-5': which snapshot it meant is not recorded.
    const harbor = (await importSources([fixturePath('agents/harbor')], options)).runs[0]!.provenance;
    const vsHarbor = diffSettings(a, 'swe-bench', harbor, Object.keys(harbor.tasks)[0]!).items.find((i) => i.item === 'agent')!;
    const recorded = vsHarbor.fields.find((f) => f.field === 'model_recorded')!;
    assert.equal(recorded.verdict, 'differs');
    assert.deepEqual(recorded.rules, []);

    // Another date is another model, prefix or not.
    const redated = JSON.parse(JSON.stringify(b).replaceAll(BARE, 'claude-sonnet-4-5-20250514')) as RunProvenance;
    const other = diffSettings(a, 'swe-bench', redated, 'swe-bench').items.find((i) => i.item === 'agent')!.fields.find((f) => f.field === 'model_recorded')!;
    assert.equal(other.verdict, 'differs');

    // The CLI's diff names the rule beside the field and explains it.
    const r = runCli(['diff', fixturePath('agents/mini-swe-agent'), join(dir, 'b'), '--iterations', '100']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /model_recorded\s+same\s+"anthropic\/claude-sonnet-4-5-20250929"\s+"claude-sonnet-4-5-20250929"\s+noise: provider_prefix/);
    assert.ok(r.stdout.includes(`provider_prefix: ${NOISE_RULES.provider_prefix.description}`));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
