/**
 * A store table written out as it fills, so that an import of any size holds a bounded
 * part of it: rows go through an appender into an in-memory table, and each time that
 * holds PART_ROWS rows it is written to a Parquet part in this process's scratch folder
 * (on a connection of its own, while the next part fills on the main one) and dropped.
 * Staged whole, a 248 MiB samples file's tables grew past DuckDB's memory limit, spilled,
 * were read back from the spill to be written, and took the import's peak to 0.9–1.15 GiB.
 * The parts read as one relation, in order, each row with its position.
 */
import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { DuckDBAppender, DuckDBConnection } from '@duckdb/node-api';
import { StoreError } from '../errors.ts';
import { duck, duckSideConnection, scratchFolder, sqlIdent, sqlString } from '../util/duckdb.ts';
import { TABLES, type TableName } from './schema.ts';
import { appendRow, columnsDdl, type TableSource } from './writeStore.ts';

/** Rows appended to one part before it is written (the store's own row group size). */
export const PART_ROWS = 16_384;
/** The column of a part's rows holding each row's position in the whole table. */
export const ROW_POSITION = 'part_row_position';

export interface PartedTableOptions {
  table: TableName;
  /** Column definitions of the in-memory table a part fills. */
  ddl: string;
  /** The part's rows: the store table's columns and ROW_POSITION, given the part's table and the count of rows appended before it. */
  select(part: string, before: number): string;
}

export class PartedTable {
  /** The current part's appender: each row appended through it ends with `rowEnded()`. */
  appender!: DuckDBAppender;
  private part = '';
  private appended = 0;
  private before = 0;
  private readonly parts: string[] = [];
  private writing: Promise<unknown> | null = null;
  private open = false;

  private constructor(
    private readonly options: PartedTableOptions,
    private readonly conn: DuckDBConnection,
    private readonly writer: DuckDBConnection,
    private readonly folder: string,
  ) {}

  static async open(options: PartedTableOptions): Promise<PartedTable> {
    // Not temporary tables: the writer's connection reads them, and a temporary table is its connection's alone.
    const parted = new PartedTable(options, await duck(), await duckSideConnection(), scratchFolder('parts'));
    await parted.startPart();
    return parted;
  }

  rowEnded(): void {
    this.appended++;
  }

  /** True when the current part is full and `rotate()` should be awaited before more rows. */
  get due(): boolean {
    return this.appended >= PART_ROWS;
  }

  /** Starts writing the current part (after the one before it is written: at most two parts are held) and opens the next. */
  async rotate(): Promise<void> {
    if (this.appended === 0) return;
    await this.settle();
    this.closeAppender();
    const part = this.part;
    const file = join(this.folder, `${part}.parquet`);
    this.parts.push(file);
    const before = this.before;
    this.before += this.appended;
    this.appended = 0;
    this.writing = this.writer
      .run(`COPY (${this.options.select(part, before)}) TO ${sqlString(file)} (FORMAT parquet, COMPRESSION snappy, ROW_GROUP_SIZE ${PART_ROWS})`)
      .finally(() => this.writer.run(`DROP TABLE IF EXISTS ${part}`).catch(() => undefined));
    // Its failure is thrown where it is awaited (settle); until then it is not an unhandled rejection.
    this.writing.catch(() => undefined);
    await this.startPart();
  }

  /** The whole table as a source for the writer, read from its parts in order. */
  async finish(): Promise<TableSource> {
    await this.rotate();
    await this.settle();
    this.closeAppender();
    await this.conn.run(`DROP TABLE IF EXISTS ${this.part}`);
    const spec = TABLES[this.options.table];
    const sql =
      this.parts.length === 0
        ? `SELECT ${spec.map((c) => `CAST(NULL AS ${c.type}) AS ${sqlIdent(c.name)}`).join(', ')}, CAST(NULL AS BIGINT) AS ${ROW_POSITION} WHERE false`
        : `SELECT * FROM read_parquet([${this.parts.map(sqlString).join(', ')}])`;
    return { sql, lazy: true, rowNumber: ROW_POSITION };
  }

  async abort(): Promise<void> {
    await this.settle().catch(() => undefined);
    try {
      this.closeAppender();
    } catch {
      // Dropped either way.
    }
    await this.conn.run(`DROP TABLE IF EXISTS ${this.part}`).catch(() => undefined);
    await Promise.all(this.parts.map((file) => rm(file, { force: true })));
  }

  private async settle(): Promise<void> {
    const writing = this.writing;
    this.writing = null;
    try {
      await writing;
    } catch (error) {
      throw new StoreError(`${this.options.table}: ${(error as Error).message.split('\n')[0]}`, { cause: error });
    }
  }

  private async startPart(): Promise<void> {
    this.part = `part_${this.options.table}_${randomBytes(6).toString('hex')}`;
    await this.conn.run(`CREATE TABLE ${this.part} (${this.options.ddl})`);
    this.appender = await this.conn.createAppender(this.part);
    this.open = true;
  }

  private closeAppender(): void {
    if (!this.open) return;
    this.open = false;
    try {
      this.appender.flushSync();
    } catch (error) {
      throw new StoreError(`${this.options.table}: ${(error as Error).message.split('\n')[0]}`, { cause: error });
    } finally {
      this.appender.closeSync();
    }
  }
}

/** A store table filled row by row (each row checked against the column specs), written out in parts. */
export interface PartedStager {
  add(row: Record<string, unknown>): void;
  readonly parted: PartedTable;
}

export async function openPartedStager(table: TableName): Promise<PartedStager> {
  const columns = TABLES[table].map((c) => sqlIdent(c.name)).join(', ');
  const parted = await PartedTable.open({
    table,
    ddl: columnsDdl(table),
    // A part's rowid counts its rows from 0 in the order appended.
    select: (part, before) => `SELECT ${columns}, rowid + ${before} AS ${ROW_POSITION} FROM ${part}`,
  });
  const spec = TABLES[table];
  let index = 0;
  return {
    add(row) {
      appendRow(parted.appender, spec, row, table, index++);
      parted.rowEnded();
    },
    parted,
  };
}
