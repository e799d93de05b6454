"""Construct-by-construct template cases for jinja_gen.py: (template, context) pairs.

Each exercises one Jinja2/Python behaviour a JS engine gets wrong by default
(docs lmeval-prompts.md §6, §12, §13.2). Errors are golden values too.
"""

EMOJI = "a😀b🎉c"
S = {"s": "  Hello, World!  "}

SYNTHETIC = [
    # --- output conversion: Python str() -------------------------------------------------
    ("{{ i }}|{{ f }}|{{ g }}|{{ big }}|{{ small }}|{{ t }}|{{ n }}", {"i": 1, "f": 1.0, "g": 0.1 + 0.2, "big": 1e20, "small": 1e-5, "t": True, "n": None}),
    ("{{ a }}|{{ b }}|{{ c }}|{{ d }}|{{ e }}", {"a": 1e16, "b": 123456789.0, "c": 0.0001, "d": -0.0, "e": 2.5e-7}),
    ("{{ x }}|{{ y }}|{{ z }}", {"x": float("inf"), "y": float("-inf"), "z": float("nan")}),
    ("{{ l }}", {"l": [1, "x", "it's", 'say "hi"', 'both \' and "', None, True, 1.0, [2, [3]]]}),
    ("{{ d }}", {"d": {"k": "v", "n": 1, "f": 2.0, "l": ["a"], "nested": {"x": None}}}),
    ("{{ l }}", {"l": ["back\\slash", "new\nline", "tab\t", "cr\r", "bell\x07", "del\x7f", "nel\x85", "nbsp\xa0", "zw\u200b", "bom\ufeff", "é", "日本", "😀", "\U0001f6dc", "\u0378", "\u2028"]}),
    ("{{ [1.5, 2.0, -3.25] }}|{{ (1, 2) }}|{{ (1,) }}|{{ () }}|{{ range(3) }}|{{ range(1, 10, 2) }}", {}),
    ("{{ {'a': 1, 'b': [1, 2], 3: 'c', none: true} }}", {}),
    ("{{ [] }}{{ {} }}{{ '' }}|{{ [''] }}", {}),
    # --- template text -------------------------------------------------------------------
    ("line1\nline2\n", {}),
    ("trail\n\n", {}),
    ("a\r\nb{{x}}\r", {"x": "c\r\nd"}),
    ("literal \\n stays{{ '\\n' }}|", {}),
    ("{{ 'tab\\there' }}|{{ \"q\\\"q\" }}|{{ 'q\\'q' }}|{{ '\\\\' }}|{{ '\\x41\\u00e9\\U0001F600' }}|{{ '\\101\\7' }}", {}),
    ("{{ '\\d+\\s' }}|{{ 'é\\é' }}|{{ 'line\\\ncont' }}", {}),
    ("{{ 'a' 'b' }}", {}),
    ("x {{- ' y ' -}} z", {}),
    ("a  \n  {%- if true -%}  \n  b  \n  {%- endif -%}  \n  c", {}),
    ("a {#- comment -#} b {# kept #} c", {}),
    ("{% raw %}{{ not rendered }}{% endraw %}|{%- raw -%}  x  {%- endraw -%}  |", {}),
    ("a\u3000 {%- if true %}b{% endif %}", {}),
    # --- string methods ------------------------------------------------------------------
    ("[{{ s.strip() }}][{{ s.lstrip() }}][{{ s.rstrip() }}][{{ s.strip(' H!') }}]", S),
    ("[{{ w.strip() }}]", {"w": "\x1c\x1d\x1e\x1f\x85\xa0\u2000x\u3000\ufeff"}),
    ("{{ t.split() }}|{{ t.split(' ') }}|{{ t.split(None, 1) }}|{{ t.split(' ', 2) }}|{{ t.rsplit(None, 1) }}|{{ t.rsplit(' ', 1) }}", {"t": "  a b  c  "}),
    ("{{ a.split('####')[-1].strip() }}", {"a": "Natalia sold 48/2 = <<48/2=24>>24 clips.\n#### 72"}),
    ("{{ t.replace('  ', ' ') }}|{{ t.replace('a', 'b', 1) }}|{{ 'ab'.replace('', '-') }}|{{ 'ab'.replace('', '-', 2) }}", {"t": "a   a   a"}),
    ("{{ a.capitalize() }}|{{ b.capitalize() }}|{{ c.capitalize() }}|{{ d.capitalize() }}|{{ e.capitalize() }}", {"a": "THE man Starts", "b": "ßa", "c": "ǆemal", "d": "ﬁne", "e": "σας ΣΑΣ"}),
    ("{{ a.upper() }}|{{ a.lower() }}|{{ a.title() }}|{{ b.upper() }}|{{ c.lower() }}", {"a": "hello wORLD-foo o'neil", "b": "straße ﬁ", "c": "ΟΔΟΣ İ"}),
    ("{{ a.startswith('He') }}{{ a.endswith(('x', 'd')) }}{{ a.find('o') }}{{ a.rfind('o') }}{{ a.find('z') }}{{ a.index('W') }}{{ a.count('l') }}", {"a": "Hello World"}),
    ("{{ e.find('b') }}|{{ e.index('c') }}|{{ e|length }}|{{ e[1] }}|{{ e[-2] }}|{{ e[1:4] }}|{{ e[::-1] }}|{{ e[::2] }}", {"e": EMOJI}),
    ("{{ ', '.join(l) }}|{{ ''.join(['a', 'b']) }}|{{ '5'.zfill(3) }}|{{ 'a=b=c'.partition('=') }}|{{ 'a=b=c'.rpartition('=') }}", {"l": ["x", "y"]}),
    ("{{ 'x'.removeprefix('x') }}|{{ 'ab\\ncd\\r\\nef'.splitlines() }}|{{ '  '.isspace() }}", {}),
    ("{{ ', '.join(l) }}", {"l": ["x", 1]}),
    # --- indexing, slicing, lists, dicts ---------------------------------------------------
    ("{{ l[0] }}{{ l[-1] }}{{ l[1:] }}{{ l[:-1] }}{{ l[::-1] }}{{ l[-3:-1] }}{{ l[5:] }}{{ l[1:2:0] if false else '' }}", {"l": [1, 2, 3, 4]}),
    ("{{ t[:-1] }}|{{ t[21:] }}|{{ t[start:end] }}", {"t": "premise.", "start": 1, "end": 4}),
    ("{{ l.index('b') }}{{ l.count('a') }}{{ l.index(2.0) }}", {"l": ["a", "b", "a", 2]}),
    ("{{ l.index('z') }}", {"l": ["a"]}),
    ("{{ d.items() | list }}|{{ d.keys() | list }}|{{ d.values() | list }}|{{ d.get('a') }}|{{ d.get('z', 'dflt') }}|{{ d.get('z') }}", {"d": {"a": 1, "b": 2}}),
    ("{{ d.items }}", {"d": {"items": "shadowed"}}),
    ("{{ d['items'] }}|{{ d.text }}|{{ d['text'][0] }}|{{ d.text.0 }}", {"d": {"items": "value", "text": ["t0"]}}),
    ("{{ {'cause': 'because', 'effect': 'so'}[q] }}|{{ ['A.', 'B.'][i] }}|{{ 'ABCD'[i] }}", {"q": "effect", "i": 1}),
    ("{{ d[1] }}|{{ d[1.0] }}|{{ d[true] }}", {"d": {}}),
    ("{{ {1: 'one'}[1.0] }}|{{ {1: 'one'}[true] }}", {}),
    # --- operators -------------------------------------------------------------------------
    ("{{ 7 // 2 }} {{ -7 // 2 }} {{ 7 % -3 }} {{ -7 % 3 }} {{ 7.5 // 2 }} {{ -7.5 % 2 }} {{ 2 ** -1 }} {{ 2 ** 10 }} {{ 2.0 ** 2 }} {{ 7 / 2 }} {{ 6 / 2 }}", {}),
    ("{{ 1e3 }} {{ 1.5e-3 }} {{ 0x1f }} {{ 0o17 }} {{ 0b101 }} {{ 1_000 }} {{ 1.0 }} {{ -1 }} {{ - 2.5 }} {{ +3 }}", {}),
    ("{{ x + 1 }} {{ x * 2 }} {{ x - 1 }} {{ x / 2 }} {{ x // 2 }} {{ i + x }} {{ i * 2 }} {{ true + 1 }} {{ -x }}", {"x": 3.0, "i": 2}),
    ("{{ 'a' + 'b' }}|{{ [1] + [2] }}|{{ (1,) + (2,) }}|{{ 'ab' * 2 }}|{{ 2 * [0] }}|{{ 'x' * 0 }}|{{ 'a' ~ 1 ~ none ~ 1.0 }}", {}),
    ("{{ 'a' + 1 }}", {}),
    ("{{ 1 + 'a' }}", {}),
    ("{{ 1 / 0 }}", {}),
    ("{{ 1 == 1.0 }}{{ 1 == true }}{{ 'a' < 'b' }}{{ [1, 2] < [1, 3] }}{{ 2 >= 2 }}{{ none == none }}{{ 'a' != 'a' }}{{ [1] == [1.0] }}", {}),
    ("{{ 'a' in ['a'] }}{{ 'b' in 'abc' }}{{ 'z' not in 'abc' }}{{ 'k' in {'k': 1} }}{{ 1 in [1.0] }}{{ 2 in range(3) }}", {}),
    ("{{ 1 in 'abc' }}", {}),
    ("{{ 0 or 'x' }}|{{ 'a' and 'b' }}|{{ [] or [] }}|{{ none and 1 }}|{{ not [] }}|{{ not 'x' }}|{{ '' or 0 }}", {}),
    ("{{ 1 < 'a' }}", {}),
    ("{{ 1 if false }}|{{ 'y' if true }}|{{ 'a' if 0 else 'b' if 1 else 'c' }}", {}),
    # --- filters -------------------------------------------------------------------------------
    ("{{ '3.7'|int }} {{ ' 42 '|int }} {{ '1_0'|int }} {{ 'x'|int }} {{ 'x'|int(7) }} {{ 'nan'|int }} {{ true|int }} {{ 3.9|int }} {{ -3.9|int }} {{ none|int }} {{ '٣'|int }} {{ '0x1f'|int }} {{ '0x1f'|int(base=16) }} {{ ' -5 '|int }} {{ '1e3'|int }}", {}),
    ("{{ label|int - 1 }}|{{ (label|int) - 1 }}", {"label": "2"}),
    ("{{ '3.5'|float }} {{ 'x'|float }} {{ 2|float }} {{ ' 1e3 '|float }} {{ 'inf'|float }} {{ none|float }} {{ '1_0.5'|float }}", {}),
    ("{{ 1|string }}|{{ 1.0|string }}|{{ none|string }}|{{ [1, 'a']|string }}|{{ true|string }}", {}),
    ("{{ x|string in '1234' }}|{{ 'ABCD'[x|int - 1] if x|string in '1234' else x }}", {"x": "3"}),
    ("{{ l|length }} {{ d|length }} {{ s|length }} {{ l|count }}", {"l": [1, 2], "d": {"a": 1}, "s": "日本語😀"}),
    ("{{ l|join }}|{{ l|join(', ') }}|{{ l|join(d='-') }}|{{ items|join(' ', attribute='a') }}|{{ 'abc'|join('.') }}", {"l": [1, "a", None, 2.0], "items": [{"a": "x"}, {"a": 1}]}),
    ("{{ answers|map(attribute='atext')|list }}|{{ l|map('upper')|list }}|{{ l|map('replace', 'a', 'b')|join }}", {"answers": [{"atext": "x"}, {"atext": "y"}], "l": ["a", "ba"]}),
    ("[{{ s|trim }}][{{ s|trim('! ') }}]", S),
    ("{{ s|replace('l', 'L') }}|{{ s|replace('l', 'L', 2) }}|{{ 'aaa'|replace('a', '') }}", S),
    ("{{ missing|default('d') }}|{{ ''|default('d') }}|{{ ''|default('d', true) }}|{{ none|d('x', boolean=true) }}|{{ 0|default('z') }}", {}),
    ("{{ l|first }} {{ l|last }} {{ 'abc'|first }} {{ l|list }} {{ 'ab'|list }} {{ {'a': 1}|list }} {{ l|reverse|list }} {{ 'abc'|reverse }}", {"l": [3, 1, 2]}),
    ("{{ s|lower }}|{{ s|upper }}|{{ s|capitalize }}|{{ s|title }}|{{ 'hello-world (foo)[bar]<baz> x'|title }}", S),
    ("{{ 2.5|round }} {{ 3|round }} {{ 2.675|round(2) }} {{ -0.5|round }} {{ 0.125|round(2) }} {{ 1.5|round }} {{ 2.5|round(0, 'floor') }} {{ 2.1|round(0, 'ceil') }} {{ 1234.5678|round(-2) }} {{ 1.25|round(1) }}", {}),
    ("{{ -3|abs }} {{ -2.5|abs }} {{ [3, 1, 2]|sort }} {{ ['b', 'A', 'a', 'C']|sort }} {{ ['b', 'A', 'a']|sort(case_sensitive=true) }} {{ [3, 1, 2]|sort(reverse=true) }} {{ [{'n': 2}, {'n': 1}]|sort(attribute='n') }}", {}),
    ("{{ [1, 2, 1, 'a', 'A']|unique|list }} {{ [1, 2, 3]|sum }} {{ [1.5, 2]|sum }} {{ [3, 1, 2]|max }} {{ ['b', 'A']|min }} {{ [{'a': 2}, {'a': 5}]|sum(attribute='a') }}", {}),
    ("{{ range(10)|select('odd')|list }} {{ range(5)|reject('even')|list }} {{ [1, none, 0, 'a']|select|list }} {{ users|selectattr('ok')|map(attribute='n')|list }} {{ users|rejectattr('ok')|list }}", {"users": [{"n": "a", "ok": True}, {"n": "b", "ok": False}]}),
    ("{{ d|tojson }}|{{ [1, 2.0, 'é<>&\\'', none, true]|tojson }}|{{ {'b': 1, 'a': [1]}|tojson(2) }}", {"d": {"z": 1, "a": "x"}}),
    ("[{{ 'ab'|center(7) }}][{{ 'abc'|center(6) }}][{{ 'a'|center(4) }}]", {}),
    ("{{ 'foo bar baz qux'|truncate(9) }}|{{ 'foo bar baz qux'|truncate(9, true) }}|{{ 'foo bar baz qux'|truncate(11) }}|{{ 'foo bar baz qux'|truncate(11, false, '...', 0) }}", {}),
    ("{{ 'one two, three'|wordcount }}|{{ 'a\\nb\\n\\nc'|indent }}|{{ 'a\\nb'|indent(2, true) }}|{{ '<a href=\"x\">&\\'</a>'|e }}|{{ '<b>'|escape }}", {}),
    ("{{ {'b': 1, 'a': 2}|dictsort }}|{{ {'b': 1, 'a': 2}|dictsort(by='value', reverse=true) }}|{{ {'a': 1}|items|list }}|{{ [1, 2, 3, 4, 5]|slice(2)|list }}", {}),
    ("{{ x|regex_replace('a+', 'b') }}|{{ x|regex_replace('a', 'c', 1) }}", {"x": "caaat aa"}),
    ("{{ x|nosuchfilter }}", {"x": 1}),
    # --- tests -------------------------------------------------------------------------------
    ("{{ x is defined }}{{ x is undefined }}{{ x is none }}{{ x is not none }}{{ x is string }}{{ x is number }}", {}),
    ("{{ n is none }}{{ n is not none }}{{ n is defined }}{{ 1 is number }}{{ 1.0 is float }}{{ 1 is integer }}{{ 1.0 is integer }}{{ true is number }}{{ true is boolean }}{{ 'a' is string }}{{ {} is mapping }}{{ [] is sequence }}{{ 'x' is iterable }}", {"n": None}),
    ("{{ 3 is odd }}{{ 4 is even }}{{ 'abc' is lower }}{{ 'ABC' is upper }}{{ '1' is lower }}{{ range is callable }}{{ f is float }}{{ f is integer }}", {"f": 3.0}),
    ("{{ x is nosuchtest }}", {"x": 1}),
    ("{{ answer if few_shot is undefined else solution }}", {"answer": "A", "solution": "S"}),
    ("{{ answer if few_shot is undefined else solution }}", {"answer": "A", "solution": "S", "few_shot": True}),
    # --- control structures ------------------------------------------------------------------
    ("{% if x > 1 %}big{% elif x == 1 %}one{% else %}small{% endif %}", {"x": 1}),
    ("{% if answer != None %}{{ question + '\\nA: ' }}{% else %}{{ 'Q: ' + question }}{% endif %}", {"answer": None, "question": "q"}),
    ("{% for c in l %}{{ loop.index }}{{ loop.index0 }}{{ loop.revindex }}{{ loop.revindex0 }}{{ loop.first }}{{ loop.last }}{{ loop.length }}{{ c }};{% endfor %}", {"l": ["a", "b", "c"]}),
    ("{% for c in l %}{{ loop.previtem|default('^') }}{{ c }}{{ loop.nextitem|default('$') }}{{ loop.cycle('o', 'e') }} {% endfor %}", {"l": [1, 2, 3]}),
    ("{% set letters = 'ABCD' %}{% for choice in options %}{{ letters[loop.index0] }}. {{ choice }}\n{% endfor %}", {"options": ["x", "y"]}),
    ("{% for x in [] %}no{% else %}empty{% endfor %}|{% for x in range(6) if x is odd %}{{ x }}{{ loop.index }}{{ loop.length }} {% endfor %}", {}),
    ("{% for k, v in d.items() %}{{ k }}={{ v }};{% endfor %}|{% for k in d %}{{ k }}{% endfor %}|{% for a, b in [(1, 2), [3, 4]] %}{{ a + b }}{% endfor %}", {"d": {"x": 1, "y": 2.0}}),
    ("{% for i in range(3) %}{% for j in range(i) %}{{ i }}{{ j }} {% endfor %}{% endfor %}", {}),
    ("{% for i in range(questions|length - 1) %}{{ 'Q: ' + questions[i] + '\\n' }}{% endfor %}{{ 'Q: ' + questions[-1] }}", {"questions": ["a", "b", "c"]}),
    ("{% for i in range(3) %}{% if i == 0 %}{% set x = 5 %}{% endif %}{{ x|default('u') }}{% endfor %}", {}),
    ("{% set x = 1 %}{% for i in range(3) %}{{ x }}{% set x = x + 1 %}{{ x }};{% endfor %}{{ x }}", {}),
    ("{% set ns = namespace(n=0) %}{% for i in range(4) %}{% set ns.n = ns.n + i %}{% endfor %}{{ ns.n }}", {}),
    ("{% set a, b = 1, 2 %}{{ a }}{{ b }}{% set t = 1, 2 %}{{ t }}{% set question = 'shadow' %}{{ question }}", {"question": "orig"}),
    ("{% set prompt_qa = 'Q: x?\nA: y.' %}{{ prompt_qa + '\\n\\nQ: ' + question + '\\nA:' }}", {"question": "What?"}),
    ("{% set block %}inner {{ x }}{% endset %}[{{ block }}]", {"x": 1}),
    ("{% filter upper %}shout {{ x }}{% endfilter %}", {"x": "it"}),
    ("{% set c = cycler('a', 'b') %}{{ c.next() }}{{ c.next() }}{{ c.next() }}{{ c.current }}|{% set j = joiner('-') %}{% for i in range(3) %}{{ j() }}{{ i }}{% endfor %}|{{ dict(a=1, b='x') }}", {}),
    ("{{ range(5)|list }}{{ range(1, 4)|list }}{{ range(5, 0, -2)|list }}{{ range|string if false else '' }}", {}),
    ("{{ range }}{{ dict }}", {"range": "shadowed-range", "dict": "shadowed-dict"}),
    ("{% for x in l %}{{ x }}{% break %}{% endfor %}", {"l": [1, 2]}),
    ("{% macro m() %}x{% endmacro %}{{ m() }}", {}),
    # --- undefined (StrictUndefined) ------------------------------------------------------------
    ("{{ missing }}", {}),
    ("{{ d.missing }}", {"d": {}}),
    ("{{ l[5] }}", {"l": [1]}),
    ("{{ missing.attr }}", {}),
    ("{{ missing == 1 }}", {}),
    ("{% if missing %}x{% endif %}", {}),
    ("{{ missing|length }}", {}),
    ("{% for x in missing %}{% endfor %}", {}),
    ("{{ 'x' ~ missing }}", {}),
    # --- syntax errors ---------------------------------------------------------------------------
    ("{{ x ", {}),
    ("{% if x %}no end", {}),
    ("{{ 'unterminated }}", {}),
    ("{% for %}{% endfor %}", {}),
    ("{{ x | }}", {}),
    ("{% endif %}", {}),
    # --- int vs float from data -----------------------------------------------------------------
    ("{{ score }}|{{ score * 2 }}|{{ score|int }}|{{ score|string }}|{{ [score, count] }}|{{ score == 1 }}|{{ count / 2 }}|{{ half }}", {"score": 1.0, "count": 4, "half": 0.5}),
]

# ast.literal_eval inputs (lm-eval parses rendered doc_to_choice / bracketed targets with it).
LITERALS = [
    "03", "00", "\u00b2", "\u0661\u0662", "-1", "--1", "-(1)", "+1", "\n[1]", "  [1]", "\t[1]", "[1]\n", "[1,]", "[,]", "1.", ".5",
    "1e3", "0x10", "1_0", "0_0", "07", "07.5", "0.7", "(1)", "(1,)", "()", "[1]  # c", "1 2", "'a' 'b'", "r'\\n'", "[1,\n2]",
    "'''x\ny'''", "True", "None", "-True", "- 1", "-1.5", "-0x10", "+0", "[1\n]", "'\\d'", "U'x'", "f'x'", "{}", "{'a':1,}",
    "[[]]", "(1,2,)", "1, 2", "[1, 'a', \"it's\", 'say \"hi\"']", "['\\n', '\\x41\\u00e9', '\u00e9\\\u00e9']", "{'a': [1, (2,)], 2: None}",
    "[1.0, 2e3, -0.5, 1e+16, 1e-05]", "x", "[1] [2]", "1 +", "'unterminated", "[1, 2", "1 + 2", "[True, False, None]", "",
]

SYNTHETIC += [
    ("{{ [missing] }}|{{ l|map(attribute='nope')|list }}", {"l": ["a"]}),
    ("{{ [missing] == [1] }}", {}),
    ("{{ missing|string }}", {}),
]

SYNTHETIC += [
    ("{{ 1 < 2 < 3 }}{{ 3 > 2 > 2 }}{{ 1 < 3 > 2 }}{{ 'a' in 'abc' in 'xabcx' }}{{ 1 == 1 == 1.0 }}{{ 0 < x <= 5 }}", {"x": 5}),
    ("{{ 1 < 2 < missing }}", {}),
]

SYNTHETIC += [
    ("{{ 'a' ~ 2 * 3 }}|{{ 'x' ~ 1 ~ 2 }}|{{ 'a' ~ 'b' in 'xaby' }}|{{ [1 ~ 2, 'q' ~ (3)] }}|{{ ('a' ~ 'b')|upper }}|{{ 'a' ~ 'b'|upper }}|{{ -1 ~ -2 }}|{{ 'p' ~ x if x else 'n' }}", {"x": 1}),
    ("{{ 1 + 2 ~ 'a' }}", {}),
    ("{{ 'a' ~ 1 + 2 }}", {}),
    ("{% set s = 'a' ~ 'b' %}{{ s }}{% for c in 'x' ~ 'y' %}{{ c }}{% endfor %}{{ f(1 ~ 2) if false else 'ok' }}", {}),
]

# Every filter applied to an undefined variable: StrictUndefined decides which raise.
SYNTHETIC += [
    ("{{ missing|%s }}|" % f, {})
    for f in ["upper", "lower", "trim", "int", "float", "string", "length", "list", "join", "first", "last", "title",
              "capitalize", "replace('a', 'b')", "round", "abs", "sort", "unique", "reverse", "sum", "wordcount", "tojson",
              "center", "truncate", "indent", "escape", "items", "dictsort", "map('upper')", "select", "max", "min",
              "attr('x')", "batch(2)" if False else "slice(2)", "count", "e", "d", "default('x', true)"]
] + [("{{ (missing %s 1) }}" % op, {}) for op in ["+", "-", "*", "/", "//", "%", "**", "~", "==", "!=", "<", "in", "and", "or"]] + [
    ("{{ missing is %s }}" % t, {}) for t in ["defined", "undefined", "none", "string", "number", "mapping", "iterable", "sequence", "callable", "odd", "lower", "boolean", "true", "false", "integer", "float", "escaped"]
] + [("{{ not missing }}", {}), ("{{ -missing }}", {}), ("{{ missing() }}", {}), ("{{ missing[0] }}", {}), ("{{ missing[1:] }}", {}), ("{{ [missing]|length }}", {}), ("{% set x = missing %}ok", {}), ("{{ 'abc'[missing] }}", {})]

# Iterators (map/select/unique/items/reverse give generators) and dict views.
SYNTHETIC += [
    ("{% set g = l|map('upper') %}{{ g|list }}{{ g|list }}|{{ l|reverse|list }}|{{ l|map('upper')|reverse }}|{{ l|unique|join(',') }}", {"l": ["a", "b", "a"]}),
    ("{{ d.keys() }}{{ d.values() }}{{ d.items() }}{{ d.keys()|length }}{{ 'a' in d.keys() }}{{ d.items()|list }}{{ d.values()|sum }}", {"d": {"a": 1, "b": 2}}),
    ("{{ l|map('upper')|length }}", {"l": ["a"]}),
    ("{{ l|select|last }}", {"l": ["a"]}),
    ("{{ l|reverse }}", {"l": ["a"]}),
    ("{{ l|map(attribute='x')|first }}", {"l": [{"x": 3}]}),
    ("{{ 'x' in l|map('upper') }}{{ 'X' in l|map('upper') }}", {"l": ["x"]}),
]

SYNTHETIC += [
    ("{{ l|sort(attribute='n', reverse=true)|map(attribute='v')|join }}|{{ l|sort(attribute='n')|map(attribute='v')|join }}|{{ ['b', 'B', 'a']|sort(reverse=true) }}|{{ {'b': 1, 'a': 1, 'c': 0}|dictsort(by='value', reverse=true) }}",
     {"l": [{"n": 1, "v": "a"}, {"n": 1, "v": "b"}, {"n": 2, "v": "c"}, {"n": 0, "v": "d"}]}),
    ("{{ [3, 1.5, true, 0]|sort }}|{{ ['b', 'a', 1]|sort }}", {}),
]

# lm-eval's regex_replace filter (Python re.sub) on patterns whose JS meaning differs.
_RE = [
    (r"a+", "b", "caaat aa", 0), (r"a", "c", "caaat aa", 1), (r"\s+", " ", "a \t\n\u3000b\x85c\ufeffd", 0),
    (r"\d+", "#", "x12 \u0663\u0664 y", 0), (r"\w+", "W", "héllo wörld_1 日本", 0), (r"\bcat\b", "dog", "cat scat cat. écat", 0),
    (r".", "-", "a\nb\r\u2028", 0), (r"(?s).", "-", "a\nb", 0), (r"end$", "E", "the end\n", 0), (r"$", "!", "x\n", 0),
    (r"^a", "A", "aa\naa", 0), (r"(?m)^a", "A", "aa\naa", 0), (r"(?m)a$", "A", "aa\naa\r\n", 0), (r"(?i)HELLO", "hi", "Hello hello", 0),
    (r"(?P<w>\w+)@(\w+)", r"\2 at \g<w> (\g<0>)", "me@host you@there", 0), (r"(a)|b", r"[\1]", "ab", 0),
    (r"x{2}", "Y", "xxxxx", 0), (r"x{,2}", "Y", "xxx", 0), (r"{foo}", "bar", "{foo} x{", 0), (r"a{", "b", "a{", 0),
    (r"[\d.]+", "N", "v1.25 and ٣.٤", 0), (r"[^\s]+", "T", "a b", 0), (r"[]a]", "!", "]a", 0), (r"[a-c-]", "_", "a-d", 0),
    (r"\.$", "", "The answer is 5.", 0), (r"(?s).*#### ", "", "step\nstep\n#### 72", 0), (r",", "", "1,234,567", 0),
    (r"\$", "", "$1,234", 0), (r"(-?[$0-9.,]{2,})|(-?[0-9]+)", r"<\1|\2>", "is $1,234.5 or -7", 0),
    (r"x*", "-", "abxd", 0), (r"", "-", "abc", 0), (r"b", r"\n\t\\", "abc", 0), (r"(b)", r"\g<1>\g<1>", "abc", 0),
    (r"\Aa|c\Z", "X", "abca\nc", 0), (r"\\", "/", "a\\b", 0), (r"\-\#\&", "=", "-#&", 0), (r"\x41\u00e9\101", "ok", "Aé A", 0),
    (r"a\Bb", "X", "ab a b", 0), (r"(?a)\w+", "W", "héllo", 0), (r"(?a)\d", "D", "1\u0663", 0),
    (r"(b)(c)?", r"[\2]", "abd", 0), (r"a", r"\q", "a", 0), (r"(a", "x", "a", 0), (r"\p{L}", "x", "a", 0),
]
SYNTHETIC += [("{{ s|regex_replace(p, r, n) }}", {"s": s, "p": p, "r": r, "n": n}) for p, r, s, n in _RE]

SYNTHETIC += [
    ('a {{+ "x" }}|{%+ if true +%} y {%+ endif -%} |{# c +#}|{{ 1 -}} z', {}),
    ("a {{ 1 +}}", {}),
]

# Tests with arguments (Jinja2's parse_test: parenthesised list, or one primary with postfix).
SYNTHETIC += [
    ("{{ 6 is divisibleby 3 }}{{ 7 is divisibleby(3) }}{{ x is sameas none }}{{ x is not sameas false }}{{ 2 is eq 2.0 }}{{ 'b' is in 'abc' }}{{ 1 is in l }}", {"x": None, "l": [1, 2]}),
    ("{% for i in range(7) %}{% if loop.index is divisibleby 3 %}|{% endif %}{{ i }}{% endfor %}", {}),
    ("{{ 2 is ne(3) and 3 is gt 2 }}{{ 'x' is eq d.k }}{{ 'x' is eq d['k'] }}{{ 4 is ge l[1] }}{{ l is not sameas l }}{{ 5 is lt 3 or 3 is le 3 }}", {"d": {"k": "x"}, "l": [1, 2]}),
    ("{{ 3 is divisibleby 0 }}", {}),
    ("{{ x is sameas 1 is sameas 2 }}", {"x": 1}),
    ("{{ x is nosuch 3 }}", {"x": 1}),
]

SYNTHETIC += [
    ("{% for x in 'ab' %}{{ loop }}{% endfor %}|{{ namespace(a=1, b='x') }}", {}),
    ("{{ cycler(1) }}", {}),
]
