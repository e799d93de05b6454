#!/usr/bin/env python3
"""Writes an lm-eval samples folder of N documents for the import benchmark.

Each record is one of the 20 real truthfulqa_gen records shipped in fixtures/ (lm-eval
0.4.8 format: doc, arguments, resps, filtered_resps, hashes, metrics), given a new
doc_id, a question made unique and a matching doc_hash, so that the file has N distinct
documents of realistic size. The real results file is copied beside it.
Usage: generate_lmeval_samples.py N OUT_DIR
"""
import hashlib
import json
import os
import shutil
import sys

FIXTURE = os.path.join(os.path.dirname(__file__), "..", "fixtures", "lmeval", "pr3032-truthfulqa-gen")
STAMP = "2025-05-31T14-30-51.983293"


def main():
    n, out = int(sys.argv[1]), sys.argv[2]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(FIXTURE, f"samples_truthfulqa_gen_{STAMP}.jsonl"), encoding="utf-8") as f:
        records = [json.loads(line) for line in f if line.strip()]
    with open(os.path.join(out, f"samples_truthfulqa_gen_{STAMP}.jsonl"), "w", encoding="utf-8") as f:
        for i in range(n):
            r = dict(records[i % len(records)])
            r["doc_id"] = i
            r["doc"] = dict(r["doc"], question=f"{r['doc']['question']} (#{i})")
            r["doc_hash"] = hashlib.sha256(json.dumps(r["doc"], indent=2, ensure_ascii=False).encode("utf-8")).hexdigest()
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    shutil.copy(os.path.join(FIXTURE, f"truthfulqa_gen_neo125_{STAMP}.json"), out)


if __name__ == "__main__":
    main()
