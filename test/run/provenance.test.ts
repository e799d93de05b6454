import { test } from 'node:test';
import assert from 'node:assert/strict';
import { redactedArgs } from '../../src/run/provenance.ts';

test('model_args: credentials are redacted before anything is written; tokenizer settings named *_token are kept', () => {
  assert.deepEqual(
    redactedArgs({ api_key: 'sk-1', OPENAI_API_KEY: 'sk-2', hf_token: 'hf_3', token: 't', client_secret: 's', password: 'p', add_bos_token: true, eos_token: '</s>', max_tokens: 5, pretrained: 'gpt2' }),
    { api_key: '<redacted>', OPENAI_API_KEY: '<redacted>', hf_token: '<redacted>', token: '<redacted>', client_secret: '<redacted>', password: '<redacted>', add_bos_token: true, eos_token: '</s>', max_tokens: 5, pretrained: 'gpt2' },
  );
});
