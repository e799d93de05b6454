/** Python identifiers (`str.isidentifier()`: XID_Start or '_', then XID_Continue) at CPython 3.11's Unicode. */
import { IDENTIFIER_CONTINUE, IDENTIFIER_START } from './unicodedata.ts';

// Built on first use, not when the module loads: the tables behind them are decoded then, and most commands never
// read a Python literal or a Jinja template (each start-up would pay for them).
let charClass: string | undefined;
let pattern: string | undefined;

/** The body of a class matching any character that may continue an identifier. */
export function identifierCharClass(): string {
  return (charClass ??= IDENTIFIER_CONTINUE.classBody());
}

/** The source of a `u` regex matching one identifier (each user compiles its own, with its own flags). */
export function identifierPattern(): string {
  return (pattern ??= `[${IDENTIFIER_START.classBody()}][${identifierCharClass()}]*`);
}
