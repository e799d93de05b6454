"""Reference draws from CPython's `random` for test/prompt/pyrandom.test.ts.

Run with CPython 3.11: python3 test/golden/pyrandom_gen.py > test/golden/pyrandom.json

The op plan below is mirrored exactly in the TS test: op i of a seed's stream is
chosen from i alone (never from random output), each op prints one line with
repr(), and the test compares the first lines literally and all lines by sha256.
"""
import hashlib
import json
import random
import sys

SEEDS = [0, 1, 2, 42, 99, 1234, -1234, 2**32 - 1, 2**32, 2**40 + 5, 2**64 + 7, 12345678901234567890123]
OPS_PER_SEED = 1_000_000 // len(SEEDS) + 1  # >= 10^6 ops in all
LITERAL_LINES = 40
RANDBELOW_N = [1, 2, 3, 7, 8, 10, 100, 1000, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**40, 10**15]
BITS_K = [0, 1, 7, 31, 32, 33, 63, 64, 65, 100]
SAMPLE_NK = [(10, 5), (21, 5), (22, 5), (85, 6), (86, 6), (100, 5), (1000, 25), (277, 22), (278, 22), (40, 6), (5, 0), (7, 7)]
SHUFFLE_M = [0, 1, 2, 5, 10, 33]
CHOICES_NK = [(1, 3), (10, 10), (37, 5), (1000, 4)]
WEIGHTS = [
    [1, 2, 3, 4],
    [0.1, 0.25, 0.0, 0.65, 1e-3],
    [5, 0, 0, 1],
]


def op(rng, i):
    kind = i % 8
    j = i // 8
    if kind in (0, 1):
        return repr(rng.random())
    if kind == 2:
        return repr(rng._randbelow(RANDBELOW_N[j % len(RANDBELOW_N)]))
    if kind == 3:
        return repr(rng.getrandbits(BITS_K[j % len(BITS_K)]))
    if kind == 4:
        n, k = SAMPLE_NK[j % len(SAMPLE_NK)]
        return repr(rng.sample(range(n), k))
    if kind == 5:
        x = list(range(SHUFFLE_M[j % len(SHUFFLE_M)]))
        rng.shuffle(x)
        return repr(x)
    if kind == 6:
        n, k = CHOICES_NK[j % len(CHOICES_NK)]
        return repr(rng.choices(range(n), k=k))
    w = WEIGHTS[j % len(WEIGHTS)]
    if j % 2 == 0:
        return repr(rng.choices(range(len(w)), weights=w, k=3))
    cum = []
    total = 0
    for x in w:
        total += x
        cum.append(total)
    return repr(rng.choices(range(len(w)), cum_weights=cum, k=3))


def main():
    assert sys.version_info[:2] == (3, 11), sys.version
    out = {"python": sys.version.split()[0], "ops_per_seed": OPS_PER_SEED, "seeds": []}
    for seed in SEEDS:
        rng = random.Random(seed)
        h = hashlib.sha256()
        first = []
        for i in range(OPS_PER_SEED):
            line = op(rng, i)
            h.update(line.encode() + b"\n")
            if i < LITERAL_LINES:
                first.append(line)
        out["seeds"].append({"seed": str(seed), "first": first, "sha256": h.hexdigest()})
    json.dump(out, sys.stdout, indent=1)
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
