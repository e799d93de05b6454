/**
 * A 0/1 score whose source says lower is better (crows_pairs' pct_stereotype: 1 where the model preferred the
 * stereotyped sentence, higher_is_better false) was counted "right only in A / right only in B" in the McNemar
 * sentence and the flips line. Here gpt2-tiny's and qwen3-tiny's boolq records (fixtures/models/lmeval-reference,
 * cells-mc) are relabelled so that their per-item 0/1 values are such a score: the counts are the same items, and
 * the words must not call a 1 right.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadSource } from '../../src/audit/source.ts';
import { diffStores } from '../../src/audit/diff.ts';
import { relabelled } from '../helpers/boolqCopy.ts';
import { runCli } from '../helpers/cli.ts';

test('a lower-is-better 0/1 score: the McNemar sentence and the flips count 1s, not right answers', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'lmaudit-lower-better-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const [a, b] = [relabelled(root, 'gpt2-tiny'), relabelled(root, 'qwen3-tiny')];
  const options = { skipBad: false, fields: {} };
  const d = await diffStores((await loadSource([a], options)).store, (await loadSource([b], options)).store, { iterations: 10 });
  const task = d.comparisons[0]!.tasks[0]!;
  const p = task.paired.find((x) => x.score === 'pct_stereotype,none')!;
  const { aOnly, bOnly } = p.result.mcnemar!;
  assert.equal(p.result.mcnemar!.oneIsWorse, true);
  assert.ok(p.result.sentence.includes(`(${aOnly} scored 1 only in A, ${bOnly} only in B; a 1 is the worse outcome here, higher_is_better false)`), p.result.sentence);
  assert.doesNotMatch(p.result.sentence, /right only/);
  const flips = task.flips.find((f) => f.score === 'pct_stereotype,none')!;
  assert.equal(flips.oneIsWorse, true);
  assert.equal(flips.lost + flips.gained, aOnly + bOnly);
  // The rescoring cells read answers against the gold: there a 1 is right.
  const cell = task.paired.find((x) => x.score === 'rescored:acc/none')!;
  assert.match(cell.result.sentence, /right only in A/);
  const cli = runCli(['diff', a, b, '--iterations', '10']);
  assert.equal(cli.status, 0, cli.stderr);
  assert.match(cli.stdout, new RegExp(`Flips in pct_stereotype,none: ${aOnly + bOnly} \\(${flips.lost} scored 1 only in A, ${flips.gained} only in B; a 1 is the worse outcome here, higher_is_better false\\)`));
});
