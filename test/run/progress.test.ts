import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { ProgressState, RunEvents, formatDuration, progressLine } from '../../src/run/events.ts';
import { showProgress } from '../../src/tui/progressView.ts';

const planned = { kind: 'planned' as const, tasks: ['t'], totals: { loglikelihood: 40, generate_until: 10 }, held: { loglikelihood: 8 }, store: 's' };
const rows = (n: number) => Array.from({ length: n }, () => ({}) as never);

test('progress state: done/total per request type (held ones counted), rate and ETA from this session, failures', () => {
  const s = new ProgressState();
  s.update(planned);
  s.update({ kind: 'batch', requestType: 'loglikelihood', task: 'arc', requests: 4 });
  s.update({ kind: 'responses', requestType: 'loglikelihood', task: 'arc', rows: rows(12), inferenceMs: 1 });
  assert.deepEqual([s.doneAll, s.totalAll], [20, 50]);
  // 12 responses in the session; at 6/s the 30 left take 5 s.
  const start = (s as unknown as { startedAt: number }).startedAt;
  // performance.now() is fractional, so (start + 2000) − start is 2000 only to about 1e-13.
  assert.ok(Math.abs(s.rate(start + 2000) - 6) < 1e-9);
  assert.ok(Math.abs(s.eta(start + 2000)! - 5) < 1e-9);
  assert.equal(formatDuration(3725), '1:02:05');
  assert.match(progressLine(s), /^loglikelihood 20\/40, generate_until 0\/10 · [\d.]+ responses\/s · ETA [\d:–]+ · task arc · errors 0$/);
  s.update({ kind: 'failed', message: 'boom' });
  assert.deepEqual([s.failures, s.lastFailure, s.phase], [1, 'boom', 'failed']);
});

test('the ink view draws the counts on a terminal stream', async () => {
  let out = '';
  const stream = Object.assign(
    new Writable({
      write(chunk, _enc, done) {
        out += chunk.toString();
        done();
      },
    }),
    { columns: 90, rows: 20, isTTY: true },
  ) as unknown as NodeJS.WriteStream;
  const events = new RunEvents();
  const state = new ProgressState();
  events.on((e) => state.update(e));
  const stop = await showProgress(state, events, stream);
  await events.emit(planned);
  await events.emit({ kind: 'responses', requestType: 'generate_until', task: 'gsm8k', rows: rows(10), inferenceMs: 1 });
  await stop();
  assert.match(out, /loglikelihood +[█░]+ 8\/40/);
  assert.match(out, /generate_until +[█░]+ 10\/10/);
  assert.match(out, /errors 0/);
});
