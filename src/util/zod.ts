/**
 * The project's zod: the "mini" build, whose functions the bundler drops when unused, with
 * English error messages. The full build cost every command ~30 ms of start-up (the
 * rescoring benchmark times whole processes) for methods we never call. Import it as a
 * namespace (`import * as z`) so that unused functions stay out of the bundle.
 */
import { config } from 'zod/mini';
import en from 'zod/v4/locales/en.js';

config(en());

export * from 'zod/mini';
