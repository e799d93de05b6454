/**
 * A local ONNX causal-LM folder, in the layouts real exports use (generation-backends.md §1.1):
 * optimum's `model.onnx` (past in, present out) or legacy `decoder_model_merged.onnx` /
 * `decoder_model.onnx` at the root, or the transformers.js hub layout `onnx/model{_suffix}.onnx`
 * chosen by dtype; beside them `config.json`, `tokenizer.json`, `tokenizer_config.json` and
 * optionally `generation_config.json`. Every file read is hashed for the provenance.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { BadInputError } from '../../errors.ts';
import { isPlainObject } from '../../util/json.ts';
import { sha256File } from '../../util/hash.ts';

/** dtype → file-name suffix, as transformers.js names its variants (DEFAULT_DTYPE_SUFFIX_MAPPING). */
const DTYPE_SUFFIX: Record<string, string> = {
  fp32: '', fp16: '_fp16', q8: '_quantized', int8: '_int8', uint8: '_uint8', q4: '_q4', q4f16: '_q4f16', bnb4: '_bnb4',
};
/** lm-eval's torch spellings of the same dtypes. */
const DTYPE_ALIASES: Record<string, string> = { float32: 'fp32', float16: 'fp16', half: 'fp16', float: 'fp32', auto: 'fp32', quantized: 'q8' };

export const ONNX_DTYPES = [...Object.keys(DTYPE_SUFFIX), ...Object.keys(DTYPE_ALIASES)];

export interface ModelFolder {
  root: string;
  /** The graph file, absolute. */
  onnxPath: string;
  /** fp32, fp16, q8, … (the variant loaded). */
  dtype: string;
  config: Record<string, unknown>;
  generationConfig: Record<string, unknown> | null;
  tokenizerJson: Record<string, unknown>;
  tokenizerConfig: Record<string, unknown>;
  /** sha256 of every file read, by path relative to the folder. */
  files: Record<string, string>;
}

function readJson(path: string, what: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new BadInputError(`cannot read the ${what}: ${(error as Error).message}`, { file: path });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // JSON.parse names a character offset; the line is what an editor shows.
    const at = /at position (\d+)/.exec((error as Error).message);
    const line = at === null ? undefined : text.slice(0, Number(at[1])).split('\n').length;
    throw new BadInputError(`the ${what} is not valid JSON (${(error as Error).message})`, { file: path, ...(line === undefined ? {} : { line }) });
  }
  if (!isPlainObject(value)) throw new BadInputError(`the ${what} must be a JSON object`, { file: path });
  return value;
}

/** The graph candidates for a dtype, in the order they are tried (here and on the hub). */
export function graphCandidates(dtype: string): string[] {
  const suffix = DTYPE_SUFFIX[dtype]!;
  return [`model${suffix}.onnx`, `decoder_model_merged${suffix}.onnx`, `onnx/model${suffix}.onnx`, `onnx/decoder_model_merged${suffix}.onnx`, `decoder_model${suffix}.onnx`, `onnx/decoder_model${suffix}.onnx`];
}

export function normaliseDtype(value: string | null): string {
  if (value === null) return 'fp32';
  const d = DTYPE_ALIASES[value] ?? value;
  if (!(d in DTYPE_SUFFIX)) throw new BadInputError(`--model_args dtype: '${value}' is not an ONNX variant this backend loads (${ONNX_DTYPES.join(', ')})`);
  return d;
}

/** The graph file of a folder for a dtype (or the file named), without reading anything: the session can start loading it at once. */
export function locateGraph(root: string, dtypeArg: string | null, modelFile: string | null): { graph: string; dtype: string } {
  if (!existsSync(root) || !statSync(root).isDirectory()) throw new BadInputError(`--model_args pretrained: '${root}' is not a folder (a local ONNX export: config.json, tokenizer.json and model.onnx or onnx/model.onnx)`);
  const dtype = normaliseDtype(dtypeArg);
  const tried = modelFile !== null ? [modelFile] : graphCandidates(dtype);
  const graph = tried.find((f) => existsSync(join(root, f)));
  if (graph === undefined) {
    throw new BadInputError(`no ONNX model for dtype ${dtype} in ${root} (looked for ${tried.join(', ')})`, { file: root });
  }
  return { graph, dtype };
}

export async function readModelFolder(root: string, dtypeArg: string | null, modelFile: string | null): Promise<ModelFolder> {
  const { graph, dtype } = locateGraph(root, dtypeArg, modelFile);
  const configPath = join(root, 'config.json');
  if (!existsSync(configPath)) throw new BadInputError('no config.json beside the model (the Hugging Face config names the architecture and its length)', { file: root });
  const tokenizerPath = join(root, 'tokenizer.json');
  if (!existsSync(tokenizerPath)) throw new BadInputError('no tokenizer.json beside the model (the fast-tokenizer file is what lmaudit reads)', { file: root });
  const config = readJson(configPath, 'model config');
  const tokenizerJson = readJson(tokenizerPath, 'tokenizer');
  const tokenizerConfigPath = join(root, 'tokenizer_config.json');
  const tokenizerConfig = existsSync(tokenizerConfigPath) ? readJson(tokenizerConfigPath, 'tokenizer config') : {};
  const generationPath = join(root, 'generation_config.json');
  const generationConfig = existsSync(generationPath) ? readJson(generationPath, 'generation config') : null;
  const onnxPath = join(root, graph);
  const read = [configPath, tokenizerPath, tokenizerConfigPath, generationPath, onnxPath];
  // External weights sit beside the graph as <file>_data, <file>_data_1, …
  for (let i = 0; ; i++) {
    const chunk = `${onnxPath}_data${i === 0 ? '' : `_${i}`}`;
    if (!existsSync(chunk)) break;
    read.push(chunk);
  }
  const files: Record<string, string> = {};
  for (const path of read) if (existsSync(path)) files[relative(root, path)] = await sha256File(path);
  return { root, onnxPath, dtype, config, generationConfig, tokenizerJson, tokenizerConfig, files };
}

/** HFLM's max_length: the config (text_config first) n_positions, max_position_embeddings, n_ctx; then the tokenizer's; then 2048. */
export function configMaxLength(config: Record<string, unknown>, tokenizerMax: number | null): number {
  const cfg = isPlainObject(config.text_config) ? config.text_config : config;
  for (const key of ['n_positions', 'max_position_embeddings', 'n_ctx']) {
    const v = cfg[key];
    if (typeof v === 'number' && Number.isInteger(v) && v > 0) return v;
  }
  return tokenizerMax ?? 2048;
}
