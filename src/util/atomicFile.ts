/**
 * The one "write under a temporary name, sync, rename" of the project: a reader (or a
 * process started after a kill) sees the old file or the new one, never half of one.
 * The folder is synced after the rename so that the new name itself survives a crash.
 */
import { open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomBytes } from 'node:crypto';

/** A temporary name beside `path`, hidden, with this process's id (so a later run can tell it was abandoned). */
export function temporaryNameFor(path: string): string {
  return join(dirname(path), `.${basename(path)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`);
}

/** Flushes a file's data (or a folder's entries) to the disk. */
export async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } catch (error) {
    // Some file systems refuse fsync on a folder; the rename is still atomic there.
    if ((error as NodeJS.ErrnoException).code !== 'EINVAL' && (error as NodeJS.ErrnoException).code !== 'EISDIR') throw error;
  } finally {
    await handle.close();
  }
}

/** Writes `data` to `path` atomically and durably. */
export async function writeFileAtomic(path: string, data: string | Uint8Array): Promise<void> {
  const temporary = temporaryNameFor(path);
  try {
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(data);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncPath(dirname(path));
}

/** Moves a finished temporary file into place durably (for files another library wrote, e.g. DuckDB's COPY). */
export async function commitFile(temporary: string, path: string): Promise<void> {
  await syncPath(temporary);
  await rename(temporary, path);
  await syncPath(dirname(path));
}
