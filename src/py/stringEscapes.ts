/** Python's `unicode-escape` decoding of a string literal's body, as Jinja2 and `ast.literal_eval` read literals. */

/** A body Python's decoder refuses (the message is CPython's reason). */
export class PyEscapeError extends Error {}

const SIMPLE_ESCAPES: Record<string, string> = {
  '\n': '',
  '\\': '\\',
  "'": "'",
  '"': '"',
  a: '\x07',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
};

/**
 * Jinja2 decodes string literals with `.encode('ascii', 'backslashreplace')
 * .decode('unicode-escape')`. Non-ASCII text survives (it is escaped, then
 * unescaped), except right after a lone backslash, where Python's quirk turns
 * `\é` into the four characters `\xe9`; unknown escapes keep their backslash.
 */
export function decodeUnicodeEscape(body: string, pythonSource = false): string {
  // For a Python source literal (ast.literal_eval) the text is decoded as is, without the ASCII round trip.
  let ascii = pythonSource ? body : '';
  for (const ch of pythonSource ? '' : body) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) ascii += ch;
    else if (cp < 0x100) ascii += `\\x${cp.toString(16).padStart(2, '0')}`;
    else if (cp < 0x10000) ascii += `\\u${cp.toString(16).padStart(4, '0')}`;
    else ascii += `\\U${cp.toString(16).padStart(8, '0')}`;
  }
  let out = '';
  for (let i = 0; i < ascii.length; i++) {
    const c = ascii[i]!;
    if (c !== '\\') {
      out += c;
      continue;
    }
    const e = ascii[++i];
    if (e === undefined) throw new PyEscapeError('\\ at end of string');
    if (e in SIMPLE_ESCAPES) out += SIMPLE_ESCAPES[e];
    else if (/[0-7]/.test(e)) {
      let digits = e;
      while (digits.length < 3 && /[0-7]/.test(ascii[i + 1] ?? '')) digits += ascii[++i];
      out += String.fromCodePoint(parseInt(digits, 8));
    } else if (e === 'x' || e === 'u' || e === 'U') {
      const width = e === 'x' ? 2 : e === 'u' ? 4 : 8;
      const hex = ascii.slice(i + 1, i + 1 + width);
      if (!new RegExp(`^[0-9a-fA-F]{${width}}$`).test(hex)) {
        throw new PyEscapeError(`truncated \\${e}${'X'.repeat(width)} escape`);
      }
      const cp = parseInt(hex, 16);
      if (cp > 0x10ffff) throw new PyEscapeError('illegal Unicode character');
      out += String.fromCodePoint(cp);
      i += width;
    } else if (e === 'N') {
      throw new PyEscapeError('\\N{...} escapes (Unicode character names) are not supported');
    } else out += `\\${e}`;
  }
  return out;
}
