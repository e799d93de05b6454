/**
 * Where lmaudit may write: checked before any work is done, with a message that names
 * the path. Node's `mkdir({ recursive: true })` never returns under /proc (it retries
 * the ENOENT the kernel answers), and proc/sysfs accept neither folders nor data files,
 * so folders are made one level at a time below the nearest one that exists, and the
 * virtual file systems are refused by their magic number.
 */
import { constants } from 'node:fs';
import { access, mkdir, stat, statfs } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { BadInputError } from '../errors.ts';

/** statfs types of kernel file systems that hold no user files (linux/magic.h). */
const VIRTUAL_FS: Record<number, string> = {
  0x9fa0: 'proc',
  0x62656572: 'sysfs',
  0x64626720: 'debugfs',
  0x74726163: 'tracefs',
  0x27e0eb: 'cgroup',
  0x63677270: 'cgroup2',
  0x73636673: 'securityfs',
  0xcafe4a11: 'bpf',
};

/** The nearest existing ancestor of `path` (the path itself when it exists); ENOTDIR (a file on the way) walks on up. */
async function nearestExisting(path: string): Promise<{ path: string; isDirectory: boolean }> {
  let at = resolve(path);
  for (;;) {
    try {
      const s = await stat(at);
      return { path: at, isDirectory: s.isDirectory() };
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw new BadInputError(`cannot write here (${(error as Error).message})`, { file: path });
      const up = dirname(at);
      if (up === at) return { path: at, isDirectory: true };
      at = up;
    }
  }
}

/**
 * Checks that a folder (and files in it) can be made at `path`'s parent: no file on the
 * way, not a kernel file system, writable. Throws a BadInputError naming `path`.
 */
export async function checkWritableParent(path: string, what: string): Promise<void> {
  const parent = dirname(resolve(path));
  const found = await nearestExisting(parent);
  if (!found.isDirectory) {
    throw new BadInputError(`cannot create ${what}: ${found.path} is a file, not a folder`, { file: path });
  }
  const fs = await statfs(found.path).catch(() => null);
  const kind = fs === null ? undefined : VIRTUAL_FS[Number(fs.type)];
  if (kind !== undefined) throw new BadInputError(`cannot create ${what}: ${found.path} is on the kernel's ${kind} file system, which holds no files`, { file: path });
  try {
    await access(found.path, constants.W_OK);
  } catch {
    throw new BadInputError(`cannot create ${what}: ${found.path} is not writable`, { file: path });
  }
}

/** mkdir -p, one level at a time below the nearest existing folder (see the module comment). */
export async function makeFolders(path: string, what: string): Promise<void> {
  const target = resolve(path);
  const missing: string[] = [];
  for (let at = target; ; at = dirname(at)) {
    try {
      const s = await stat(at);
      if (!s.isDirectory()) throw new BadInputError(`cannot create ${what}: ${at} is a file, not a folder`, { file: path });
      break;
    } catch (error) {
      if (error instanceof BadInputError) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOTDIR') throw new BadInputError(`cannot create ${what}: a file sits on the way to it`, { file: path });
      if (code !== 'ENOENT' || dirname(at) === at) throw new BadInputError(`cannot create ${what} (${(error as Error).message})`, { file: path });
      missing.unshift(at);
    }
  }
  for (const folder of missing) {
    try {
      await mkdir(folder);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw new BadInputError(`cannot create ${what} (${(error as Error).message})`, { file: path });
    }
  }
}
