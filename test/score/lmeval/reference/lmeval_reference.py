"""Reference values for test/score/lmeval/*.test.ts, computed with Python's own `re`,
`random`, `collections.Counter` and numpy, following lm-eval 0.4's code paths
(lm_eval/filters/extraction.py, lm_eval/api/metrics.py, lm_eval/api/task.py; lm-eval
itself is not imported: each function below is a line-for-line transcription of the
harness function named in its docstring).

Run:  python3 test/score/lmeval/reference/lmeval_reference.py > test/score/lmeval/reference/cases.json
(CPython 3.11, numpy 2.x)
"""
import collections
import json
import math
import random
import re
import string
import sys
import unicodedata

import numpy as np


def regex_filter(resps, pattern, group_select=0, fallback="[invalid]"):
    """lm_eval.filters.extraction.RegexFilter.apply, one instance."""
    regex = re.compile(pattern)
    out = []
    for r in resps:
        if not isinstance(r, str):
            r = ""
        match = regex.findall(r)
        if match:
            match = match[group_select]
            if isinstance(match, tuple):
                match = [m for m in match if m]
                match = match[0] if match else fallback
            match = match.strip()
        else:
            match = fallback
        out.append(match)
    return out


def multi_choice_regex(resps, choices, pattern, group_select=0, fallback="[invalid]", ignore_case=False,
                       ignore_punctuation=False, regexes_to_ignore=None):
    """lm_eval.filters.extraction.MultiChoiceRegexFilter.apply, one instance."""
    regex = re.compile(pattern)
    punct_tbl = dict.fromkeys(i for i in range(sys.maxunicode) if unicodedata.category(chr(i)).startswith("P"))

    def find_match(regex, resp, convert_dict={}):
        match = regex.findall(resp)
        if match:
            match = match[group_select]
            if isinstance(match, tuple):
                match = [m for m in match if m][0] if any(match) else ""
            match = match.strip()
            if match and match in convert_dict:
                match = convert_dict[match]
        return match

    def filter_ignores(st):
        if regexes_to_ignore is not None:
            for s in regexes_to_ignore:
                st = re.sub(s, "", st)
        if ignore_case:
            st = st.lower()
        if ignore_punctuation:
            st = st.translate(punct_tbl)
        return st

    fallback_regexes = []
    choice_to_alpha = {}
    next_alpha = "A"
    without_paren_fallback_regexes = []
    without_paren_to_target = {}
    for c in choices:
        m = filter_ignores(c.strip())
        fallback_regexes.append(f"{re.escape(m)}")
        choice_to_alpha[m] = f"({next_alpha})"
        without_paren_fallback_regexes.append(next_alpha)
        without_paren_to_target[next_alpha] = f"({next_alpha})"
        next_alpha = chr(ord(next_alpha) + 1)
    fallback_regex = re.compile("|".join(fallback_regexes))
    without_paren_fallback_regex = re.compile(rf":[\s]*({'|'.join(without_paren_fallback_regexes)})")
    out = []
    for resp in resps:
        if not isinstance(resp, str):
            resp = ""
        match = find_match(regex, resp)
        if not match:
            match = find_match(fallback_regex, filter_ignores(resp), choice_to_alpha)
            if not match:
                match = find_match(without_paren_fallback_regex, resp, without_paren_to_target)
        if not match:
            match = fallback
        out.append(match)
    return out


def exact_match_hf(predictions, references, regexes_to_ignore=None, ignore_case=False, ignore_punctuation=False,
                   ignore_numbers=False):
    """lm_eval.api.metrics.exact_match_hf_evaluate."""
    if regexes_to_ignore is not None:
        for s in regexes_to_ignore:
            predictions = np.array([re.sub(s, "", x) for x in predictions])
            references = np.array([re.sub(s, "", x) for x in references])
    else:
        predictions = np.asarray(predictions)
        references = np.asarray(references)
    if ignore_case:
        predictions = np.char.lower(predictions)
        references = np.char.lower(references)
    if ignore_punctuation:
        repl_table = string.punctuation.maketrans("", "", string.punctuation)
        predictions = np.char.translate(predictions, table=repl_table)
        references = np.char.translate(references, table=repl_table)
    if ignore_numbers:
        repl_table = string.digits.maketrans("", "", string.digits)
        predictions = np.char.translate(predictions, table=repl_table)
        references = np.char.translate(references, table=repl_table)
    score_list = predictions == references
    return float(np.mean(score_list))


def mean(arr):
    return sum(arr) / len(arr)


def sample_stddev(arr):
    mu = mean(arr)
    return math.sqrt(sum([(x - mu) ** 2 for x in arr]) / (len(arr) - 1))


def mean_stderr(arr):
    return sample_stddev(arr) / math.sqrt(len(arr))


def median(arr):
    return sorted(arr)[len(arr) // 2]


def perplexity(items):
    return math.exp(-mean(items))


def bootstrap_stderr(f, xs, iters):
    """lm_eval.api.metrics.bootstrap_stderr (single-process path, identical output)."""
    res = []
    chunk_size = min(1000, iters)
    for i in range(iters // chunk_size):
        rnd = random.Random(i)
        for _ in range(chunk_size):
            res.append(f(rnd.choices(xs, k=len(xs))))
    return sample_stddev(res)


def pooled_sample_stderr(stderrs, sizes):
    pooled_sample_var = (sum([(size - 1) * stderr**2 * size for size, stderr in zip(sizes, stderrs)])) / (sum(sizes) - len(sizes))
    return np.sqrt(pooled_sample_var / sum(sizes))


def mc(lls, is_greedy, choices, gold):
    """ConfigurableTask.process_results, multiple_choice branch (single or list gold)."""
    completion_len = np.array([float(len(i)) for i in choices])
    byte_length = np.array([float(len(i.encode("utf-8"))) for i in choices])
    pred = np.argmax(lls)
    pred_norm = np.argmax(np.array(lls) / completion_len)
    pred_byte = np.argmax(np.array(lls) / byte_length)
    if isinstance(gold, list):
        gold = [i if i < len(choices) else -100 for i in gold]
        acc = 1.0 if pred in gold else 0.0
        acc_norm = 1.0 if pred_norm in gold else 0.0
        acc_bytes = 1.0 if pred_byte in gold else 0.0
        exact_match = int(any([is_greedy[i] if i != -100 else 0 for i in gold]))
    else:
        acc = 1.0 if pred == gold else 0.0
        acc_norm = 1.0 if pred_norm == gold else 0.0
        acc_bytes = 1.0 if pred_byte == gold else 0.0
        exact_match = int(is_greedy[gold]) if gold != -100 else 0
    return {"acc": acc, "acc_norm": acc_norm, "acc_bytes": acc_bytes, "exact_match": exact_match}


REGEX_CASES = [
    ("#### (\\-?[0-9\\.\\,]+)", "The answer #### 1,234.", 0),
    ("(-?[$0-9.,]{2,})|(-?[0-9]+)", "I have 3 apples and $1,000 dollars. total 7", -1),
    ("(-?[$0-9.,]{2,})|(-?[0-9]+)", "I have 3 apples and $1,000 dollars. total 7", 0),
    ("The answer is (\\-?[0-9\\.\\,]+).", "So the answer is 42.\n", 0),
    ("\\d+", "\u0663\u0664 and 12", 0),
    ("\\d+", "\u0663\u0664 and 12", -1),
    ("(\\w+)", "\u00e9t\u00e9 na\u00efve_x", -1),
    ("\\bword\\b", "\u00e9word word_x word", 0),
    ("(\\S+)\\s+(\\S+)", "a\u001cb\u0085c\ufeffd e", 0),
    ("x\\s*$", "ax  \n", 0),
    ("4\\.$", "4.\n", 0),
    ("(?i)answer: ([a-d])", "ANSWER: C", 0),
    ("(?P<num>\\d+)-(?P=num)", "12-13 7-7", 0),
    ("a{,2}b", "aaab", 0),
    ("x{", "ax{b", 0),
    ("[]a]+", "]a]b", 0),
    ("a*", "baaac", -1),
    ("(?m)^(\\d+)$", "1\n22\n333\n", 1),
    ("a.b", "a\rb a\nb", 0),
    ("(?s)a.b", "a\nb", 0),
    ("(A)|(B)", "B", 0),
    ("(A)|(B)", "xyz", 0),
    ("\\$?(\\d+(?:\\.\\d+)?)", "costs $3.50 or 4", -1),
    ("[\\d\\.]+", "v1.2.3", 0),
    ("\\((A|B|C|D)\\)", "I pick (B) then (D)", -1),
    # A "]" outside a set is a literal in Python (and "[[:alpha:]]" is the set "[[:alph]" then "]").
    ("[[:alpha:]]", "x a] :]", 0),
    ("\\(([A-D])\\)]", "see (B)] and (C)", 0),
]

EM_CASES = [
    (["1,234."], ["Natalia sold…\n#### 1234"], {"ignore_case": True, "regexes_to_ignore": [",", "\\$", "(?s).*#### ", "\\.$"]}),
    (["$1,234"], ["x\n#### 1234"], {"ignore_case": True, "regexes_to_ignore": [",", "\\$", "(?s).*#### ", "\\.$"]}),
    (["[invalid]"], ["x\n#### 1234"], {"ignore_case": True, "regexes_to_ignore": [",", "\\$", "(?s).*#### ", "\\.$"]}),
    (["4.\n"], ["4\n"], {"regexes_to_ignore": ["\\.$"]}),
    (["Hello, World! 42 "], ["hello world"], {"ignore_case": True, "ignore_punctuation": True, "ignore_numbers": True}),
    (["Hello, World! 42"], ["hello world"], {"ignore_case": True, "ignore_punctuation": True, "ignore_numbers": True}),
    (["\u0130x"], ["i\u0307x"], {"ignore_case": True}),
    (["a\u0000"], ["a"], {}),
    ([" no"], ["no"], {"ignore_case": True, "ignore_punctuation": True}),
    (["No."], ["no"], {"ignore_case": True, "ignore_punctuation": True}),
    (["caf\u00e9\u2019"], ["caf\u00e9"], {"ignore_punctuation": True}),
    (["B", "B", "B", "B"], ["A", "B", "C", "D"], {}),
]

MC_CASES = [
    ([-1.0, -1.0, -2.0], [False, False, False], ["a", "bb", "c"], 1),
    ([-4.0, -3.0, -6.0], [False, True, False], ["long one", "x", "\U0001F600\U0001F600"], 0),
    ([-4.0, -3.0, -6.0], [False, True, False], ["\u00e9\u00e9\u00e9\u00e9", "xyz", "\U0001F600"], 2),
    ([-4.0, -3.0, -6.0], [False, True, False], ["a", "b", "c"], [0, 1]),
    ([-4.0, -3.0, -6.0], [False, True, False], ["a", "b", "c"], [5]),
    ([-4.0, float("nan"), -6.0], [False, False, False], ["a", "b", "c"], 1),
]


GSM_KWARGS = {"ignore_case": True, "ignore_punctuation": False, "regexes_to_ignore": [",", "\\$", "(?s).*#### ", "\\.$"]}
GSM_FILTERS = [
    {"name": "strict-match", "filter": [{"function": "regex", "regex_pattern": "#### (\\-?[0-9\\.\\,]+)"}, {"function": "take_first"}]},
    {"name": "flexible-extract", "filter": [{"function": "regex", "group_select": -1, "regex_pattern": "(-?[$0-9.,]{2,})|(-?[0-9]+)"}, {"function": "take_first"}]},
]


def synthetic_run():
    """A 0.4.12-style results file and samples (two generate_until tasks with two filter
    pipelines each, under one group), scored the lm-eval way: filters, exact_match,
    mean / mean_stderr, size-weighted group with pooled stderr."""
    import hashlib
    sha = lambda t: hashlib.sha256(t.encode("utf-8")).hexdigest()
    rng = random.Random(3)
    answers = ["The total is 12.\n#### 12", "So 1,234 apples.\n#### 1234", "I think $5.", "#### -3", "We get 7 and 8",
               "caf\u00e9 \u0663 #### 42.", "nothing", "#### 1,000\n", "3 + 4 = 7. #### 7", "value: 0.5 #### .5"]
    tasks = {"gsm_a": 7, "gsm_b": 12}
    results, samples, configs, nsamples, hashes = {}, {}, {}, {}, {}
    for task, n in tasks.items():
        docs = []
        golds = ["12", "1234", "5", "-3", "8", "42", "nothing", "1000", "7", ".5"]
        for i in range(n):
            gold_num = golds[(i * 7 + len(task)) % len(answers)] if i % 4 else rng.choice(golds)
            docs.append({"question": f"q{i}?", "answer": f"work\n#### {gold_num}", "idx": i, "score": 1.0 * i})
        lines = []
        per = {}
        for f in GSM_FILTERS:
            vals = []
            for i, doc in enumerate(docs):
                resp = answers[(i * 7 + len(task)) % len(answers)]
                filtered = regex_filter([resp], f["filter"][0]["regex_pattern"], f["filter"][0].get("group_select", 0))[0]
                em = exact_match_hf([filtered], [doc["answer"]], **GSM_KWARGS)
                vals.append(em)
                prompt = f"Question: {doc['question']}\nAnswer:"
                line = {"doc_id": i, "doc": doc, "target": doc["answer"],
                        "arguments": {"gen_args_0": {"arg_0": prompt, "arg_1": {"until": ["Question:"], "do_sample": False}}},
                        "resps": [[resp]], "filtered_resps": [filtered], "filter": f["name"], "metrics": ["exact_match"],
                        "doc_hash": sha(json.dumps(doc, indent=2, ensure_ascii=False)), "prompt_hash": sha(prompt),
                        "target_hash": sha(doc["answer"]), "exact_match": em}
                lines.append(json.dumps(line, ensure_ascii=False))
            per[f["name"]] = vals
        samples[task] = lines
        hashes[task] = sha("".join(json.loads(l)["doc_hash"] + json.loads(l)["prompt_hash"] + json.loads(l)["target_hash"] for l in lines))
        res = {"alias": task, "name": task, "sample_len": n}
        for fname, vals in per.items():
            res[f"exact_match,{fname}"] = mean(vals)
            res[f"exact_match_stderr,{fname}"] = mean_stderr(vals)
        results[task] = res
        configs[task] = {"task": task, "dataset_path": "synthetic/gsm", "test_split": "test", "output_type": "generate_until",
                         "generation_kwargs": {"until": ["Question:"], "do_sample": False}, "repeats": 1,
                         "filter_list": GSM_FILTERS, "num_fewshot": 0, "target_delimiter": " ",
                         "metric_list": [dict({"metric": "exact_match", "aggregation": "mean", "higher_is_better": True}, **GSM_KWARGS)]}
        nsamples[task] = {"original": n, "effective": n}
    # A multiple_choice task: stringified (ll, is_greedy) resps, choices read back from arg_1 minus the delimiter.
    mc_task, mc_lines, acc, acc_norm = "arc_like", [], [], []
    choice_sets = [["ice", "steam", "rock", "wood"], ["\u00e9t\u00e9 chaud", "winter", "a", "\U0001F600\U0001F600"]]
    for i in range(9):
        choices = choice_sets[i % 2]
        lls = [round(-rng.uniform(0.5, 9.0), 3) for _ in choices]
        if i == 4:
            lls = [-2.0, -2.0, -5.0, -7.0]
        greedy = [ll == max(lls) for ll in lls]
        gold = (i * 3) % 4
        vals = mc(lls, greedy, choices, gold)
        acc.append(vals["acc"])
        acc_norm.append(vals["acc_norm"])
        doc = {"id": f"q{i}", "question": f"Which {i}?", "choices": {"text": choices, "label": list("ABCD")}, "answerKey": "ABCD"[gold]}
        ctx = f"Question: Which {i}?\nAnswer:"
        line = {"doc_id": i, "doc": doc, "target": str(gold),
                "arguments": {f"gen_args_{j}": {"arg_0": ctx, "arg_1": " " + c} for j, c in enumerate(choices)},
                "resps": [[[str(ll), str(g)]] for ll, g in zip(lls, greedy)],
                "filtered_resps": [[str(ll), str(g)] for ll, g in zip(lls, greedy)],
                "filter": "none", "metrics": ["acc", "acc_norm"],
                "doc_hash": sha(json.dumps(doc, indent=2, ensure_ascii=False)), "prompt_hash": sha(ctx), "target_hash": sha(str(gold)),
                "acc": vals["acc"], "acc_norm": vals["acc_norm"]}
        mc_lines.append(json.dumps(line, ensure_ascii=False))
    samples[mc_task] = mc_lines
    hashes[mc_task] = sha("".join(json.loads(l)["doc_hash"] + json.loads(l)["prompt_hash"] + json.loads(l)["target_hash"] for l in mc_lines))
    results[mc_task] = {"alias": mc_task, "name": mc_task, "sample_len": 9, "acc,none": mean(acc), "acc_stderr,none": mean_stderr(acc),
                        "acc_norm,none": mean(acc_norm), "acc_norm_stderr,none": mean_stderr(acc_norm)}
    configs[mc_task] = {"task": mc_task, "output_type": "multiple_choice", "target_delimiter": " ", "num_fewshot": 0, "repeats": 1,
                        "metric_list": [{"metric": "acc", "aggregation": "mean", "higher_is_better": True},
                                        {"metric": "acc_norm", "aggregation": "mean", "higher_is_better": True}]}
    nsamples[mc_task] = {"original": 9, "effective": 9}
    group = {"alias": "gsm", "name": "gsm", "sample_len": sum(tasks.values())}
    for fname in ("strict-match", "flexible-extract"):
        vals = [results[t][f"exact_match,{fname}"] for t in tasks]
        ses = [results[t][f"exact_match_stderr,{fname}"] for t in tasks]
        sizes = list(tasks.values())
        group[f"exact_match,{fname}"] = sum([v * s for v, s in zip(vals, sizes)]) / sum(sizes)
        group[f"exact_match_stderr,{fname}"] = float(pooled_sample_stderr(ses, sizes))
    results["gsm"] = group
    out = {"results": results, "groups": {"gsm": group}, "group_subtasks": {"gsm": list(tasks)}, "configs": configs,
           "versions": {t: 1.0 for t in tasks}, "n-shot": {t: 0 for t in tasks}, "n-samples": nsamples,
           "config": {"model": "hf", "model_args": {"pretrained": "synthetic/model"}, "batch_size": 1, "limit": None,
                      "bootstrap_iters": 100000, "gen_kwargs": {}},
           "git_hash": "0000000", "pretty_env_info": "Python version: 3.11.7", "lm_eval_version": "0.4.12",
           "task_hashes": hashes, "model_source": "hf", "model_name": "synthetic/model", "chat_template": None,
           "chat_template_sha": None, "fewshot_as_multiturn": None, "system_instruction": None}
    return {"results_json": json.dumps(out, indent=2, ensure_ascii=False), "samples": samples}


def main():
    regex = []
    for pattern, text, group in REGEX_CASES:
        regex.append({"pattern": pattern, "text": text, "group_select": group,
                      "findall": [list(m) if isinstance(m, tuple) else m for m in re.findall(pattern, text)],
                      "filtered": regex_filter([text], pattern, group)[0]})
    mcr_choices = ["Paris", "London", "Berlin, Germany", "Rome"]
    mcr = [{"resp": r, "out": multi_choice_regex([r], mcr_choices, "(\\([A-Z]\\))", -1, ignore_case=True, ignore_punctuation=True)[0]}
           for r in ["I think the answer is (B).", "It is berlin germany!", "answer: C", "no idea", "Paris or london"]]
    em = [{"predictions": p, "references": r, "kwargs": k, "value": exact_match_hf(p, r, **k)} for p, r, k in EM_CASES]
    mcs = [{"lls": l, "is_greedy": g, "choices": c, "gold": gold, "values": mc(l, g, c, gold)} for l, g, c, gold in MC_CASES]
    votes = [{"resps": r, "winner": collections.Counter(r).most_common(1)[0][0]} for r in (["b", "a", "a", "b", "c"], ["x", "y"], ["1", "2", "2"])]

    xs = [-(i % 7) * 0.37 - 0.1 for i in range(50)]
    rng = random.Random(7)
    floats = [rng.uniform(-3, 3) * 10 ** rng.randint(-3, 3) for _ in range(300)]
    with_nan = [float("nan") if i % 11 == 0 else v for i, v in enumerate(floats)]
    arc = [1.0] * 1798 + [0.0] * (2376 - 1798)
    agg = {
        "xs": xs,
        "perplexity": perplexity(xs),
        "bootstrap_perplexity_2000": bootstrap_stderr(perplexity, xs, 2000),
        "bootstrap_median_1000": bootstrap_stderr(median, xs, 1000),
        "bootstrap_mean_1500": bootstrap_stderr(mean, xs, 1500),
        "arc_mean_stderr": mean_stderr(arc),
        "floats": floats,
        "floats_mean": mean(floats),
        "floats_mean_stderr": mean_stderr(floats),
        "floats_median": median(floats),
        "with_nan_nanmean": float(np.nanmean(np.array(with_nan))),
        "pooled": {"values": [0.3, 0.4444444444444444], "sizes": [100, 135],
                   "stderrs": [0.04605661864718382, 0.04292596718256982],
                   "value": sum([v * s for v, s in zip([0.3, 0.4444444444444444], [100, 135])]) / 235,
                   "stderr": float(pooled_sample_stderr([0.04605661864718382, 0.04292596718256982], [100, 135]))},
    }
    json.dump({"regex": regex, "multi_choice_regex": mcr, "exact_match": em, "multiple_choice": mcs,
               "majority_vote": votes, "aggregation": agg, "synthetic_run": synthetic_run()}, sys.stdout, ensure_ascii=False, indent=1,
              allow_nan=True)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
