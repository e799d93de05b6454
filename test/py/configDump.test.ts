/** Reading an mmengine config dump (OpenCompass's configs/<ts>.py) as data, never running it. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readConfigDump } from '../../src/py/configDump.ts';

test('a config dump: dict(...) calls, lists, tuples, {…} dicts, Python literals and escapes', () => {
  const text = "models=[\n    dict(abbr='m',\n        generation_kwargs=dict(do_sample=False, eos_token_id=[1, 2]),\n        meta_template=dict(begin='<|s|>\\n\\n', round=(dict(role='HUMAN'), )),\n        extra={'k': None, 2: 1.5e-3}),\n    ]\nwork_dir='outputs/default/x'\n";
  assert.deepEqual(readConfigDump(text, 'c.py'), {
    models: [{ abbr: 'm', generation_kwargs: { do_sample: false, eos_token_id: [1, 2] }, meta_template: { begin: '<|s|>\n\n', round: [{ role: 'HUMAN' }] }, extra: { k: null, '2': 0.0015 } }],
    work_dir: 'outputs/default/x',
  });
});

test('anything but data is refused with its line, never evaluated', () => {
  assert.throws(() => readConfigDump("a=1\nb=__import__('os')\n", 'c.py'), /c\.py, line 2: not a literal: "__import__" in a config dump/);
  assert.throws(() => readConfigDump('a=1 + 2\n', 'c.py'), /c\.py, line 1: unexpected "\+" in a config dump/);
});
