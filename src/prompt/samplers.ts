/**
 * Few-shot samplers (lm_eval/api/samplers.py, lmeval-prompts.md §9). One sampler, with
 * one RNG, per task; it is advanced document by document in eval order, so doc i's
 * shots depend on every earlier draw. With `eval_doc` given the default sampler draws
 * n+1 and drops every shot equal to the eval doc (Python `==`), then keeps n; when copies of the eval doc left fewer
 * than n, it draws n again from the pool without them.
 */
import { BadInputError, UnknownNameError, UnsupportedError } from '../errors.ts';
import { PyFloat } from '../py/values.ts';
import { PyRandom } from '../py/random.ts';

type Doc = Record<string, unknown>;

export interface Sampler {
  sample(n: number, evalDoc: Doc | null): Doc[];
}

/** Python `==` over JSON-like values: 1 == 1.0 == True, dicts by keys regardless of order. */
export function pyEquals(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const num = (v: unknown): number | null => (typeof v === 'number' ? v : v instanceof PyFloat ? v.value : typeof v === 'boolean' ? Number(v) : null);
  const x = num(a);
  const y = num(b);
  if (x !== null || y !== null) return x !== null && y !== null && x === y;
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => pyEquals(v, b[i]));
  }
  if (typeof a === 'object' && typeof b === 'object' && a !== null && b !== null) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => k in b && pyEquals((a as Doc)[k], (b as Doc)[k]));
  }
  return false;
}

class ContextSampler implements Sampler {
  constructor(
    private readonly docs: readonly Doc[],
    private readonly rnd: PyRandom,
    private readonly task: string,
  ) {}

  sample(n: number, evalDoc: Doc | null): Doc[] {
    if (n === 0) return [];
    if (this.docs.length === 0) throw new BadInputError(`task '${this.task}': the few-shot pool is empty`);
    const k = evalDoc ? n + 1 : n;
    if (k > this.docs.length) throw new BadInputError(`task '${this.task}': cannot draw ${k} few-shot examples from a pool of ${this.docs.length}`);
    let shots = this.rnd.sample(this.docs, k);
    if (evalDoc) shots = shots.filter((d) => !pyEquals(d, evalDoc)).slice(0, n);
    if (shots.length < n) {
      // The pool holds copies of the eval doc and more than one was drawn: lm-eval 0.4.13 draws again, n from the pool
      // without any copy (the same RNG, so later documents' shots depend on this second draw too).
      const pool = this.docs.filter((d) => !pyEquals(d, evalDoc));
      if (n > pool.length) throw new BadInputError(`task '${this.task}': cannot draw ${n} few-shot examples from a pool of ${pool.length} once the eval document's copies are left out`);
      shots = this.rnd.sample(pool, n);
    }
    return shots;
  }
}

class FirstNSampler implements Sampler {
  constructor(
    private readonly docs: readonly Doc[],
    private readonly task: string,
  ) {}

  sample(n: number, evalDoc: Doc | null): Doc[] {
    const pool = evalDoc ? this.docs.filter((d) => !pyEquals(d, evalDoc)) : this.docs;
    if (n > pool.length) throw new BadInputError(`task '${this.task}': first_n needs ${n} few-shot examples, the pool has ${pool.length}`);
    return pool.slice(0, n);
  }
}

export type SamplerName = 'default' | 'first_n' | 'balanced' | 'manual';

/** lm-eval defines `balanced` and `manual` but never implemented them (they raise); we refuse the same way. */
const SAMPLERS: Record<SamplerName, (docs: readonly Doc[], rnd: PyRandom, task: string) => Sampler> = {
  default: (docs, rnd, task) => new ContextSampler(docs, rnd, task),
  first_n: (docs, _rnd, task) => new FirstNSampler(docs, task),
  balanced: () => {
    throw new UnsupportedError("sampler 'balanced' is not implemented in lm-eval (BalancedSampler raises NotImplementedError)");
  },
  manual: () => {
    throw new UnsupportedError("sampler 'manual' is not implemented in lm-eval (ManualSampler raises NotImplementedError)");
  },
};

export function makeSampler(name: string, docs: readonly Doc[], rnd: PyRandom, task: string): Sampler {
  if (!(name in SAMPLERS)) throw new UnknownNameError('few-shot sampler', name, Object.keys(SAMPLERS));
  return SAMPLERS[name as SamplerName](docs, rnd, task);
}
