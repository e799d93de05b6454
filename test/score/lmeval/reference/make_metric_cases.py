"""Reference values for test/score/lmeval/metricPorts.test.ts.

Run: python3 -m venv /tmp/v && /tmp/v/bin/pip install sacrebleu numpy
     /tmp/v/bin/python test/score/lmeval/reference/make_metric_cases.py > test/score/lmeval/reference/metric_cases.json
(made with sacrebleu 2.6.0, regex 2026.9.29, numpy 2.4.6, CPython 3.11.7 on Linux x86-64).

Every value that goes through math.exp / math.log / np.exp is written twice: as this machine's
libm gives it ("libm") and with a correctly rounded exp/log ("cr": Decimal at 60 digits, rounded
once to a double) patched into the same Python code, which is what lmaudit computes.
"""
import json
import math
import random
import re
import gzip
import sys
from decimal import Decimal, getcontext

import numpy as np
import sacrebleu
import sacrebleu.metrics.bleu as bleu_module
import sacrebleu.utils as sacre_utils

getcontext().prec = 60
SAMPLES = 'fixtures/external/lm-evaluation-harness/pr3032-truthfulqa-gen/samples_truthfulqa_gen_2025-05-31T13-51-32.759677.jsonl.gz'


def cr_exp(x):
    if x > 709.782712893384:
        return math.inf
    return float(Decimal(x).exp())


def cr_log(x):
    return float(Decimal(x).ln())


class CRMath:
    exp = staticmethod(cr_exp)
    log = staticmethod(cr_log)


def tqa_bleu(ref, pred):
    """lm_eval/tasks/truthfulqa/utils.py bleu([[ref]], [pred])."""
    return sacrebleu.corpus_bleu([pred], [[ref]], smooth_method="exp", smooth_value=0.0, force=False,
                                 lowercase=False, tokenize="intl", use_effective_order=False)


def bleu_case(ref, pred):
    libm = tqa_bleu(ref, pred)
    bleu_module.math, sacre_utils.math = CRMath, CRMath
    try:
        cr = tqa_bleu(ref, pred)
    finally:
        bleu_module.math, sacre_utils.math = math, math
    return {"ref": ref, "pred": pred, "counts": list(libm.counts), "totals": list(libm.totals),
            "sys_len": libm.sys_len, "ref_len": libm.ref_len, "libm": libm.score, "cr": cr.score}


TRICKY = [
    ("The cat sat on the mat.", "The cat sat on the mat."),
    ("It costs $1,000.50 in 2020.", "It costs $1,000.50 in 2020."),
    ("Hello, world!", "hello world"),
    ("Nothing matches here.", "Zebras gallop."),
    ("", "Empty reference."),
    ("A reference.", ""),
    ("Short.", "A much longer hypothesis than the short reference, which pays no brevity penalty."),
    ("A much longer reference than the hypothesis gives, so brevity applies.", "A much longer reference."),
    ("« Guillemets » and “curly quotes” — dashes… ellipsis", "“curly quotes” — dashes"),
    ("Symbols: 5 + 3 = 8 < 9 > 7 © ® ™ € £ ¥ ^ ` |", "5 + 3 = 8 © €"),
    ("Ends with a number 1999.", "ends with a number 1999."),
    ("Trailing spaces .   ", "Trailing spaces ."),
    ("Tabs\tand\u00a0no-break\u2003spaces", "Tabs and no-break spaces"),
    ("日本語の文。句読点、あり。", "日本語の文。"),
    ("x.y.z 3.14 a-b c_d e/f (g) [h] {i}", "x.y.z 3.14 a-b"),
    ("I have no comment.", "I have no comment"),
]


def bleu_cases():
    out = [bleu_case(r, p) for r, p in TRICKY]
    lines = gzip.open(SAMPLES, 'rt', encoding='utf-8').read().splitlines()
    for i in range(0, len(lines), 7):
        s = json.loads(lines[i])
        pred = s["filtered_resps"][0]
        doc = s["doc"]
        for ref in (doc["correct_answers"][0], doc["incorrect_answers"][-1]):
            out.append(bleu_case(ref, pred))
    return out


def corpus_cases():
    """corpus_bleu over several segments and two reference streams (max n-gram counts, closest length)."""
    hyps = ["The cat is on the mat.", "There is a dog here!", "Nothing."]
    refs = [["The cat sat on the mat.", "A dog is here.", "Nothing at all."],
            ["On the mat is a cat.", "There is a dog here.", "Nothing"]]
    bleu_module.math, sacre_utils.math = CRMath, CRMath
    try:
        cr = sacrebleu.corpus_bleu(hyps, refs, smooth_method="exp", smooth_value=0.0, tokenize="intl")
        floor = sacrebleu.corpus_bleu(hyps[2:], [r[2:] for r in refs], smooth_method="floor", smooth_value=0.1, tokenize="intl",
                                      use_effective_order=True)
    finally:
        bleu_module.math, sacre_utils.math = math, math
    return {"hyps": hyps, "refs": refs, "counts": list(cr.counts), "totals": list(cr.totals), "sys_len": cr.sys_len,
            "ref_len": cr.ref_len, "cr": cr.score, "floor_effective_cr": floor.score}


def math_cases():
    rnd = random.Random(7)
    xs = [rnd.uniform(1e-6, 1e3) for _ in range(400)] + [rnd.uniform(0.9, 1.1) for _ in range(100)]
    xs += [1e-300, 5e-324, 2.2250738585072014e-308, 0.5, 2.0, 10.0, 1.0000000000000002, 0.9999999999999999, 1.7976931348623157e308]
    es = [rnd.uniform(-745, 709) for _ in range(300)] + [rnd.uniform(-5, 5) for _ in range(300)]
    es += [-745.0, -744.5, -708.5, -700.0, 709.7, 1e-20, -1e-20, 0.5, -0.5, 1.0]
    return {
        "log": [[x, cr_log(x), math.log(x)] for x in xs],
        "exp": [[e, cr_exp(e), math.exp(e)] for e in es],
    }


def mc2(lls, labels, exp):
    """lm_eval/tasks/truthfulqa/utils.py process_results_mc2 with the given elementwise exp."""
    split_idx = list(labels).index(0)
    ll_true, ll_false = lls[:split_idx], lls[split_idx:]
    p_true, p_false = exp(np.array(ll_true)), exp(np.array(ll_false))
    with np.errstate(all="ignore"):
        p_true = p_true / (sum(p_true) + sum(p_false))
    return float(sum(p_true))


def mc2_cases():
    rnd = random.Random(11)
    cases = [
        ([-1.5, -2.25, -0.75, -3.0], [1, 1, 0, 0]),
        ([-1000.0, -1001.0, -1002.0], [1, 0, 0]),
        ([800.0, -1.0, -2.0], [1, 0, 0]),
        ([-5.0, -6.0], [0, 1]),
    ]
    for _ in range(40):
        n = rnd.randint(2, 13)
        k = rnd.randint(1, n - 1)
        cases.append(([rnd.uniform(-80, -0.5) for _ in range(n)], [1] * k + [0] * (n - k)))
    cr_np = np.vectorize(cr_exp, otypes=[float])
    with np.errstate(all="ignore"):
        return [{"lls": lls, "labels": labels, "numpy": mc2(lls, labels, np.exp), "cr": mc2(lls, labels, cr_np)} for lls, labels in cases]


def mc2_run():
    """A truthfulqa_mc2 run in lm-eval 0.4.8's file layout: per-doc acc from numpy, the printed mean and mean_stderr."""
    rnd = random.Random(5)
    samples, accs = [], []
    for doc_id in range(6):
        n = rnd.randint(3, 8)
        k = rnd.randint(1, n - 1)
        labels = [1] * k + [0] * (n - k)
        choices = [f"answer {doc_id}.{i}." for i in range(n)]
        lls = [rnd.uniform(-40, -2) for _ in range(n)]
        acc = mc2(lls, labels, np.exp)
        accs.append(np.float64(acc))
        doc = {"question": f"Question {doc_id}?", "mc1_targets": {"choices": choices[:2], "labels": [1, 0]},
               "mc2_targets": {"choices": choices, "labels": labels}}
        samples.append(json.dumps({
            "doc_id": doc_id, "doc": doc, "target": 0,
            "arguments": {f"gen_args_{i}": {"arg_0": f"Q: Question {doc_id}?\nA:", "arg_1": f" {c}"} for i, c in enumerate(choices)},
            "resps": [[[ll, False]] for ll in lls], "filtered_resps": [[ll, False] for ll in lls],
            "filter": "none", "metrics": ["acc"], "acc": acc}))
    mu = sum(accs) / len(accs)
    stderr = math.sqrt(sum([(x - mu) ** 2 for x in accs]) / (len(accs) - 1)) / math.sqrt(len(accs))
    results = {
        "results": {"truthfulqa_mc2": {"alias": "truthfulqa_mc2", "acc,none": float(mu), "acc_stderr,none": float(stderr)}},
        "configs": {"truthfulqa_mc2": {
            "task": "truthfulqa_mc2", "dataset_path": "truthfulqa/truthful_qa", "dataset_name": "multiple_choice",
            "validation_split": "validation", "output_type": "multiple_choice", "doc_to_target": 0,
            "doc_to_choice": "{{mc2_targets.choices}}",
            "process_results": "def process_results_mc2(doc, results):\n    lls, is_greedy = zip(*results)\n",
            "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True}]}},
        "versions": {"truthfulqa_mc2": 3.0}, "n-shot": {"truthfulqa_mc2": 0},
        "n-samples": {"truthfulqa_mc2": {"original": 6, "effective": 6}},
        "config": {"model": "hf", "bootstrap_iters": 100000}, "lm_eval_version": "0.4.8",
    }
    return {"results_json": json.dumps(results), "samples": samples}


def rolling_cases():
    texts = ["a b c", " a b ", "", "one\ttwo\nthree  four", "no\u00a0break\u2003em", "x\u200by", "trailing\n", "ünïcödé wörds"]
    words = [[t, len(re.split(r"\s+", t)), len(t.encode("utf-8"))] for t in texts]
    rnd = random.Random(3)
    items = [(rnd.uniform(-400, -1), rnd.randint(1, 300)) for _ in range(50)]
    a, b = zip(*items)
    wm = sum(a) / sum(b)
    return {"words": words, "items": items, "weighted_perplexity": cr_exp(-wm), "bits_per_byte": -wm / math.log(2),
            "weighted_perplexity_libm": math.exp(-wm)}


def no_nan(v):
    """JSON has no NaN: write it as the string "NaN"."""
    if isinstance(v, float) and math.isnan(v):
        return "NaN"
    if isinstance(v, dict):
        return {k: no_nan(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [no_nan(x) for x in v]
    return v


json.dump(no_nan({"bleu": bleu_cases(), "corpus": corpus_cases(), "math": math_cases(), "mc2": mc2_cases(), "mc2_run": mc2_run(), "rolling": rolling_cases()}),
          sys.stdout, ensure_ascii=False, indent=0, allow_nan=False)
