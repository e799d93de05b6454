#!/usr/bin/env python3
"""Writes N model outputs for the numbers or the free-text sweep as JSONL (one record per answer).

numbers:   GSM8K-style answers: a bare number, '#### N' endings, commas and '$', a wrong number
           first and the right one last, step-by-step arithmetic; 7 groups.
free-text: short factual answers: the answer alone, in a sentence, lower-cased, with articles and
           punctuation, a wrong answer first; 11 groups.
Seeded: the same kind and N give the same file. Usage: generate_other_outputs.py numbers|free-text N OUT.jsonl
"""
import json
import random
import sys

NUMBER_TEMPLATES = [
    "The answer is {a}.",
    "Let's compute: {x} + {y} = {a}. #### {a}",
    "{a}",
    "So we get ${a}.00 in total.\n#### {a}",
    "I think it is {b}, no wait, {a}",
    "Step 1: {x}*{y}={p}. Step 2: {p}-{x}={q}. The final answer is {a}",
]
ANSWERS = ["Paris", "the Eiffel Tower", "George Washington", "photosynthesis", "H2O", "Mount Everest", "an apple",
           "The Pacific Ocean", "1969", "Shakespeare"]
TEXT_TEMPLATES = ["{a}", "The answer is {a}.", "I believe it's {b}.", "{a}!", "Answer: {a}",
                  "Well, considering everything, the answer would be {a}, I think.", "  {a}\n", "It is not {b}; it is {a}."]


def number_record(rng, i):
    a = rng.randint(1, 5000)
    gold = a if rng.random() < 0.6 else rng.randint(1, 5000)
    x, y = rng.randint(1, 99), rng.randint(1, 99)
    shown = f"{a:,}" if rng.random() < 0.2 else a
    out = rng.choice(NUMBER_TEMPLATES).format(a=shown, b=rng.randint(1, 5000), x=x, y=y, p=x * y, q=x * y - x)
    return {"id": f"q{i}", "subject": f"s{i % 7}", "gold": str(gold), "output": out}


def text_record(rng, i):
    a, b = rng.choice(ANSWERS), rng.choice(ANSWERS)
    gold = a if rng.random() < 0.7 else b
    out = rng.choice(TEXT_TEMPLATES).format(a=a.lower() if rng.random() < 0.2 else a, b=b)
    return {"id": f"q{i}", "subject": f"s{i % 11}", "gold": gold, "output": out}


def main():
    kind, n, path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    make = {"numbers": number_record, "free-text": text_record}[kind]
    rng = random.Random(5 if kind == "numbers" else 9)
    with open(path, "w", encoding="utf-8") as f:
        for i in range(n):
            f.write(json.dumps(make(rng, i)) + "\n")


if __name__ == "__main__":
    main()
