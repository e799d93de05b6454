"""Reference values for test/audit/pairedCorpus.test.ts.

lm-eval 0.4.13's own corpus aggregations (lm_eval.api.metrics.weighted_perplexity, bits_per_byte) on the
(log-likelihood, weight) pairs of lambada_rolling's 20 shared documents: gpt2-tiny (lm-eval's own run,
fixtures/models/lmeval-reference/gpt2-tiny/extra) as A, qwen3-tiny (lmaudit run's lm-eval files,
fixtures/paired-corpus/qwen3-tiny-lambada-rolling) as B, joined on doc_hash. The paired bootstrap draws
random.Random(seed).randrange(n) for each index, recomputes both aggregates on the same resampled items, and takes
numpy.percentile (linear) of the differences.
Run: /work/venv-lmeval/bin/python test/audit/reference/paired_corpus_reference.py > test/audit/reference/paired_corpus_reference.json
"""
import glob
import json
import os
import random

import numpy as np
from lm_eval.api.metrics import bits_per_byte, weighted_perplexity

ROOT = os.path.join(os.path.dirname(__file__), '..', '..', '..', 'fixtures')


def pairs(folder):
    path = glob.glob(os.path.join(ROOT, folder, 'samples_lambada_rolling_*.jsonl'))[0]
    rows = [json.loads(line) for line in open(path)]
    return {r['doc_hash']: {m: tuple(r[m]) for m in ('word_perplexity', 'byte_perplexity', 'bits_per_byte')} for r in rows}


A = pairs('models/lmeval-reference/gpt2-tiny/extra')
B = pairs('paired-corpus/qwen3-tiny-lambada-rolling')
shared = [h for h in A if h in B]
AGG = {'word_perplexity': weighted_perplexity, 'byte_perplexity': weighted_perplexity, 'bits_per_byte': bits_per_byte}


def paired(metric, iterations, seed):
    a = [A[h][metric] for h in shared]
    b = [B[h][metric] for h in shared]
    f = AGG[metric]
    rng = random.Random(seed)
    n = len(a)
    diffs = []
    for _ in range(iterations):
        idx = [rng.randrange(n) for _ in range(n)]
        diffs.append(f([b[i] for i in idx]) - f([a[i] for i in idx]))
    return {'n': n, 'a': f(a), 'b': f(b), 'ci': [float(np.percentile(diffs, 2.5)), float(np.percentile(diffs, 97.5))]}


print(json.dumps({m: paired(m, 2000, 1234) for m in AGG}, indent=1))
