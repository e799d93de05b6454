/**
 * The item page's line under a response. asdiv's doc 0 (fixtures/lmeval/pr2236-asdiv/asdiv) records the
 * loglikelihood '-9.536740890325746e-07' with is_greedy 'True'; the page showed JavaScript's '-9.536740890325746e-7'
 * where the report shows lm-eval's text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { responseLine } from '../../src/view/client/pages/item.ts';

test('item page: a log-probability is shown as its harness wrote it, Python float repr', () => {
  const response = { request_idx: 0, repeat: 0, text: null, logprob: -9.536740890325746e-7, is_greedy: true, finish_reason: null, tokens_out: null, error: null };
  assert.equal(responseLine(response), 'request 0 · log-prob -9.536740890325746e-07 · greedy: true');
  assert.equal(responseLine({ ...response, repeat: 2, logprob: -7.390952760033542e-6, is_greedy: false, finish_reason: 'length', tokens_out: 12 }), 'request 0, repeat 2 · stopped: length · 12 tokens · log-prob -7.390952760033542e-06 · greedy: false');
});
