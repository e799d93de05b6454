import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpus } from 'node:os';
import { redactedArgs, runProvenance, type RunFacts } from '../../src/run/provenance.ts';
import type { ModelDescription } from '../../src/models/lm.ts';

test('model_args: credentials are redacted before anything is written; tokenizer settings named *_token are kept', () => {
  assert.deepEqual(
    redactedArgs({ api_key: 'sk-1', OPENAI_API_KEY: 'sk-2', hf_token: 'hf_3', token: 't', client_secret: 's', password: 'p', add_bos_token: true, eos_token: '</s>', max_tokens: 5, pretrained: 'gpt2' }),
    { api_key: '<redacted>', OPENAI_API_KEY: '<redacted>', hf_token: '<redacted>', token: '<redacted>', client_secret: '<redacted>', password: '<redacted>', add_bos_token: true, eos_token: '</s>', max_tokens: 5, pretrained: 'gpt2' },
  );
});

const facts = (description: Partial<ModelDescription>): RunFacts => ({
  runId: 'r', label: 'l', model: 'm', modelArgs: {}, batchSize: 1, tasks: [], chatTemplate: null, applyChatTemplate: null, fewshotAsMultiturn: null,
  systemInstruction: null, genKwargs: null, numFewshot: null, limit: null, seeds: { random: 0, numpy: 1234, torch: 1234, fewshot: 1234 } as RunFacts['seeds'],
  lmauditVersion: '0', settings: new Map(), maxLength: 96,
  description: { backend: 'm', modelId: 'x', dtype: null, files: {}, chatTemplate: null, addsBos: false, eosToken: null, runtime: {}, ...description },
});

test("model.device: a local backend's is this machine; a served model's is the server, with no hardware claimed for it", () => {
  const local = runProvenance(facts({}), null, null, null, []).model.device.used as { value: Record<string, unknown> };
  assert.equal(local.value.cpu_cores, cpus().length);
  const served = runProvenance(facts({ servedBy: 'http://127.0.0.1:8000' }), null, null, null, []).model.device.used as { value: Record<string, unknown>; from: string };
  assert.equal(served.value.server, 'http://127.0.0.1:8000');
  assert.equal(served.value.hardware, 'not reported by the server');
  assert.equal('cpu_model' in served.value || 'cpu_cores' in served.value, false);
  assert.equal(served.from, 'backend');
});
