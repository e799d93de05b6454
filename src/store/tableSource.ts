/** What a store table's content comes from (tableStaging.ts stages it; rowLinesTable.ts makes the text-reading kind). */

/**
 * A table's content: rows built in JS, or a SELECT DuckDB runs (bulk imports, and rows an importer
 * wrote as lines of text as it read: rowLinesTable.ts). A `lazy` SELECT, whose importer has already
 * validated it, is staged as a typed view and computed only when read (on-the-fly rescoring reads a
 * few columns of it).
 */
export type TableSource =
  | { rows: readonly Record<string, unknown>[] }
  | {
      sql: string;
      lazy?: boolean;
      /** A column of `sql` holding each row's position (kept as file_row_number). */
      rowNumber?: string;
      /** 'parse': each read of `sql` parses text again (rowLinesTable.ts), so a source queried many times is read into a table once. */
      reread?: 'parse';
      /** The size of the text `sql` parses, when it reads text (bounds the store write's memory: see writeTables in writeStore.ts). */
      textBytes?: number;
    };
