/**
 * JSON kept losslessly for lm-eval records (the tree of what was written: key order,
 * number spelling, bare NaN/Infinity), and Python's `json.dumps` as its writer.
 * lm-eval's doc_hash is sha256 of `json.dumps(doc, indent=2, ensure_ascii=False)`, so
 * recomputing it needs the document exactly as Python held it. The reading itself is
 * jsonReader.ts's.
 */
import type { InputLocation } from '../errors.ts';
// CPython's str repr (quote choice, escapes by str.isprintable over the full Unicode tables).
import { pyStrRepr } from './str.ts';
import { readJson, readJsonArray, readLeadingJson, type JsonBuilder } from './jsonReader.ts';

export type PyNode =
  | { readonly k: 'obj'; readonly entries: readonly (readonly [string, PyNode])[] }
  | { readonly k: 'arr'; readonly items: readonly PyNode[] }
  | { readonly k: 'str'; readonly v: string }
  | { readonly k: 'num'; readonly raw: string }
  | { readonly k: 'bool'; readonly v: boolean }
  | { readonly k: 'null' };

const NULL_NODE: PyNode = { k: 'null' };
const TRUE_NODE: PyNode = { k: 'bool', v: true };
const FALSE_NODE: PyNode = { k: 'bool', v: false };

const TREE: JsonBuilder<PyNode> = {
  object: (entries) => ({ k: 'obj', entries }),
  array: (items) => ({ k: 'arr', items }),
  string: (v) => ({ k: 'str', v }),
  number: (raw) => ({ k: 'num', raw }),
  bool: (v) => (v ? TRUE_NODE : FALSE_NODE),
  null: () => NULL_NODE,
};

/** Parses one JSON document (Python's NaN/Infinity allowed), keeping order and number spelling. */
export function parseOrdered(text: string, where: InputLocation = {}): PyNode {
  return readJson(text, TREE, where);
}

/** The JSON value a text starts with, ignoring what follows (a file's first record, read from its head). */
export function parseOrderedLeading(text: string): PyNode {
  return readLeadingJson(text, TREE);
}

/** A top-level JSON array, each item with the 1-based line it starts on. */
export function parseOrderedArray(text: string, where: InputLocation = {}): { node: PyNode; line: number }[] {
  return readJsonArray(text, TREE, (node) => (node.k === 'arr' ? [...node.items] : null), where).map(({ value, line }) => ({ node: value, line }));
}

export function numberOf(raw: string): number {
  if (raw === 'NaN') return Number.NaN;
  if (raw === 'Infinity') return Number.POSITIVE_INFINITY;
  if (raw === '-Infinity') return Number.NEGATIVE_INFINITY;
  return Number(raw);
}

/**
 * Sets an object member as Python's dict would hold it: a key named `__proto__` becomes
 * an own property (plain assignment would replace the object's prototype instead).
 */
export function setMember(out: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value, writable: true, enumerable: true, configurable: true });
  else out[key] = value;
}

/** The plain JS value (objects lose integer-key order; numbers lose int/float spelling). */
export function toValue(node: PyNode): unknown {
  switch (node.k) {
    case 'obj': {
      const out: Record<string, unknown> = {};
      for (const [key, child] of node.entries) setMember(out, key, toValue(child));
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

/** `String.prototype.isWellFormed` (Node 20 has it; the ES2022 type library does not declare it). */
export const isWellFormed = (s: string): boolean => (s as unknown as { isWellFormed(): boolean }).isWellFormed();

/**
 * A string as `json.dumps(s, ensure_ascii=False)` writes it. JSON.stringify escapes the
 * same characters the same way (lower-case \u00xx) except a lone surrogate, which it
 * escapes and Python writes raw; it is native, so it serves every well-formed string.
 */
export function pyJsonString(s: string): string {
  if (isWellFormed(s)) return JSON.stringify(s);
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
      return pyJsonString(node.v);
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
      const parts = node.entries.map(([key, v]) => `${pyJsonString(key)}: ${pyDumps(v, indent, level + 1)}`);
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
