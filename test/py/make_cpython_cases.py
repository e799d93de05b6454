"""CPython 3.11 outputs that src/py/ is held to (test/py/target.test.ts).

Run with CPython 3.11 (and jinja2 3.1): python3 test/py/make_cpython_cases.py
Writes test/py/cpython_cases.json. Unicode properties over every code point are
in test/golden/unicode.json (test/golden/unicode_gen.py); this file holds the
functions: round, float repr and parsing, int parsing, format(x, '.5g'),
strip/split, casefold, json.dumps, ast.literal_eval, re.escape, Jinja2's round
filter and the Unicode-dependent answers of the ports that used JavaScript's \\p{...}
(Jinja2's wordcount, title and lower/upper tests, lm-eval's multi_choice_regex
punctuation, SQuAD's article removal, Inspect's answer_index).
"""
import ast
import json
import pathlib
import random
import re
import string
import sys
import unicodedata

import jinja2

OUT = pathlib.Path(__file__).resolve().parent / "cpython_cases.json"


def outcome(f, *args):
    """The value, or the exception's type name where Python raises."""
    try:
        return {"value": f(*args)}
    except Exception as e:  # noqa: BLE001 - the type is the fact recorded
        return {"raises": type(e).__name__}


def num(x):
    """JSON has no nan/inf: floats as their repr, so the JS side parses them back."""
    return repr(x) if isinstance(x, float) else x


def main():
    assert sys.version_info[:2] == (3, 11), sys.version
    assert unicodedata.unidata_version == "14.0.0", unicodedata.unidata_version
    rng = random.Random(11)
    floats = [0.5, 1.5, 2.5, -2.5, 2.675, 0.125, 0.375, 1.25, 1234.5678, -4376550.0, 1250.0, 1350.0, 5e-324, 1e300,
              -0.0, 0.0, 123456789.125, 1e16, 0.1 + 0.2, 1e-5, 2.5e-7, 9.995, 0.285, 1.005, 5e22, 4.35, 8.345]
    floats += [rng.uniform(-1e7, 1e7) for _ in range(40)] + [round(rng.uniform(-1e4, 1e4), 3) for _ in range(40)]
    digits = [-3, -2, -1, 0, 1, 2, 3, 5]
    rounds = [[repr(x), n, repr(round(x, n))] for x in floats for n in digits]
    int_rounds = [[x, n, round(x, n)] for x in [1250, 1350, -1250, 15, 25, 125, 99, 4376550, -4376550, 7] for n in [-3, -2, -1, 0, 2]]
    reprs = [[repr(x), repr(x)] for x in floats + [1e15, 1e-4, 1.5e300, float("inf"), float("-inf"), float("nan")]]
    float_texts = [" 1e3 ", ".5", "5.", "0x10", "", "NaN", "-Infinity", "inf", "1_000.5", "1__0", "_1", "١٢", "١٢.٥",
                   "\u0f20\u0f21", "𑽑𑽒", "𑽐", "²", "½", "12abc", "\u30001.5\u3000", "\x1c2\x1f", "\ufeff1", "+.5e-3",
                   "1e", "e5", "१२३", "꧐꧑", "𞅀𞅁", "𞋰𞋱"]
    floats_parsed = [[s, num(outcome(float, s).get("value")) if "value" in outcome(float, s) else None] for s in float_texts]
    int_texts = ["\x1c7", "\u30007\u3000", " 42 ", "1_000", "1__0", "٣٤", "3.7", "0x1f", "-", "𑽑𑽒", "१२", "0b101", "007", "0"]
    ints_parsed = [[s, base, outcome(int, s, base).get("value")] for s in int_texts for base in [10, 0, 16]]
    format_g = [[repr(x), format(x, ".5g")] for x in floats + [1e-5, 123456.0, 99999.5, 0.000123456]]
    strip_texts = ["  a b  ", "\x1c\x1d a \x85\xa0", "\u200b a \u200b", "\ufeffa\ufeff", "\u3000x\u2028", "", "   "]
    strips = [[s, s.strip(), s.split()] for s in strip_texts]
    strip_chars = [[s, c, s.strip(c)] for s, c in [("..a,b!?", "!?.,"), ("xyxhixy", "xy"), ("😀a😀", "😀")]]
    casefolds = [[s, s.casefold(), s.lower()] for s in ["Straße", "ΣΑΣ", "ﬁ", "İ", "ǅ", "\u1e9e", "ꭰ", "\U00016e40", "Ⰰ"]]
    dumps_values = [{"a": 1, "b": [1.5, None, True]}, "é\u2028😀", [1.5, -2, 0.25, 1e-05], {"k": "v\n"}]
    dumps = [[v, json.dumps(v), json.dumps(v, ensure_ascii=False)] for v in dumps_values]
    literals = [[s, repr(outcome(ast.literal_eval, s).get("value", "<raises>"))] for s in
                ["[1, 2.5, 'a']", "{'a': (1, 2)}", "1e3", "-7", "'\\u00e9'", "b'x'", "None", "(1,)", "[1,", "2+3j"]]
    env = jinja2.Environment()
    jinja_rounds = [[t, env.from_string(t).render()] for t in [
        "{{ -4376550.0|round(-2) }}", "{{ 1250|round(-2) }}", "{{ 1350|round(-2) }}", "{{ 2.5|round }}", "{{ 2.675|round(2) }}",
        "{{ 1250.0|round(-2) }}", "{{ 15|round(-1) }}", "{{ 7|round(2) }}", "{{ 0.125|round(2) }}", "{{ -2.5|round }}"]]
    literal_outcomes = [[s, outcome(ast.literal_eval, s).get("raises", "value")] for s in
                        ["1\u00e9", "1\u00b2", "1a", "x\u00b2", "\u00e9", "\u2118", "\u0e33", "1 ", "1\u0660", "[\u1885]", "a\u00b7b"]]
    escape_texts = ["a.b*c", "()[]{}?*+-|^$\\.&~# \t\n\r\v\f", "é_1!\"'%,/:;<=>@`", "😀 x", "A\u0300"]
    escapes = [[s, re.escape(s)] for s in escape_texts]
    words = ["héllo wörld_1 ²x ١٢", "a-b c\u0300d", "\U00011f50\U00011f51 x", "\u2e5d\u2e5d a", "日本語 テキスト"]
    wordcounts = [[s, env.from_string("{{ s|wordcount }}").render(s=s)] for s in words]
    titled = [[s, s.title()] for s in ["hello wORLD", "ǆemal ǳ", "ªb ʰc", "o'neil x2y", "\U00016e40a b", "ⓐb"]]
    case_tests = [[s, s.islower(), s.isupper()] for s in ["ab", "AB", "ª", "ʰ", "1", "ⓐ", "Ⓐ", "\U00016e40", "ǅ", "aǅ"]]
    punct = [[s, s.translate(dict.fromkeys(i for i in range(sys.maxunicode) if unicodedata.category(chr(i)).startswith("P")))]
             for s in ["a.b,c!", "«x» ¿y?", "\u2e5d\u2e5e z", "a\U00011f43b", "‐—a"]]

    def normalize_answer(s):
        """SQuAD's normalize_answer (lm-eval, Inspect): lower, drop punctuation, drop articles, collapse whitespace."""
        s = "".join(ch for ch in s.lower() if ch not in set(string.punctuation))
        return " ".join(re.sub(r"\b(a|an|the)\b", " ", s).split())

    articles = [[s, normalize_answer(s)] for s in ["The cat, a dog", "éthe theé a", "\U00011f50the an", "\u0e33a", "x_the the_",
                                                    "\u2e5dthe \U00016e40A", "İthe"]]

    def answer_index(c):
        return ord(c.upper()) - ord("A") if c.isalpha() else 25 + int(c)

    answer_indexes = [[c, outcome(answer_index, c).get("value")] for c in ["a", "B", "3", "\u0663", "\u00b2", "\u00df", "\u01c5", "\U00011f51", " "]]
    cases = {
        "python": sys.version.split()[0], "unicode": unicodedata.unidata_version, "jinja2": jinja2.__version__,
        "round": rounds, "round_int": int_rounds, "float_repr": reprs, "float": floats_parsed, "int": ints_parsed,
        "format_g": format_g, "strip_split": strips, "strip_chars": strip_chars, "casefold_lower": casefolds,
        "json_dumps": dumps, "literal_eval": literals, "jinja_round": jinja_rounds,
        "literal_eval_outcome": literal_outcomes, "re_escape": escapes, "jinja_wordcount": wordcounts, "title": titled,
        "islower_isupper": case_tests, "punctuation_removed": punct, "squad_normalized": articles,
        "answer_index": answer_indexes, "string_punctuation": string.punctuation,
    }
    OUT.write_text(json.dumps(cases, indent=1, ensure_ascii=True) + "\n")


if __name__ == "__main__":
    main()
