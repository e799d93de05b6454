"""Reference values for test/score/lmeval/labelAggregates.test.ts: lm-eval 0.4.13's own f1_score and
matthews_corrcoef aggregations (scikit-learn underneath) and its bootstrap_stderr, and the task code many task
folders aggregate f1 with (scikit-learn's f1_score with average micro, macro or weighted), on label-pair lists that
reach each branch: binary with both labels, one label only, no 1 at all, two labels without 1 (refused), more
than two labels (f1 refused, mcc multiclass), lm-eval's -100 gold, and a list long enough (12,000 pairs) that
mcc's product of variances passes 2^53 and rounds.

Run: /work/venv-lmeval/bin/python test/score/lmeval/reference/make_label_cases.py > test/score/lmeval/reference/label_cases.json
(made with lm-eval 0.4.13, scikit-learn 1.9.1, numpy 2.4.6, CPython 3.11.7 on Linux x86-64).
"""
import json
import os
import random
import sys

os.environ["DISABLE_MULTIPROC"] = "1"  # the same resamples, one process
import lm_eval.api.metrics as M


# The task code many of lm-eval's task folders aggregate f1 with (aradice/piqa/metrics.py, afrimmlu's utils.py, ...):
# the copy the f1-averages reference run uses.
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "..", "scripts", "fixtures", "models", "f1-averages-tasks"))
from utils import macro_f1_score, micro_f1_score, weighted_f1_score  # noqa: E402


def pairs_of(golds, preds):
    return [[int(g), int(p)] for g, p in zip(golds, preds)]


def case(name, pairs, iters=1000):
    tuples = [tuple(p) for p in pairs]
    out = {"name": name, "pairs": pairs}
    for key, fn in (("f1_micro", micro_f1_score), ("f1_macro", macro_f1_score), ("f1_weighted", weighted_f1_score)):
        out[key] = float(fn(tuples))
    for key, fn in (("f1", M.f1_score), ("mcc", M.matthews_corrcoef)):
        try:
            out[key] = float(fn(tuples))
        except ValueError as e:
            out[key] = {"refused": str(e).split("\n")[0]}
            continue
        if len(tuples) > 1 and len(tuples) <= 400:
            sys.stdout.flush()
            old = sys.stdout
            sys.stdout = sys.stderr  # bootstrap_stderr prints its progress
            try:
                out[f"{key}_bootstrap_{iters}"] = float(M.bootstrap_stderr(fn, tuples, iters))
            finally:
                sys.stdout = old
    return out


rng = random.Random(7)
binary = pairs_of([rng.randint(0, 1) for _ in range(60)], [rng.randint(0, 1) for _ in range(60)])
skewed = pairs_of([1] * 9 + [0] * 31, [1] * 4 + [0] * 30 + [1] * 6)
cases = [
    case("binary, 60 random pairs", binary),
    case("binary, skewed", skewed),
    case("one label only (all 0)", pairs_of([0] * 12, [0] * 12)),
    case("one label only (all 1)", pairs_of([1] * 5, [1] * 5)),
    case("golds all 0, preds mixed", pairs_of([0] * 10, [0, 1] * 5)),
    case("two labels without 1", pairs_of([0, 2, 2, 0, 2], [0, 0, 2, 2, 2])),
    case("four labels", pairs_of([rng.randint(0, 3) for _ in range(80)], [rng.randint(0, 3) for _ in range(80)])),
    case("a gold of -100", pairs_of([1, 0, -100, 1, 0, 1], [1, 0, 1, 1, 1, 0])),
    case("12,000 pairs of five labels", pairs_of([rng.randint(0, 4) for _ in range(12000)], [rng.choice([0, 0, 1, 2, 3, 4]) for _ in range(12000)])),
]
json.dump(cases, sys.stdout, indent=1)
sys.stdout.write("\n")
