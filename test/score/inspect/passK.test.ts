import { test } from 'node:test';
import assert from 'node:assert/strict';
import { reducerByName } from '../../../src/score/inspect/reducers.ts';

// Inspect's pass_k reducer is math.comb(correct, k) / math.comb(total, k), which Python rounds once
// (scripts/fixtures/make_pass_k_cases.py). Past 2^53 the two combinations are no doubles, and dividing their
// nearest doubles rounds twice: these are cases where that gave the other neighbour (roundedTwice).
const CASES = [
  { total: 57, k: 25, correct: 27, passK: 3.534931061569454e-14, roundedTwice: 3.534931061569453e-14 },
  { total: 64, k: 20, correct: 62, passK: 0.46924603174603174, roundedTwice: 0.4692460317460317 },
  { total: 64, k: 30, correct: 55, passK: 0.0019045077266659285, roundedTwice: 0.0019045077266659283 },
  { total: 80, k: 30, correct: 72, passK: 0.018521016367201104, roundedTwice: 0.0185210163672011 },
  { total: 100, k: 20, correct: 78, passK: 0.003694563408785144, roundedTwice: 0.0036945634087851443 },
  { total: 100, k: 30, correct: 83, passK: 0.0011846274867478215, roundedTwice: 0.0011846274867478212 },
];

test("pass_k over many epochs is Python's int/int division, rounded once", () => {
  for (const c of CASES) {
    const values = [...Array(c.correct).fill('C'), ...Array(c.total - c.correct).fill('I')];
    assert.notEqual(c.passK, c.roundedTwice);
    assert.equal(reducerByName(`pass_k_${c.k}`)(values), c.passK, JSON.stringify(c));
  }
});
