#!/usr/bin/env python3
"""Writes N realistic multiple-choice model outputs as JSONL (one record per answer).

Mixes what models really emit for A-D questions: bare letters, letters inside
sentences, "Answer: (X)", chain-of-thought text naming several letters, lower-case
letters, refusals such as "None of these"; 57 subject groups. Seeded: the same N
gives the same file.
Usage: generate_outputs.py N OUT.jsonl
"""
import json
import random
import sys

SUBJECTS = [f"subject_{i:02d}" for i in range(57)]
WORDS = "the value of x energy cell market court atom vector theorem river price law protein orbit signal".split()
LETTERS = "ABCD"


def filler(rng, n):
    return " ".join(rng.choice(WORDS) for _ in range(n))


def output(rng, gold):
    pick = gold if rng.random() < 0.62 else rng.choice(LETTERS)
    other = rng.choice(LETTERS)
    kind = rng.randrange(10)
    if kind == 0:
        return pick
    if kind == 1:
        return f" {pick}\n"
    if kind == 2:
        return f"The answer is {pick}."
    if kind == 3:
        return f"Answer: ({pick})"
    if kind == 4:
        return pick.lower()
    if kind == 5:
        return f"Let's think step by step. Option {other} says {filler(rng, 6)}, which is wrong. Option {pick} fits {filler(rng, 4)}. So the answer is {pick}."
    if kind == 6:
        return f"{pick}) {filler(rng, 3)} {rng.randint(1, 999)}"
    if kind == 7:
        return "None of these" if rng.random() < 0.5 else f"I cannot tell; maybe {other} or {pick}"
    if kind == 8:
        return f"Between {pick} and {other}, I choose {other if rng.random() < 0.3 else pick} ({filler(rng, 5)})"
    return f"{filler(rng, rng.randint(3, 12))} {rng.randint(0, 10**6)} — final: {pick}"


def main():
    n = int(sys.argv[1])
    rng = random.Random(20261130)
    with open(sys.argv[2], "w", encoding="utf-8") as out:
        for i in range(n):
            gold = rng.choice(LETTERS)
            record = {"id": f"q{i}", "subject": SUBJECTS[i % 57], "gold": gold, "output": output(rng, gold)}
            out.write(json.dumps(record, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
