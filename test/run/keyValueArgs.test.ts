import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseKeyValueArgs } from '../../src/cli/keyValueArgs.ts';
import { dumpsPy } from '../../src/py/json.ts';

// Expected: json.dumps(key_val_to_dict(text), ensure_ascii=False) with lm-eval 0.4.13's lm_eval/_cli/utils.py
// (the CLI's --model_args/--gen_kwargs parser), run under CPython 3.11 on 2026-12-01.
const CASES: [string, string][] = [
  ['temperature=0.7,top_p=None', '{"temperature": 0.7, "top_p": null}'],
  ['until=["a,b", "c"],max_gen_toks=-1,do_sample=False,x=1e3,y=abc,z=1_0.5', '{"until": ["a,b", "c"], "max_gen_toks": -1.0, "do_sample": false, "x": 1000.0, "y": "abc", "z": 10.5}'],
  ["s='q,r',n=12", '{"s": "q,r", "n": 12}'],
];

test('--gen_kwargs and --model_args are typed as lm-eval 0.4.13 types them (floats stay floats, None is null)', () => {
  for (const [text, expected] of CASES) assert.equal(dumpsPy(parseKeyValueArgs(text, '--gen_kwargs')), expected, text);
  assert.equal(dumpsPy(parseKeyValueArgs('{"temperature": 1.0, "until": ["\\n"]}', '--gen_kwargs')), '{"temperature": 1.0, "until": ["\\n"]}');
  assert.throws(() => parseKeyValueArgs('{bad', '--gen_kwargs'), /--gen_kwargs: not valid JSON/);
  assert.throws(() => parseKeyValueArgs('novalue', '--model_args'), /--model_args: expected key=value, got 'novalue'/);
});
