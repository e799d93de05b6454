/**
 * A lossless JSON reader for lm-eval records, and Python's `json.dumps` as a writer.
 *
 * Why hand-written: lm-eval's doc_hash is sha256 of `json.dumps(doc, indent=2,
 * ensure_ascii=False)`, so recomputing it needs the document exactly as Python held it:
 * key order (JS objects move integer-like keys such as "1" to the front), number
 * spelling (`1.0` vs `1`, `1e-05`) and bare NaN/Infinity. JSON.parse keeps none of these
 * and Node 20 has no source-text access in revivers; no installed library keeps all three.
 */
import { BadInputError, type InputLocation } from '../errors.ts';
// CPython's str repr (quote choice, escapes by str.isprintable over the full Unicode tables).
import { pyStrRepr } from '../prompt/jinja/pystr.ts';

export type PyNode =
  | { readonly k: 'obj'; readonly entries: readonly (readonly [string, PyNode])[] }
  | { readonly k: 'arr'; readonly items: readonly PyNode[] }
  | { readonly k: 'str'; readonly v: string }
  | { readonly k: 'num'; readonly raw: string }
  | { readonly k: 'bool'; readonly v: boolean }
  | { readonly k: 'null' };

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const NON_FINITE = ['NaN', 'Infinity', '-Infinity'] as const;

class Reader {
  pos = 0;
  /** Start offsets of the top-level array's items (to report the line of element i). */
  readonly itemStarts: number[] = [];
  constructor(
    readonly text: string,
    readonly where: InputLocation,
  ) {}

  fail(message: string): never {
    const before = this.text.slice(0, this.pos);
    const line = (this.where.line ?? 1) + (before.match(/\n/g)?.length ?? 0);
    throw new BadInputError(`malformed JSON at character ${this.pos}: ${message}`, { ...this.where, line });
  }

  skip(): void {
    const t = this.text;
    while (this.pos < t.length) {
      const c = t.charCodeAt(this.pos);
      if (c === 32 || c === 10 || c === 13 || c === 9) this.pos++;
      else break;
    }
  }

  value(depth: number): PyNode {
    if (depth > 512) this.fail('nesting deeper than 512');
    this.skip();
    const t = this.text;
    const c = t[this.pos];
    if (c === '{') return this.object(depth);
    if (c === '[') return this.array(depth);
    if (c === '"') return { k: 'str', v: this.string() };
    if (t.startsWith('true', this.pos)) return (this.pos += 4), { k: 'bool', v: true };
    if (t.startsWith('false', this.pos)) return (this.pos += 5), { k: 'bool', v: false };
    if (t.startsWith('null', this.pos)) return (this.pos += 4), { k: 'null' };
    for (const token of NON_FINITE) {
      if (t.startsWith(token, this.pos)) return (this.pos += token.length), { k: 'num', raw: token };
    }
    NUMBER.lastIndex = this.pos;
    const m = NUMBER.exec(t);
    if (m === null) this.fail(c === undefined ? 'unexpected end of input' : `unexpected ${JSON.stringify(c)}`);
    this.pos += m[0].length;
    return { k: 'num', raw: m[0] };
  }

  string(): string {
    const t = this.text;
    const start = this.pos;
    let i = start + 1;
    let escaped = false;
    for (;;) {
      const c = t.charCodeAt(i);
      if (Number.isNaN(c)) this.fail('unterminated string');
      if (c === 92) {
        escaped = true;
        i += 2;
        continue;
      }
      if (c === 34) break;
      if (c < 32) {
        this.pos = i;
        this.fail('control character inside a string');
      }
      i++;
    }
    this.pos = i + 1;
    if (!escaped) return t.slice(start + 1, i);
    try {
      return JSON.parse(t.slice(start, i + 1)) as string;
    } catch {
      this.pos = start;
      return this.fail('bad escape in string');
    }
  }

  object(depth: number): PyNode {
    this.pos++;
    const entries: [string, PyNode][] = [];
    this.skip();
    if (this.text[this.pos] === '}') return this.pos++, { k: 'obj', entries };
    for (;;) {
      this.skip();
      if (this.text[this.pos] !== '"') this.fail('expected a key');
      const key = this.string();
      this.skip();
      if (this.text[this.pos] !== ':') this.fail("expected ':'");
      this.pos++;
      entries.push([key, this.value(depth + 1)]);
      this.skip();
      const c = this.text[this.pos++];
      if (c === '}') return { k: 'obj', entries };
      if (c !== ',') (this.pos--, this.fail("expected ',' or '}'"));
    }
  }

  array(depth: number): PyNode {
    this.pos++;
    const items: PyNode[] = [];
    this.skip();
    if (this.text[this.pos] === ']') return this.pos++, { k: 'arr', items };
    for (;;) {
      if (depth === 0) {
        this.skip();
        this.itemStarts.push(this.pos);
      }
      items.push(this.value(depth + 1));
      this.skip();
      const c = this.text[this.pos++];
      if (c === ']') return { k: 'arr', items };
      if (c !== ',') (this.pos--, this.fail("expected ',' or ']'"));
    }
  }
}

/** Parses one JSON document (Python's NaN/Infinity allowed), keeping order and number spelling. */
export function parseOrdered(text: string, where: InputLocation = {}): PyNode {
  const reader = new Reader(text, where);
  const node = reader.value(0);
  reader.skip();
  if (reader.pos !== text.length) reader.fail('trailing characters after the JSON value');
  return node;
}

export function numberOf(raw: string): number {
  if (raw === 'NaN') return Number.NaN;
  if (raw === 'Infinity') return Number.POSITIVE_INFINITY;
  if (raw === '-Infinity') return Number.NEGATIVE_INFINITY;
  return Number(raw);
}

/** A top-level JSON array, each item with the 1-based line it starts on. */
export function parseOrderedArray(text: string, where: InputLocation = {}): { node: PyNode; line: number }[] {
  const reader = new Reader(text, where);
  const node = reader.value(0);
  reader.skip();
  if (reader.pos !== text.length) reader.fail('trailing characters after the JSON value');
  if (node.k !== 'arr') throw new BadInputError('expected a JSON array', { ...where, line: 1 });
  let line = 1;
  let offset = 0;
  return node.items.map((item, i) => {
    const start = reader.itemStarts[i]!;
    for (; offset < start; offset++) if (text.charCodeAt(offset) === 10) line++;
    return { node: item, line };
  });
}

/** The plain JS value (objects lose integer-key order; numbers lose int/float spelling). */
export function toValue(node: PyNode): unknown {
  switch (node.k) {
    case 'obj': {
      const out: Record<string, unknown> = {};
      for (const [key, child] of node.entries) out[key] = toValue(child);
      return out;
    }
    case 'arr':
      return node.items.map(toValue);
    case 'str':
      return node.v;
    case 'num':
      return numberOf(node.raw);
    case 'bool':
      return node.v;
    case 'null':
      return null;
  }
}

/** A member of an object node (first occurrence, as Python's dict keeps the last; duplicates are rare and flagged by callers). */
export function member(node: PyNode | undefined, key: string): PyNode | undefined {
  if (node?.k !== 'obj') return undefined;
  let found: PyNode | undefined;
  for (const [k, v] of node.entries) if (k === key) found = v;
  return found;
}

// Python's json encoder with ensure_ascii=False escapes only these (ESCAPE = r'[\x00-\x1f\\"\b\f\n\r\t]').
const PY_ESCAPES: Record<string, string> = { '"': '\\"', '\\': '\\\\', '\n': '\\n', '\r': '\\r', '\t': '\\t', '\b': '\\b', '\f': '\\f' };

export function pyString(s: string): string {
  // eslint-disable-next-line no-control-regex
  return `"${s.replace(/[\u0000-\u001f"\\]/g, (c) => PY_ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}"`;
}

/**
 * `json.dumps(value, ensure_ascii=False)` (indent undefined: separators ", " and ": ")
 * or `json.dumps(value, indent=n, ensure_ascii=False)` (items end with "," then a newline).
 */
export function pyDumps(node: PyNode, indent?: number, level = 0): string {
  switch (node.k) {
    case 'str':
      return pyString(node.v);
    case 'num':
      return node.raw;
    case 'bool':
      return node.v ? 'true' : 'false';
    case 'null':
      return 'null';
    case 'arr': {
      if (node.items.length === 0) return '[]';
      const parts = node.items.map((item) => pyDumps(item, indent, level + 1));
      return wrap('[', ']', parts, indent, level);
    }
    case 'obj': {
      if (node.entries.length === 0) return '{}';
      const parts = node.entries.map(([key, v]) => `${pyString(key)}: ${pyDumps(v, indent, level + 1)}`);
      return wrap('{', '}', parts, indent, level);
    }
  }
}

function wrap(open: string, close: string, parts: string[], indent: number | undefined, level: number): string {
  if (indent === undefined) return `${open}${parts.join(', ')}${close}`;
  const inner = '\n' + ' '.repeat(indent * (level + 1));
  return `${open}${inner}${parts.join(`,${inner}`)}\n${' '.repeat(indent * level)}${close}`;
}

/** Python's `str(x)` for values lm-eval stringifies (targets, list targets): repr for containers. */
export function pyStr(node: PyNode): string {
  if (node.k === 'str') return node.v;
  return pyRepr(node);
}

function pyRepr(node: PyNode): string {
  switch (node.k) {
    case 'str':
      return pyStrRepr(node.v);
    case 'num':
      return node.raw === 'NaN' ? 'nan' : node.raw === 'Infinity' ? 'inf' : node.raw === '-Infinity' ? '-inf' : node.raw;
    case 'bool':
      return node.v ? 'True' : 'False';
    case 'null':
      return 'None';
    case 'arr':
      return `[${node.items.map(pyRepr).join(', ')}]`;
    case 'obj':
      return `{${node.entries.map(([k, v]) => `${pyStrRepr(k)}: ${pyRepr(v)}`).join(', ')}}`;
  }
}
