/** Python identifiers (`str.isidentifier()`: XID_Start or '_', then XID_Continue) at CPython 3.11's Unicode. */
import { IDENTIFIER_CONTINUE, IDENTIFIER_START } from './unicodedata.ts';

/** The body of a class matching any character that may continue an identifier. */
export const IDENTIFIER_CHAR_CLASS = IDENTIFIER_CONTINUE.classBody();

/** The source of a `u` regex matching one identifier (each user compiles its own, with its own flags). */
export const IDENTIFIER_PATTERN = `[${IDENTIFIER_START.classBody()}][${IDENTIFIER_CHAR_CLASS}]*`;
