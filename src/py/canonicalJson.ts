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
 * Anything else makes the reader refuse the text, and the caller reads it the exact way
 * (orderedJson.ts), which also gives the error a malformed record deserves.
 *
 * Precondition: the text holds no character below U+0020 (a string's are never checked).
 * Callers check that on the bytes (controlBytePositions), cheaper than any check on the string.
 */

/**
 * An escaped string this long or longer is remembered (CanonicalTokens.stringAt): a multiple-choice record writes its
 * prompt (a few KB with its shots) once a request, and walking its escapes again each time was a sixth of the reading.
 */
const LONG_STRING = 256;

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
    this.lastLong = '';
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
          j = this.lastLong === '' ? -1 : this.repeatAt(i, k);
          if (j < 0) j = this.stringAt(i, k);
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
      if (this.backslash > quote) {
        if (this.escaped[k] === 1 && quote + 1 - i >= LONG_STRING) this.lastLong = t.slice(i, quote + 1);
        return quote + 1;
      }
      this.escaped[k] = 1;
      const b = this.backslash;
      const e = t.charCodeAt(b + 1);
      if (e === 110 || e === QUOTE || e === BACKSLASH || e === 116 || e === 114 || e === 98 || e === 102) j = b + 2;
      else if (e === 117 && isControlEscape(t, b)) j = b + 6;
      else return -1;
      this.backslash = this.backslashFrom(j);
    }
  }

  /**
   * The end of the string value at `i` (token `k`) when it is the line's last long escaped string again, else -1: its
   * end is where that string's was (the same characters escape the same quotes), found without walking its escapes.
   * Apart from stringAt, which stays small enough to be inlined where every key and value is read.
   */
  private repeatAt(i: number, k: number): number {
    const last = this.lastLong;
    if (this.text.charCodeAt(i + last.length - 1) !== QUOTE || this.text.slice(i, i + last.length) !== last) return -1;
    this.kind[k] = TOKEN.string;
    this.escaped[k] = 1;
    return i + last.length;
  }

  /** The line's last escaped string of LONG_STRING characters or more (its JSON text, quotes included), or ''. */
  private lastLong = '';

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
  /** Tokens `a` and `b` are the same JSON text (the same characters, however long). */
  same(a: number, b: number): boolean {
    const length = this.end[a]! - this.start[a]!;
    if (this.end[b]! - this.start[b]! !== length || this.kind[a] !== this.kind[b]) return false;
    // Two slices compared with ===, which V8 does a block at a time; startsWith went a character at a time (0.8 s on 25,000 four-request records).
    return this.text.slice(this.start[a]!, this.end[a]!) === this.text.slice(this.start[b]!, this.end[b]!);
  }

  is(k: number, plain: string): boolean {
    if (this.kind[k] !== TOKEN.string || this.end[k]! - this.start[k]! !== plain.length + 2) return false;
    // A character at a time in compiled code: startsWith went through the runtime for each key (a metric's name,
    // a dozen a record).
    const t = this.text;
    const from = this.start[k]! + 1;
    for (let i = 0; i < plain.length; i++) if (t.charCodeAt(from + i) !== plain.charCodeAt(i)) return false;
    return true;
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
