"""CPython 3.11 outputs that src/py/ is held to (test/py/target.test.ts).

Run with CPython 3.11 (and jinja2 3.1): python3 test/py/make_cpython_cases.py
Writes test/py/cpython_cases.json. Unicode properties over every code point are
in test/golden/unicode.json (test/golden/unicode_gen.py); this file holds the
functions: round, float repr and parsing, int parsing, format(x, '.5g'),
strip/split, casefold, json.dumps, ast.literal_eval and Jinja2's round filter.
"""
import ast
import json
import pathlib
import random
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
    cases = {
        "python": sys.version.split()[0], "unicode": unicodedata.unidata_version, "jinja2": jinja2.__version__,
        "round": rounds, "round_int": int_rounds, "float_repr": reprs, "float": floats_parsed, "int": ints_parsed,
        "format_g": format_g, "strip_split": strips, "strip_chars": strip_chars, "casefold_lower": casefolds,
        "json_dumps": dumps, "literal_eval": literals, "jinja_round": jinja_rounds,
    }
    OUT.write_text(json.dumps(cases, indent=1, ensure_ascii=True) + "\n")


if __name__ == "__main__":
    main()
