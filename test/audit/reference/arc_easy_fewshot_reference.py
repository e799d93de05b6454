"""Reference for test/audit/declaredThreshold.test.ts: arc_easy acc,none, gpt2-tiny 0-shot (A) vs 2-shot (B), lm-eval's
own samples (fixtures/models/lmeval-reference/gpt2-tiny/plain and diff-fewshot2), joined on doc_hash.
McNemar exact p = 2 * P(X <= min(b, c)), X ~ Binomial(b + c, 1/2); the paired percentile bootstrap with
random.Random(1234).randrange(n), 2000 resamples, numpy.percentile (linear).
Run: /work/venv-lmeval/bin/python test/audit/reference/arc_easy_fewshot_reference.py > test/audit/reference/arc_easy_fewshot_reference.json
"""
import glob
import json
import math
import os
import random

import numpy as np

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'fixtures', 'models', 'lmeval-reference', 'gpt2-tiny')


def acc(variant):
    path = glob.glob(os.path.join(ROOT, variant, 'samples_arc_easy_*.jsonl'))[0]
    return {r['doc_hash']: r['acc'] for r in map(json.loads, open(path))}


A, B = acc('plain'), acc('diff-fewshot2')
keys = [h for h in A if h in B]
a, b = [A[h] for h in keys], [B[h] for h in keys]
a_only = sum(1 for x, y in zip(a, b) if x == 1 and y == 0)
b_only = sum(1 for x, y in zip(a, b) if x == 0 and y == 1)
m = a_only + b_only
p = min(1.0, 2 * sum(math.comb(m, i) for i in range(min(a_only, b_only) + 1)) / 2 ** m)
d = [y - x for x, y in zip(a, b)]
rng = random.Random(1234)
means = [sum(d[rng.randrange(len(d))] for _ in range(len(d))) / len(d) for _ in range(2000)]
print(json.dumps({'n': len(d), 'a_only': a_only, 'b_only': b_only, 'mcnemar_p': p, 'difference': sum(d) / len(d),
                  'ci': [float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))]}, indent=1))
