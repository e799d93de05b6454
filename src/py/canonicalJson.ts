/**
 * Text exactly as Python's `json.dumps(value, ensure_ascii=False)` writes it, read without
 * building the value. lm-eval writes every samples record that way, so a record's text is
 * already what pyDumps would give for each of its parts: the importer slices the document,
 * the filtered responses and the scores out of the line instead of parsing and re-rendering
 * them, which was most of an import's time.
 *
 * "Canonical" here means a fixpoint of this project's exact path: text T for which
 * `pyDumps(parseOrdered(T)) === T`. So: separators exactly ", " and ": " and no other
 * whitespace; strings escaped as JSON.stringify escapes a well-formed string (\" \\ \b \f
 * \n \r \t, other controls as lower-case \u00xx, nothing else); numbers in any JSON
 * spelling (pyDumps keeps a number as written) and Python's bare NaN, Infinity, -Infinity.
 * Anything else makes the reader answer -1 or null, and the caller reads the text the
 * exact way (orderedJson.ts), which also gives the error a malformed record deserves.
 *
 * Precondition of every function here: the text holds no character below U+0020. Callers
 * check that on the bytes (hasControlByte), which is cheaper than any check on the string.
 */
import type { PyNode } from './orderedJson.ts';

/** Deeper nesting is left to the exact reader (which bounds it at 512). */
const MAX_DEPTH = 64;

const QUOTE = 34;
const BACKSLASH = 92;
const COMMA = 44;
const COLON = 58;
const SPACE = 32;
const OPEN_OBJECT = 123;
const CLOSE_OBJECT = 125;
const OPEN_ARRAY = 91;
const CLOSE_ARRAY = 93;

/** The top-level members of an object: each key (decoded) and the span of its value's text. */
export interface CanonicalMembers {
  keys: string[];
  starts: number[];
  ends: number[];
}

/**
 * A forward reader over one text. Strings are skipped with indexOf: the position of the next
 * backslash is kept (and looked up again only once passed), so a text with no escapes near a
 * string costs one search per string, and the whole reading stays linear in the text.
 */
export class CanonicalReader {
  /** The first backslash at or after `backslashSearchedFrom` (the text's length when none). */
  private nextBackslash: number;
  private backslashSearchedFrom = 0;
  /** Whether the string stringEnd last read holds an escape. */
  private lastStringEscaped = false;

  constructor(readonly text: string) {
    this.nextBackslash = this.findBackslash(0);
  }

  /** The object's members when the whole text is one canonical object, else null. */
  members(): CanonicalMembers | null {
    const t = this.text;
    if (t.charCodeAt(0) !== OPEN_OBJECT) return null;
    const out: CanonicalMembers = { keys: [], starts: [], ends: [] };
    if (t.length === 2 && t.charCodeAt(1) === CLOSE_OBJECT) return out;
    let i = 1;
    for (;;) {
      if (t.charCodeAt(i) !== QUOTE) return null;
      const keyEnd = this.stringEnd(i);
      if (keyEnd < 0 || t.charCodeAt(keyEnd) !== COLON || t.charCodeAt(keyEnd + 1) !== SPACE) return null;
      out.keys.push(this.lastString(i, keyEnd));
      const start = keyEnd + 2;
      const end = this.valueEnd(start, 1);
      if (end < 0) return null;
      out.starts.push(start);
      out.ends.push(end);
      const c = t.charCodeAt(end);
      if (c === CLOSE_OBJECT) return end + 1 === t.length ? out : null;
      if (c !== COMMA || t.charCodeAt(end + 1) !== SPACE) return null;
      i = end + 2;
    }
  }

  /** The members of the object at [start, end), a span members() or valueEnd() accepted. */
  membersAt(start: number, end: number): CanonicalMembers {
    const t = this.text;
    const out: CanonicalMembers = { keys: [], starts: [], ends: [] };
    if (end - start === 2) return out;
    let i = start + 1;
    for (;;) {
      const keyEnd = this.checked(this.stringEnd(i));
      out.keys.push(this.lastString(i, keyEnd));
      const valueEnd = this.checked(this.valueEnd(keyEnd + 2, 1));
      out.starts.push(keyEnd + 2);
      out.ends.push(valueEnd);
      if (t.charCodeAt(valueEnd) === CLOSE_OBJECT) return out;
      i = valueEnd + 2;
    }
  }

  /** The spans of the items of the array at [start, end), a span members() or valueEnd() accepted. */
  itemsAt(start: number, end: number): { starts: number[]; ends: number[] } {
    const t = this.text;
    const out = { starts: [] as number[], ends: [] as number[] };
    if (end - start === 2) return out;
    let i = start + 1;
    for (;;) {
      const itemEnd = this.checked(this.valueEnd(i, 1));
      out.starts.push(i);
      out.ends.push(itemEnd);
      if (t.charCodeAt(itemEnd) === CLOSE_ARRAY) return out;
      i = itemEnd + 2;
    }
  }

  /** End of the canonical value that starts at `i`, or -1. */
  valueEnd(i: number, depth: number): number {
    const t = this.text;
    const c = t.charCodeAt(i);
    if (c === QUOTE) return this.stringEnd(i);
    if (c === OPEN_OBJECT) {
      if (t.charCodeAt(i + 1) === CLOSE_OBJECT) return i + 2;
      if (depth >= MAX_DEPTH) return -1;
      i++;
      for (;;) {
        if (t.charCodeAt(i) !== QUOTE) return -1;
        i = this.stringEnd(i);
        if (i < 0 || t.charCodeAt(i) !== COLON || t.charCodeAt(i + 1) !== SPACE) return -1;
        i = this.valueEnd(i + 2, depth + 1);
        if (i < 0) return -1;
        const e = t.charCodeAt(i);
        if (e === CLOSE_OBJECT) return i + 1;
        if (e !== COMMA || t.charCodeAt(i + 1) !== SPACE) return -1;
        i += 2;
      }
    }
    if (c === OPEN_ARRAY) {
      if (t.charCodeAt(i + 1) === CLOSE_ARRAY) return i + 2;
      if (depth >= MAX_DEPTH) return -1;
      i++;
      for (;;) {
        i = this.valueEnd(i, depth + 1);
        if (i < 0) return -1;
        const e = t.charCodeAt(i);
        if (e === CLOSE_ARRAY) return i + 1;
        if (e !== COMMA || t.charCodeAt(i + 1) !== SPACE) return -1;
        i += 2;
      }
    }
    if (c === 116) return t.startsWith('true', i) ? i + 4 : -1;
    if (c === 102) return t.startsWith('false', i) ? i + 5 : -1;
    if (c === 110) return t.startsWith('null', i) ? i + 4 : -1;
    if (c === 78) return t.startsWith('NaN', i) ? i + 3 : -1;
    if (c === 73) return t.startsWith('Infinity', i) ? i + 8 : -1;
    if (c === 45 && t.charCodeAt(i + 1) === 73) return t.startsWith('-Infinity', i) ? i + 9 : -1;
    return numberEnd(t, i);
  }

  /** End (after the closing quote) of the canonical string whose opening quote is at `i`, or -1. */
  stringEnd(i: number): number {
    const t = this.text;
    i++;
    let escaped = false;
    for (;;) {
      const quote = t.indexOf('"', i);
      if (quote < 0) return -1;
      const b = this.backslashFrom(i);
      if (b > quote) {
        this.lastStringEscaped = escaped;
        return quote + 1;
      }
      escaped = true;
      const c = t.charCodeAt(b + 1);
      // n " \ t r b f: the short escapes JSON.stringify writes.
      if (c === 110 || c === QUOTE || c === BACKSLASH || c === 116 || c === 114 || c === 98 || c === 102) i = b + 2;
      else if (c === 117 && isControlEscape(t, b)) i = b + 6;
      else return -1;
    }
  }

  /** The value of the canonical string literal at [start, end). */
  decodeString(start: number, end: number): string {
    this.stringEnd(start);
    return this.lastString(start, end);
  }

  /** The value of the string stringEnd just read, at [start, end). */
  private lastString(start: number, end: number): string {
    // Escapes are standard JSON: JSON.parse decodes them exactly (and natively).
    return this.lastStringEscaped ? (JSON.parse(this.text.slice(start, end)) as string) : this.text.slice(start + 1, end - 1);
  }

  /** The canonical value at [start, end) as the exact reader's node (orderedJson.ts) would hold it. */
  node(start: number, end: number): PyNode {
    const node = this.read(start);
    if (this.readEnd !== end) throw new Error(`canonical value at ${start} ends at ${this.readEnd}, not ${end}`);
    return node;
  }

  /** A position, or an error when a reader found the text not canonical (node() is for text members() accepted). */
  private checked(position: number): number {
    if (position < 0) throw new Error('not canonical JSON text');
    return position;
  }

  /** End of the value `read` last returned. */
  private readEnd = 0;

  /** The node of the canonical value at `i` (known valid), its end left in readEnd. */
  private read(i: number): PyNode {
    const t = this.text;
    const c = t.charCodeAt(i);
    if (c === QUOTE) {
      this.readEnd = this.checked(this.stringEnd(i));
      return { k: 'str', v: this.lastString(i, this.readEnd) };
    }
    if (c === OPEN_OBJECT) {
      const entries: [string, PyNode][] = [];
      if (t.charCodeAt(i + 1) === CLOSE_OBJECT) {
        this.readEnd = i + 2;
        return { k: 'obj', entries };
      }
      i++;
      for (;;) {
        const keyEnd = this.checked(this.stringEnd(i));
        const key = this.lastString(i, keyEnd);
        entries.push([key, this.read(keyEnd + 2)]);
        i = this.readEnd;
        if (t.charCodeAt(i) === CLOSE_OBJECT) {
          this.readEnd = i + 1;
          return { k: 'obj', entries };
        }
        i = this.checked(t.charCodeAt(i) === COMMA ? i + 2 : -1);
      }
    }
    if (c === OPEN_ARRAY) {
      const items: PyNode[] = [];
      if (t.charCodeAt(i + 1) === CLOSE_ARRAY) {
        this.readEnd = i + 2;
        return { k: 'arr', items };
      }
      i++;
      for (;;) {
        items.push(this.read(i));
        i = this.readEnd;
        if (t.charCodeAt(i) === CLOSE_ARRAY) {
          this.readEnd = i + 1;
          return { k: 'arr', items };
        }
        i = this.checked(t.charCodeAt(i) === COMMA ? i + 2 : -1);
      }
    }
    this.readEnd = this.checked(this.valueEnd(i, 0));
    if (c === 116) return { k: 'bool', v: true };
    if (c === 102) return { k: 'bool', v: false };
    if (c === 110) return { k: 'null' };
    return { k: 'num', raw: t.slice(i, this.readEnd) };
  }

  /**
   * `json.dumps(value, indent=n, ensure_ascii=False)` of the canonical value at [start, end):
   * the same tokens, each item on its own line ("," ends an item, ": " stays).
   */
  indented(start: number, end: number, indent: number): string {
    const t = this.text;
    let out = '';
    let depth = 0;
    let copied = start;
    let i = start;
    const newline = (d: number) => `\n${' '.repeat(indent * d)}`;
    while (i < end) {
      const c = t.charCodeAt(i);
      if (c === QUOTE) {
        i = this.stringEnd(i);
      } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        const next = t.charCodeAt(i + 1);
        if (next === CLOSE_OBJECT || next === CLOSE_ARRAY) {
          i += 2;
          continue;
        }
        depth++;
        out += t.slice(copied, i + 1) + newline(depth);
        copied = ++i;
      } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
        depth--;
        out += t.slice(copied, i) + newline(depth);
        copied = i++;
      } else if (c === COMMA) {
        out += t.slice(copied, i + 1) + newline(depth);
        i += 2;
        copied = i;
      } else {
        i++;
      }
    }
    return out + t.slice(copied, end);
  }

  /** The first backslash at or after `from`: the one already found when it lies ahead, else searched for. */
  private backslashFrom(from: number): number {
    if (from < this.backslashSearchedFrom || from > this.nextBackslash) {
      this.backslashSearchedFrom = from;
      this.nextBackslash = this.findBackslash(from);
    }
    return this.nextBackslash;
  }

  private findBackslash(from: number): number {
    const b = this.text.indexOf('\\', from);
    return b < 0 ? this.text.length : b;
  }
}

/** A JSON number token (the exact reader's NUMBER pattern) from `i`: its end, or -1. */
function numberEnd(t: string, i: number): number {
  let c = t.charCodeAt(i);
  if (c === 45) c = t.charCodeAt(++i);
  if (c === 48) c = t.charCodeAt(++i);
  else if (c >= 49 && c <= 57) {
    do c = t.charCodeAt(++i);
    while (c >= 48 && c <= 57);
  } else return -1;
  if (c === 46) {
    c = t.charCodeAt(++i);
    if (!(c >= 48 && c <= 57)) return -1;
    do c = t.charCodeAt(++i);
    while (c >= 48 && c <= 57);
  }
  if (c === 101 || c === 69) {
    c = t.charCodeAt(++i);
    if (c === 43 || c === 45) c = t.charCodeAt(++i);
    if (!(c >= 48 && c <= 57)) return -1;
    do c = t.charCodeAt(++i);
    while (c >= 48 && c <= 57);
  }
  return i;
}

/** `\u00xx` at `b` with xx a control character JSON.stringify spells that way (not \b \t \n \f \r), hex in lower case. */
function isControlEscape(t: string, b: number): boolean {
  if (t.charCodeAt(b + 2) !== 48 || t.charCodeAt(b + 3) !== 48) return false;
  const high = t.charCodeAt(b + 4);
  const low = t.charCodeAt(b + 5);
  const lowValue = low >= 48 && low <= 57 ? low - 48 : low >= 97 && low <= 102 ? low - 87 : -1;
  if (lowValue < 0 || (high !== 48 && high !== 49)) return false;
  const code = (high - 48) * 16 + lowValue;
  return code !== 8 && code !== 9 && code !== 10 && code !== 12 && code !== 13;
}

/**
 * Positions of the bytes below 0x20 in `bytes[start, end)`, in order: four bytes are tested
 * at once (a byte below 0x20 sets its high bit in (x - 0x20202020) & ~x; a borrow can mark a
 * neighbour too, never hide one, so each marked word is looked at byte by byte). A JSONL
 * chunk is one such test per four bytes instead of a regular expression over its text.
 */
export function controlBytePositions(bytes: Uint8Array, start: number, end: number): number[] {
  const out: number[] = [];
  let i = start;
  while (i < end && (bytes.byteOffset + i) % 4 !== 0) {
    if (bytes[i]! < SPACE) out.push(i);
    i++;
  }
  const words = Math.floor((end - i) / 4);
  const view = new Int32Array(bytes.buffer, bytes.byteOffset + i, words);
  for (let w = 0; w < words; w++) {
    const x = view[w]!;
    if (((x - 0x20202020) & ~x & 0x80808080) !== 0) {
      const at = i + w * 4;
      for (let k = at; k < at + 4; k++) if (bytes[k]! < SPACE) out.push(k);
    }
  }
  for (let k = i + words * 4; k < end; k++) if (bytes[k]! < SPACE) out.push(k);
  return out;
}

/** Kinds of CanonicalTokens. */
export const TOKEN = { string: 1, number: 2, literal: 3, object: 4, array: 5 } as const;

/**
 * A canonical text read once into a table of tokens in document order (an object's members
 * as key, value), each with its span and the index just past it (past its whole value for a
 * container), so that a reader can walk to any part of a record without reading text twice.
 * The arrays are kept from text to text (a samples file's records are read one after another
 * into one table), grown when a text needs more.
 */
export class CanonicalTokens {
  text = '';
  count = 0;
  kind = new Uint8Array(256);
  start = new Int32Array(256);
  end = new Int32Array(256);
  next = new Int32Array(256);
  /** 1 when a string token holds an escape. */
  escaped = new Uint8Array(256);
  private readonly open: number[] = [];

  /** Reads `text` as one canonical value; false when it is not (then nothing here is meaningful). */
  read(text: string): boolean {
    this.text = text;
    this.count = 0;
    this.backslash = this.backslashFrom(0);
    const t = text;
    const open = this.open;
    open.length = 0;
    let i = 0;
    for (;;) {
      // A value starts at i.
      const c = t.charCodeAt(i);
      if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
        const k = this.push(i, c === OPEN_OBJECT ? TOKEN.object : TOKEN.array);
        const closer = c === OPEN_OBJECT ? CLOSE_OBJECT : CLOSE_ARRAY;
        if (t.charCodeAt(i + 1) === closer) {
          this.close(k, i + 2);
          i += 2;
        } else {
          if (open.length >= MAX_DEPTH) return false;
          open.push(k);
          i = c === OPEN_OBJECT ? this.key(i + 1) : i + 1;
          if (i < 0) return false;
          continue;
        }
      } else {
        const k = this.push(i, TOKEN.literal);
        let j: number;
        if (c === QUOTE) {
          j = this.stringAt(i, k);
        } else if (c === 116) j = t.startsWith('true', i) ? i + 4 : -1;
        else if (c === 102) j = t.startsWith('false', i) ? i + 5 : -1;
        else if (c === 110) j = t.startsWith('null', i) ? i + 4 : -1;
        else {
          this.kind[k] = TOKEN.number;
          if (c === 78) j = t.startsWith('NaN', i) ? i + 3 : -1;
          else if (c === 73) j = t.startsWith('Infinity', i) ? i + 8 : -1;
          else if (c === 45 && t.charCodeAt(i + 1) === 73) j = t.startsWith('-Infinity', i) ? i + 9 : -1;
          else j = numberEnd(t, i);
        }
        if (j < 0) return false;
        this.close(k, j);
        i = j;
      }
      // After a value: the next member or item, or the end of containers.
      for (;;) {
        if (open.length === 0) return i === t.length;
        const top = open[open.length - 1]!;
        const d = t.charCodeAt(i);
        if (d === COMMA && t.charCodeAt(i + 1) === SPACE) {
          i = this.kind[top] === TOKEN.object ? this.key(i + 2) : i + 2;
          if (i < 0) return false;
          break;
        }
        if (d !== (this.kind[top] === TOKEN.object ? CLOSE_OBJECT : CLOSE_ARRAY)) return false;
        open.pop();
        this.close(top, ++i);
      }
    }
  }

  /** A member's key at `i` and the ": " after it; where its value starts, or -1. */
  private key(i: number): number {
    if (this.text.charCodeAt(i) !== QUOTE) return -1;
    const k = this.push(i, TOKEN.string);
    const j = this.stringAt(i, k);
    if (j < 0 || this.text.charCodeAt(j) !== COLON || this.text.charCodeAt(j + 1) !== SPACE) return -1;
    this.close(k, j);
    return j + 2;
  }

  /** The end of the string whose quote is at `i` (token `k`: marked a string, escaped or not), or -1. */
  private stringAt(i: number, k: number): number {
    const t = this.text;
    this.kind[k] = TOKEN.string;
    let j = i + 1;
    for (;;) {
      const quote = t.indexOf('"', j);
      if (quote < 0) return -1;
      if (this.backslash < j) this.backslash = this.backslashFrom(j);
      if (this.backslash > quote) return quote + 1;
      this.escaped[k] = 1;
      const b = this.backslash;
      const e = t.charCodeAt(b + 1);
      if (e === 110 || e === QUOTE || e === BACKSLASH || e === 116 || e === 114 || e === 98 || e === 102) j = b + 2;
      else if (e === 117 && isControlEscape(t, b)) j = b + 6;
      else return -1;
      this.backslash = this.backslashFrom(j);
    }
  }

  /** The next backslash at or after `from` (the text's length when none). */
  private backslash = 0;
  private backslashFrom(from: number): number {
    const b = this.text.indexOf('\\', from);
    return b < 0 ? this.text.length : b;
  }

  /** The value of string token `k`. */
  string(k: number): string {
    const s = this.start[k]!;
    const e = this.end[k]!;
    return this.escaped[k] === 1 ? (JSON.parse(this.text.slice(s, e)) as string) : this.text.slice(s + 1, e - 1);
  }

  /** The text of token `k` (a container's whole text). */
  slice(k: number): string {
    return this.text.slice(this.start[k], this.end[k]);
  }

  /** Whether token `k` is the string `"<plain>"` (`plain` holding nothing that needs an escape). */
  is(k: number, plain: string): boolean {
    return this.kind[k] === TOKEN.string && this.end[k]! - this.start[k]! === plain.length + 2 && this.text.startsWith(plain, this.start[k]! + 1);
  }

  /** `json.dumps(value, indent=n)` of token `k`: its tokens, each member and item on its own line. */
  indented(k: number, indent: number, level = 0): string {
    const kind = this.kind[k];
    if (kind !== TOKEN.object && kind !== TOKEN.array) return this.slice(k);
    if (this.next[k] === k + 1) return this.slice(k);
    const pad = `\n${' '.repeat(indent * (level + 1))}`;
    let out = kind === TOKEN.object ? `{${pad}` : `[${pad}`;
    let first = true;
    for (let c = k + 1; c < this.next[k]!; ) {
      if (!first) out += `,${pad}`;
      first = false;
      if (kind === TOKEN.object) {
        out += `${this.slice(c)}: `;
        c++;
      }
      out += this.indented(c, indent, level + 1);
      c = this.next[c]!;
    }
    return `${out}\n${' '.repeat(indent * level)}${kind === TOKEN.object ? '}' : ']'}`;
  }

  private push(at: number, kind: number): number {
    const k = this.count++;
    if (k >= this.kind.length) this.grow();
    this.kind[k] = kind;
    this.start[k] = at;
    this.next[k] = -1;
    this.escaped[k] = 0;
    return k;
  }

  private close(k: number, end: number): void {
    this.end[k] = end;
    this.next[k] = this.count;
  }

  private grow(): void {
    const n = this.kind.length * 2;
    const copy = <T extends Uint8Array | Int32Array>(a: T, make: (n: number) => T): T => {
      const b = make(n);
      b.set(a);
      return b;
    };
    this.kind = copy(this.kind, (m) => new Uint8Array(m));
    this.start = copy(this.start, (m) => new Int32Array(m));
    this.end = copy(this.end, (m) => new Int32Array(m));
    this.next = copy(this.next, (m) => new Int32Array(m));
    this.escaped = copy(this.escaped, (m) => new Uint8Array(m));
  }
}
