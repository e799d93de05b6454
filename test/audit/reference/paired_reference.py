"""Reference values for test/audit/pairedStats.test.ts.

McNemar exact p from scipy's binomial test, and the paired percentile bootstrap
redone with CPython's random.Random(seed).randrange(n) and numpy.percentile.
Run: python3 test/audit/reference/paired_reference.py
"""
import json
import random

import math

import numpy as np
from scipy.stats import binomtest, norm


def bootstrap(diffs, iterations, seed, alpha=0.05):
    rng = random.Random(seed)
    n = len(diffs)
    means = []
    for _ in range(iterations):
        s = 0.0
        for _ in range(n):
            s += diffs[rng.randrange(n)]
        means.append(s / n)
    return [float(np.percentile(means, 100 * alpha / 2)), float(np.percentile(means, 100 * (1 - alpha / 2)))]


# Binary scores: 40 items, 9 right only in A, 2 right only in B.
a = [1] * 20 + [0] * 9 + [1] * 9 + [0] * 2
b = [1] * 20 + [0] * 9 + [0] * 9 + [1] * 2
diffs = [float(y - x) for x, y in zip(a, b)]
out = {
    "binary": {
        "a": a,
        "b": b,
        "mcnemar_p": binomtest(min(9, 2), 11, 0.5).pvalue,
        "ci": bootstrap(diffs, 2000, 1234),
    },
    # Continuous scores (e.g. BLEU-like), seed 7, 500 resamples.
    "continuous": {},
    "mcnemar_large": binomtest(480, 1000, 0.5).pvalue,
    "mcnemar_wide": binomtest(30, 1000, 0.5).pvalue,
    # Mistral-7B winogrande standard vs question-shuffled (pr1567): 516 right only in A, 135 only in B.
    "mcnemar_winogrande_shuffle": binomtest(135, 651, 0.5).pvalue,
}
# Qwen2.5-7B arc_easy acc, bf16 run vs float32 run (pr2809): lm-eval's unpaired z on the reported numbers.
a, sa, b, sb = 0.8038720538720538, 0.008147631877470324, 0.8042929292929293, 0.00814101540756688
z = (b - a) / math.sqrt(sa * sa + sb * sb)
out["unpaired_qwen_arc_easy"] = {"z": z, "p": float(2 * norm.sf(abs(z)))}
# Pythia-160m step143000, 0-shot vs 5-shot lambada_openai (fixtures/external/pythia): far tails, where
# 1 - erf(x) from a 7-digit approximation keeps no digit of p.
for name, (a, sa, b, sb) in {
    "unpaired_pythia_lambada_ppl": (38.064877017771195, 1.4363799633211518, 65.34571058345023, 2.5473661020369867),
    "unpaired_pythia_lambada_acc": (0.3283524160683097, 0.006542638265686499, 0.25732582961381717, 0.006090499663132531),
}.items():
    z = (b - a) / math.sqrt(sa * sa + sb * sb)
    out[name] = {"z": z, "p": float(2 * norm.sf(abs(z)))}
ca = [round(0.37 * i % 1.0, 6) for i in range(1, 31)]
cb = [round((0.37 * i + 0.05 * (i % 3)) % 1.0, 6) for i in range(1, 31)]
out["continuous"] = {"a": ca, "b": cb, "ci": bootstrap([y - x for x, y in zip(ca, cb)], 500, 7)}
print(json.dumps(out, indent=1))
