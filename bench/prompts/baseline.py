#!/usr/bin/env python3
"""Baseline for the prompt-building benchmark: MMLU 5-shot over all 14,042 test
documents, rendered with Jinja2 (the engine lm-eval uses, configured as lm-eval
configures it) and joined the way lm-eval joins few-shot examples: like lm-eval, every
prompt renders its five shots again. Building (reading the task configs and the data,
rendering, joining, the doc and prompt hashes) runs twice and each run is timed; then
the same JSONL lines as `lmaudit prompts` are written, untimed, so the two outputs can
be compared byte for byte. Prints {"cold": {...}, "warm": {...}, "docs": n}.

    python3 bench/prompts/baseline.py <tasks dir> <datasets dir> <out.jsonl>
"""
import hashlib
import json
import os
import sys
import time

import yaml
from jinja2 import BaseLoader, Environment, StrictUndefined

tasks_dir, data_dir, out_path = sys.argv[1:4]
SHOTS = 5
env = Environment(loader=BaseLoader(), undefined=StrictUndefined, keep_trailing_newline=True)


def load_configs():
    """The task configs, read as lm-eval reads them (YAML), and the compiled template."""
    mmlu_dir = os.path.join(tasks_dir, "mmlu", "default")
    with open(os.path.join(mmlu_dir, "_default_template_yaml"), encoding="utf-8") as f:
        template = yaml.safe_load(f)
    doc_to_text = env.from_string(template["doc_to_text"])
    choices = template["doc_to_choice"]

    # Group order as lm-eval's `mmlu` group lists it; inside each tag, tasks sorted by name.
    by_tag = {}
    for name in sorted(os.listdir(mmlu_dir)):
        if name.startswith("mmlu_") and name.endswith(".yaml"):
            with open(os.path.join(mmlu_dir, name), encoding="utf-8") as f:
                cfg = yaml.safe_load(f)
            by_tag.setdefault(cfg["tag"], []).append(cfg)
    with open(os.path.join(mmlu_dir, "_mmlu.yaml"), encoding="utf-8") as f:
        groups = yaml.safe_load(f)["task"]
    order = []
    for group in groups:
        with open(os.path.join(mmlu_dir, f"_{group}.yaml"), encoding="utf-8") as f:
            tag = yaml.safe_load(f)["task"][0]
        order += sorted(by_tag[tag], key=lambda c: c["task"])
    return doc_to_text, choices, order


def read(subject, split):
    with open(os.path.join(data_dir, "cais/mmlu", subject, split + ".jsonl"), encoding="utf-8") as f:
        return [json.loads(line) for line in f]


sha = lambda s: hashlib.sha256(s.encode("utf-8")).hexdigest()


def build():
    doc_to_text, choices, order = load_configs()
    records = []
    for cfg in order:
        subject = cfg["dataset_name"]
        description = env.from_string(cfg["description"]).render()
        shots = read(subject, "dev")[:SHOTS]
        for doc_id, doc in enumerate(read(subject, "test")):
            fewshot = "".join(doc_to_text.render(**d) + " " + choices[d["answer"]] + "\n\n" for d in shots)
            ctx = description + fewshot + doc_to_text.render(**doc)
            records.append({
                "task": cfg["task"],
                "doc_id": doc_id,
                "doc": doc,
                "target": doc["answer"],
                "arguments": [[ctx, " " + c] for c in choices],
                "request_type": "loglikelihood",
                "doc_hash": sha(json.dumps(doc, indent=2, ensure_ascii=False)),
                "prompt_hash": sha(ctx),
            })
    return records


runs = []
for _ in range(2):
    wall, cpu = time.perf_counter(), time.process_time()
    records = build()
    runs.append({"build_s": time.perf_counter() - wall, "cpu_s": time.process_time() - cpu})

with open(out_path, "w", encoding="utf-8") as out:
    for line in records:
        out.write(json.dumps(line, ensure_ascii=False) + "\n")
print(json.dumps({"cold": runs[0], "warm": runs[1], "docs": len(records)}))
