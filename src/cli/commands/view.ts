/**
 * `lmaudit view <sources...>`: a local web server (127.0.0.1 only) over the named stores or
 * anything `import` reads, or with --bundle a static site of the same pages.
 */
import type { Command } from 'commander';
import { spawn } from 'node:child_process';
import { relative } from 'node:path';
import { BadInputError } from '../../errors.ts';
import { addImportFlags, importOptionsFrom, type ImportFlags } from '../importFlags.ts';
import { companionLines, printJson, printLines, unreadLines, warnIfUnfinished } from '../output.ts';
import { positiveInt } from './diff.ts';

interface ViewFlags extends ImportFlags {
  port?: string;
  open: boolean;
  bundle?: string;
  json: boolean;
}

/**
 * The system's own opener for a URL (no shell: the URL is its one argument). LMAUDIT_OPENER
 * names another program to run instead (the tests give one that records what it was given).
 * Whatever becomes of the opener, the server keeps serving and the URL is printed.
 */
function openInBrowser(url: string): void {
  const command = process.env.LMAUDIT_OPENER || (process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open');
  const child = spawn(command, [url], { stdio: 'ignore', detached: true });
  child.on('error', (error: NodeJS.ErrnoException) => process.stderr.write(`--open: could not start ${command} (${error.code ?? error.message}); open ${url} yourself\n`));
  child.on('exit', (code, signal) => {
    if (code !== 0) process.stderr.write(`--open: ${command} ${signal === null ? `exited with ${code}` : `was stopped by ${signal}`}; open ${url} yourself\n`);
  });
  child.unref();
}

export function registerView(program: Command): void {
  addImportFlags(
    program
      .command('view')
      .description('Look at the items behind every number in a browser: runs, the rescoring matrix, items, two runs side by side (local server on 127.0.0.1, or a static bundle)')
      .argument('<sources...>', 'run stores, or anything `import` reads (each argument one source)')
      .option('--port <n>', 'port on 127.0.0.1 (default: a free one)')
      .option('--open', 'open the page in the default browser', false)
      .option('--bundle <dir>', 'write a static site of the pages to this folder instead of serving (opens from file://)')
      .option('--json', "print what was done as JSON (with --bundle: the folder, its index page and the API's answers written; else the URL, on one line)", false),
  ).action(async (sources: string[], flags: ViewFlags) => {
    const port = flags.port === undefined ? 0 : positiveInt(flags.port, '--port');
    if (port > 65535) throw new BadInputError('--port must be at most 65535', { field: '--port' });
    const { ViewSession } = await import('../../view/sources.ts');
    const { ViewApi } = await import('../../view/api.ts');
    const session = await ViewSession.open(sources, importOptionsFrom(flags));
    for (const s of session.sources) {
      warnIfUnfinished(s.label, s.loaded.store);
      const lines = [...companionLines(s.loaded.companions), ...unreadLines(s.loaded.unrecognised)];
      if (lines.length > 0) process.stderr.write(`${lines.join('\n')}\n`);
    }
    const api = new ViewApi(session);
    if (flags.bundle !== undefined) {
      const { writeBundle } = await import('../../view/bundle.ts');
      const written = await writeBundle(api, flags.bundle);
      if (flags.json) return printJson({ bundle: flags.bundle, index: written.index, answers: written.pages, notes: written.notes });
      printLines([`Wrote a static bundle of the viewer's pages and ${written.pages} of its API's answers to ${flags.bundle} (open ${relativeToCwd(written.index)})`, ...written.notes]);
      return;
    }
    const { startViewer } = await import('../../view/server.ts');
    const viewer = await startViewer(api, port);
    // One line either way: a script reads the first line to find the server.
    process.stdout.write(flags.json ? `${JSON.stringify({ url: viewer.url })}\n` : `lmaudit view: ${viewer.url} (127.0.0.1 only; Ctrl-C to stop)\n`);
    if (flags.open) openInBrowser(viewer.url);
    await new Promise<void>((resolve) => {
      const stop = () => void viewer.close().then(resolve);
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
    });
  });
}

/** A path as the user can type it from where they ran the command (an absolute path would name their machine's folders). */
function relativeToCwd(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === '' || rel.startsWith('..') ? path : rel;
}
