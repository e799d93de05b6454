/**
 * The importer seam. Each importer (lm-eval, Inspect, generic) claims the files it
 * recognises and turns them into runs: a provenance block plus the store tables.
 * Importers never write; `importSources` stages and the store writer persists.
 */
import type { RunProvenance } from '../store/schema.ts';
import type { TableSource } from '../store/tableStaging.ts';
import type { STORE_TABLES } from '../store/schema.ts';

/** A row of a store table as an importer builds it (the store's schema checks it when the store is written). */
export type Row = Record<string, unknown>;

/** The per-item tables an importer fills for a run. */
export interface ItemTables {
  instances: Row[];
  responses: Row[];
  scores: Row[];
  filtered: Row[];
}

export interface FieldMap {
  id?: string;
  output?: string;
  gold?: string;
  group?: string;
}

export interface ImportOptions {
  /** Count and report bad records instead of failing on the first one. */
  skipBad: boolean;
  /** Field names for generic records (`--id-field` …). */
  fields: FieldMap;
}

/** A record the importer could not use, counted in the denominator line. */
export interface SkippedRecord {
  file: string;
  line?: number;
  member?: string;
  field?: string;
  reason: string;
}

export interface ImportedRun {
  provenance: RunProvenance;
  tables: Partial<Record<(typeof STORE_TABLES)[number], TableSource>>;
  skipped: SkippedRecord[];
  /**
   * The run's answered items when the source holds them side by side (one record per
   * document with its output): a relation with one row per instance of request 0 and the
   * text of its first response, columns file_row_number, run_id, task, doc_id, group,
   * target, choices_json, text. On-the-fly rescoring reads it instead of joining
   * instances to responses (the join is a third of a million-record rescore).
   */
  items?: string;
}

/** What the importer saw of a file before claiming it: its path, name and first bytes. */
export interface FileProbe {
  path: string;
  name: string;
  /** Up to the first 64 KiB, as UTF-8 text (binary files read as mojibake, which is fine for sniffing). */
  head: string;
  /** The file was named on the command line (not found by walking a folder). */
  explicit: boolean;
  /** Why no importer may read it, known from its first bytes (UTF-16 text). */
  refused?: string;
  /**
   * A gzipped JSONL file (`samples_….jsonl.gz`): `name` and `head` are the decompressed file's, `path` the
   * file as it is. Only the lm-eval samples reader (util/lines.ts) decompresses; other importers refuse it.
   */
  gzipped?: true;
}

export interface Importer {
  readonly name: string;
  /** True when this importer reads the file. Cheap: looks at the name and head only. */
  claims(probe: FileProbe): boolean;
  /** Reads the claimed files (all of one import call at once, so results and samples can be paired). */
  importFiles(files: readonly FileProbe[], options: ImportOptions): Promise<ImportedRun[]>;
  /**
   * Files beside a file named on the command line that belong to the same run (an lm-eval
   * results file's samples files), each with why; read as if the folder had been named.
   */
  companions?(probe: FileProbe): Promise<Companion[]>;
}

/** A file read because it belongs with one that was named (not named itself). */
export interface Companion {
  path: string;
  /** The named file it belongs with. */
  with: string;
  why: string;
}
