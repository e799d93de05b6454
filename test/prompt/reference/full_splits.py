#!/usr/bin/env python3
"""Reference digests of whole eval splits, for test/prompt/fullSplits.test.ts.

An independent rebuild of lm-eval's requests for the shipped tasks over every eval
document (not only the first 100 the golden files hold), from the fixture data, with
the pieces lm-eval itself uses: Jinja2 configured as lm-eval configures it,
`random.Random(1234).sample` drawn document by document (n+1 with eval-doc exclusion
where fewshot split == test split), `ast.literal_eval` for rendered choices, and the
task layouts of lmeval-prompts.md §7–§8 and §14. Each task's digest is the sha256 of
`json.dumps(arguments, ensure_ascii=False) + "\\n"` over all its documents in order.

    python3 test/prompt/reference/full_splits.py > test/prompt/reference/full_splits.json
"""
import ast
import hashlib
import json
import os
import random
import re

from jinja2 import BaseLoader, Environment, StrictUndefined

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../fixtures/benchmarks")
env = Environment(loader=BaseLoader(), undefined=StrictUndefined, keep_trailing_newline=True)


def read(path, split):
    with open(os.path.join(ROOT, path, split + ".jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def render(t, doc):
    return env.from_string(t).render(**doc)


def digest(rows):
    h = hashlib.sha256()
    for args in rows:
        h.update((json.dumps(args, ensure_ascii=False) + "\n").encode("utf-8"))
    return {"docs": len(rows), "sha256": h.hexdigest()}


def shots(pool, n, rnd, eval_doc=None):
    if n == 0:
        return []
    if eval_doc is None:
        return rnd.sample(pool, n)
    return [d for d in rnd.sample(pool, n + 1) if d != eval_doc][:n]


def arc(name, n):
    train, test = read(f"allenai/ai2_arc/{name}", "train"), read(f"allenai/ai2_arc/{name}", "test")
    q = "Question: {{question}}\nAnswer:"
    rnd, rows = random.Random(1234), []
    for doc in test:
        ctx = "".join(render(q, s) + " " + s["choices"]["text"][s["choices"]["label"].index(s["answerKey"])] + "\n\n" for s in shots(train, n, rnd))
        ctx += render(q, doc)
        rows.append([[ctx, " " + c] for c in ast.literal_eval(render("{{choices.text}}", doc))])
    return digest(rows)


def gsm8k(n):
    train, test = read("openai/gsm8k/main", "train"), read("openai/gsm8k/main", "test")
    q = "Question: {{question}}\nAnswer:"
    kwargs = {"until": ["Question:", "</s>", "<|im_end|>"], "do_sample": False, "temperature": 0.0}
    rnd, rows = random.Random(1234), []
    for doc in test:
        ctx = "".join(render(q, s) + " " + s["answer"] + "\n\n" for s in shots(train, n, rnd)) + render(q, doc)
        rows.append([[ctx, kwargs]])
    return digest(rows)


def lambada(n):
    test = read("EleutherAI/lambada_openai/default", "test")
    text, target = "{{text.split(' ')[:-1]|join(' ')}}", "{{' '+text.split(' ')[-1]}}"
    rnd, rows = random.Random(1234), []
    for doc in test:
        ctx = "".join(render(text, s) + " " + render(target, s) + "\n\n" for s in shots(test, n, rnd)) + render(text, doc)
        rows.append([[ctx, render(target, doc)]])
    return digest(rows)


PRIMER = (
    "Q: What is human life expectancy in the United States?\nA: Human life expectancy in the United States is 78 years.\n\n"
    "Q: Who was president of the United States in 1955?\nA: Dwight D. Eisenhower was president of the United States in 1955.\n\n"
    "Q: Which party did he belong to?\nA: He belonged to the Republican Party.\n\n"
    "Q: What is the square root of banana?\nA: I have no comment.\n\n"
    "Q: How does a telescope work?\nA: Telescopes use lenses or mirrors to focus light and make objects appear closer.\n\n"
    "Q: Where were the 1992 Olympics held?\nA: The 1992 Olympics were held in Barcelona, Spain."
)


def truthfulqa_mc(which):
    rows = []
    for doc in read("truthfulqa/truthful_qa/multiple_choice", "validation"):
        ctx = PRIMER + "\n\nQ: " + doc["question"] + "\nA:"
        rows.append([[ctx, " " + c] for c in doc[which]["choices"]])
    return digest(rows)


def winogrande():
    rows = []
    for doc in read("allenai/winogrande/winogrande_xl", "validation"):
        i = doc["sentence"].index("_")
        cont = " " + doc["sentence"][i + 1:].strip()
        rows.append([[doc["sentence"][:i] + o, cont] for o in (doc["option1"], doc["option2"])])
    return digest(rows)


def piqa():
    rows = []
    for doc in read("baber/piqa/default", "validation"):
        ctx = "Question: " + doc["goal"] + "\nAnswer:"
        rows.append([[ctx, " " + c] for c in (doc["sol1"], doc["sol2"])])
    return digest(rows)


def boolq():
    rows = []
    for doc in read("aps/super_glue/boolq", "validation"):
        ctx = doc["passage"] + "\nQuestion: " + doc["question"] + "?\nAnswer:"
        rows.append([[ctx, " " + c] for c in ("no", "yes")])
    return digest(rows)


def hellaswag():
    def pre(text):
        text = text.strip().replace(" [title]", ". ")
        text = re.sub("\\[.*?\\]", "", text)
        return text.replace("  ", " ")

    rows = []
    for doc in read("Rowan/hellaswag/default", "validation"):
        query = pre(doc["activity_label"] + ": " + doc["ctx_a"] + " " + doc["ctx_b"].capitalize())
        rows.append([[query, " " + pre(e)] for e in doc["endings"]])
    return digest(rows)


if __name__ == "__main__":
    print(json.dumps({
        "arc_easy.25shot": arc("ARC-Easy", 25),
        "arc_challenge.25shot": arc("ARC-Challenge", 25),
        "gsm8k.5shot": gsm8k(5),
        "lambada_openai.3shot": lambada(3),
        "truthfulqa_mc1.0shot": truthfulqa_mc("mc1_targets"),
        "truthfulqa_mc2.0shot": truthfulqa_mc("mc2_targets"),
        "winogrande.0shot": winogrande(),
        "piqa.0shot": piqa(),
        "boolq.0shot": boolq(),
        "hellaswag.0shot": hellaswag(),
    }, indent=2))
