#!/usr/bin/env python3
"""Writes an lm-eval samples folder of N documents of a long-prompt shape, for the import benchmark.

  long  generate_until records whose prompt is about 1,800 characters (a 5-shot prompt): the 20 real
        truthfulqa_gen records shipped in fixtures/ (lm-eval 0.4.8 format), each prompt lengthened by
        question/answer shots taken from the others, a question made unique, and the doc_hash and
        prompt_hash that lm-eval would write for them.
  ll    loglikelihood records of 4 requests a document sharing one context of about 2,500 characters:
        the 50 real asdiv records shipped in fixtures/ (a Llama-3 chat 5-shot prompt of 2,629
        characters), each given four continuations (its target and three others) with their
        [log-likelihood, is-greedy] responses.
The fixture's real results file is copied beside it. Usage: generate_long_samples.py long|ll N OUT_DIR
"""
import hashlib
import json
import os
import shutil
import sys

HERE = os.path.dirname(__file__)
TRUTHFULQA = os.path.join(HERE, "..", "fixtures", "lmeval", "pr3032-truthfulqa-gen")
TQA_STAMP = "2025-05-31T14-30-51.983293"
ASDIV = os.path.join(HERE, "..", "fixtures", "lmeval", "pr2236-asdiv", "asdiv", "meta-llama__Meta-Llama-3-8B-Instruct")
ASDIV_STAMP = "2024-08-21T03-44-09.494230"
PROMPT_CHARS = 1800


def sha(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def doc_hash(doc):
    return sha(json.dumps(doc, indent=2, ensure_ascii=False))


def distinct(base, i):
    """A copy of a fixture record as document i: its doc_id, its question made unique, its doc_hash to match."""
    r = dict(base)
    r["doc_id"] = i
    r["doc"] = dict(base["doc"], question=f"{base['doc']['question']} (#{i})")
    r["doc_hash"] = doc_hash(r["doc"])
    return r


def read(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def long_prompts(n, out):
    records = read(os.path.join(TRUTHFULQA, f"samples_truthfulqa_gen_{TQA_STAMP}.jsonl"))
    shots = [f"Q: {r['doc']['question']}\nA: {r['doc']['best_answer']}.\n\n" for r in records]
    with open(os.path.join(out, f"samples_truthfulqa_gen_{TQA_STAMP}.jsonl"), "w", encoding="utf-8") as f:
        for i in range(n):
            base = records[i % len(records)]
            r = distinct(base, i)
            prompt = base["arguments"]["gen_args_0"]["arg_0"]
            k = i
            while len(prompt) < PROMPT_CHARS:
                prompt = shots[k % len(shots)] + prompt
                k += 7
            prompt = prompt.replace(base["doc"]["question"], r["doc"]["question"])
            r["arguments"] = {"gen_args_0": dict(base["arguments"]["gen_args_0"], arg_0=prompt)}
            r["prompt_hash"] = sha(prompt)
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    shutil.copy(os.path.join(TRUTHFULQA, f"truthfulqa_gen_neo125_{TQA_STAMP}.json"), out)


def loglikelihood(n, out):
    records = read(os.path.join(ASDIV, f"samples_asdiv_{ASDIV_STAMP}.jsonl"))
    with open(os.path.join(out, f"samples_asdiv_{ASDIV_STAMP}.jsonl"), "w", encoding="utf-8") as f:
        for i in range(n):
            base = records[i % len(records)]
            r = distinct(base, i)
            context = base["arguments"]["gen_args_0"]["arg_0"]
            continuations = [base["target"], f"{base['target']}0", f"{i % 97}", f"{i % 89} ({i})"]
            r["arguments"] = {f"gen_args_{k}": {"arg_0": context, "arg_1": c} for k, c in enumerate(continuations)}
            pairs = [[repr(-(0.25 + k + (i % 1000) / 1000.0)), "True" if k == 0 else "False"] for k in range(4)]
            r["resps"] = [[p] for p in pairs]
            r["filtered_resps"] = pairs
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    shutil.copy(os.path.join(ASDIV, f"results_{ASDIV_STAMP}.json"), out)


def main():
    shape, n, out = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    os.makedirs(out, exist_ok=True)
    {"long": long_prompts, "ll": loglikelihood}[shape](n, out)


if __name__ == "__main__":
    main()
