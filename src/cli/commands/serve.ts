/**
 * `lmaudit serve`: an OpenAI-compatible server (vLLM's dialect) over one of lmaudit's backends, so
 * that any harness speaking the protocol — lm-eval's local-completions included — can evaluate a
 * local ONNX model, and lmaudit's API backends can be tested against a real model. The first line
 * on stdout is the bound URL; SIGINT or SIGTERM closes the server and the model and exits 0.
 */
import type { Command } from 'commander';
import { BadInputError } from '../../errors.ts';
import type { ModelArgs } from '../../models/lm.ts';
import { backendFactory } from '../../models/registry.ts';
import { FAULT_HELP, FAULT_KINDS, parseFaultSpec } from '../../serve/faults.ts';
import { startServer } from '../../serve/server.ts';
import { parseKeyValueArgs } from '../keyValueArgs.ts';

interface ServeFlags {
  model: string;
  model_args?: string;
  host: string;
  port: string;
  served_model_name?: string;
  faults?: string;
  delay_ms: string;
  batch_size: string;
  json: boolean;
}

function modelArgs(text: string | undefined): ModelArgs {
  const out: ModelArgs = {};
  for (const [k, v] of Object.entries(parseKeyValueArgs(text, '--model_args'))) {
    const plain = v !== null && typeof v === 'object' && 'value' in v ? (v as { value: number }).value : v;
    if (plain !== null && !['string', 'number', 'boolean'].includes(typeof plain)) throw new BadInputError(`--model_args: ${k} must be a string, number or boolean`);
    out[k] = plain as ModelArgs[string];
  }
  return out;
}

function wholeNumber(text: string, flag: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isInteger(n) || n < min || n > max) throw new BadInputError(`${flag} takes a whole number from ${min}${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`}, got '${text}'`);
  return n;
}

export function registerServe(program: Command): void {
  program
    .command('serve')
    .description('Serve a backend over an OpenAI-compatible HTTP API (vLLM dialect): /v1/models, /v1/completions (echo + logprobs), /v1/chat/completions, /tokenize, /detokenize, /tokenizer_info')
    .requiredOption('--model <backend>', 'backend name: onnx (everything), or one without a local tokenizer such as dummy (text generation only)')
    .option('--model_args <args>', 'backend arguments, k=v,... or a JSON object (e.g. pretrained=fixtures/models/gpt2-tiny)')
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--port <port>', 'port to listen on (0: any free port; the URL is printed on the first line)', '0')
    .option('--served_model_name <name>', "the model id /v1/models lists and requests name (default: model_args' pretrained, else the backend name)")
    .option(
      '--faults <spec>',
      `inject faults into /v1/completions and /v1/chat/completions: rate=R,seed=S,kinds=K1,K2,... (each request draws on arrival: the schedule is fixed by the seed and the arrival order, which concurrent clients make vary) or every=N,kinds=... (every N-th request, the kinds in turn); a retry is a new request and draws again; retry_after=SECONDS (429, default 1), slow_ms=MS (default 30000). Kinds (${FAULT_KINDS.join(', ')}): ${FAULT_HELP}. Counters at GET /lmaudit/faults`,
    )
    .option('--delay_ms <ms>', 'fixed delay added to every reply of the generation endpoints: each request is answered (or faulted) MS after its body has been read, plus the time its answer takes; concurrent requests wait their delays at the same time, not one after another', '0')
    .option('--batch_size <n>', 'prompts one backend call may carry when concurrent requests are batched', '64')
    .option('--json', 'print the first line as JSON: the URL, the served model id and the backend', false)
    .action(async (flags: ServeFlags) => {
      const args = modelArgs(flags.model_args);
      const port = wholeNumber(flags.port, '--port', 0, 65535);
      const delayMs = wholeNumber(flags.delay_ms, '--delay_ms', 0);
      const batchSize = wholeNumber(flags.batch_size, '--batch_size', 1);
      const faults = flags.faults === undefined ? null : parseFaultSpec(flags.faults);
      const modelName = flags.served_model_name ?? (typeof args.pretrained === 'string' ? args.pretrained : flags.model);
      const model = await backendFactory(flags.model).open(args, { batchSize });
      let server;
      try {
        server = await startServer({ model, modelName, host: flags.host, port, faults, delayMs, maxBatchRows: batchSize, closeModel: true });
      } catch (error) {
        await model.close();
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') throw new BadInputError(`cannot listen on ${flags.host}:${port} (${code})`);
        // A --host that names no address (a typo, an unresolvable name) fails in the lookup before any listen.
        if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') throw new BadInputError(`cannot listen on ${flags.host}:${port}: no address of this machine is called '${flags.host}' (${code})`, { field: '--host' });
        throw error;
      }
      process.stdout.write(flags.json ? `${JSON.stringify({ url: server.url, model: modelName, backend: flags.model })}\n` : `${server.url}\n`);
      process.stderr.write(`lmaudit serve: ${flags.model} model '${modelName}' at ${server.url}/v1${faults === null ? '' : `; injecting faults (${flags.faults})`}; Ctrl-C stops\n`);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
      });
      await server.close();
    });
}
