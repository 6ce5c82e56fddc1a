// Loading a GGUF model with node-llama-cpp: the file checks, the runtime, the model and its
// context. Every failure becomes LoomError `model_unavailable` naming the file, with a hint.
// node-llama-cpp is imported here, on first use, so Loom runs without it when no gguf model
// is configured (and a broken install only fails the gguf provider).
//
// The llama.cpp runtime (node-llama-cpp's `Llama`, from `getLlama`) is one per process and
// backend, shared by the providers and never disposed by them: the native backend it wraps is
// process-wide anyway, sharing saves the 0.4-1 s `getLlama` takes, and disposing it is not
// safe here. node-llama-cpp 3.22 makes `Llama.dispose()` wait for every model created on it,
// and a model whose load failed keeps that wait pending once it has been garbage-collected,
// so after a failed load (a truncated file) the dispose never settles. Providers dispose
// what holds the memory, their context and model.
import fs from 'node:fs/promises';
import type { Llama, LlamaContext, LlamaModel, Token } from 'node-llama-cpp';
import { LoomError } from '../../../core/errors.ts';
import { resolveLayout, type FimLayout, type InfillTokens } from './prompt.ts';

export type NodeLlamaCpp = typeof import('node-llama-cpp');

export type GgufGpu = 'auto' | 'off' | 'cuda' | 'vulkan' | 'metal';

export type LogListener = (level: string, message: string) => void;

export interface LoadOptions {
  file: string;
  gpu: GgufGpu;
  /** Requested window per sequence; capped at the size the model was trained on. */
  contextSize: number;
  threads?: number;
  sequences: number;
  fimLayout: FimLayout | 'auto';
  importRuntime: () => Promise<NodeLlamaCpp>;
}

export interface Runtime {
  llama: Llama;
  model: LlamaModel;
  context: LlamaContext;
  /** Present when the model has the three infill tokens (llama.cpp reads them from metadata or recognises them by name). */
  infill?: InfillTokens<Token>;
  bos?: Token;
  layout: FimLayout;
  /** Whether KV cells can be removed from the middle and the rest shifted (not recurrent models). */
  allowShift: boolean;
  contextSize: number;
  sequences: number;
  threads: number;
}

const GGUF_MAGIC = 'GGUF';
const CONFIG_HINT = 'Set gguf.model (LOOM_GGUF_MODEL) to a .gguf file, or install a catalog model with `loom models pull <name>`.';

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message || error.name : String(error);
}

/**
 * llama.cpp logs through one process-wide callback: every listener hears every message
 * (the messages of all gguf providers of the process).
 */
const logListeners = new Set<LogListener>();

/** Listens to llama.cpp's warnings and errors until the returned function is called. */
export function listenToLlamaLogs(listener: LogListener): () => void {
  logListeners.add(listener);
  return () => logListeners.delete(listener);
}

const sharedLlamas = new WeakMap<NodeLlamaCpp, Map<string, Promise<Llama>>>();

/** The process's llama.cpp runtime for a backend; a failed start is tried again next time. */
function sharedLlama(module: NodeLlamaCpp, gpu: GgufGpu): Promise<Llama> {
  let byGpu = sharedLlamas.get(module);
  if (!byGpu) sharedLlamas.set(module, (byGpu = new Map()));
  let llama = byGpu.get(gpu);
  if (!llama) {
    llama = module
      .getLlama({
        gpu: gpu === 'off' ? false : gpu,
        // Never compile llama.cpp at run time: only the prebuilt binaries that were installed.
        build: 'never',
        skipDownload: true,
        progressLogs: false,
        // Set below, once the machine's math cores are known (node-llama-cpp's default is at least 4).
        maxThreads: 0,
        logLevel: module.LlamaLogLevel.warn,
        logger: (level, message) => {
          for (const listener of logListeners) listener(level, message);
        },
      })
      .then((started) => {
        // Contexts decoding at once (a document's completion and a chat, two providers) split
        // the math cores between them (node-llama-cpp's thread splitter) instead of each running
        // its own threads on them: llama.cpp's threads spin while they wait, so oversubscribed
        // cores make every token many times slower (see loadRuntime).
        started.maxThreads = Math.max(1, started.cpuMathCores);
        return started;
      });
    byGpu.set(gpu, llama);
    const started = llama;
    started.catch(() => byGpu.get(gpu) === started && byGpu.delete(gpu));
  }
  return llama;
}

/** Checks that `file` exists, is readable and starts with the GGUF magic, before llama.cpp sees it. */
export async function checkGgufFile(file: string): Promise<void> {
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new LoomError('model_unavailable', `The GGUF model file ${file} does not exist.`, CONFIG_HINT);
    throw new LoomError(
      'model_unavailable',
      `The GGUF model file ${file} cannot be read: ${messageOf(error)}.`,
      "Check the file's permissions for the user Loom runs as.",
    );
  }
  try {
    const magic = Buffer.alloc(4);
    let bytesRead: number;
    try {
      ({ bytesRead } = await handle.read(magic, 0, 4, 0));
    } catch (error) {
      const isFolder = (error as NodeJS.ErrnoException).code === 'EISDIR';
      throw new LoomError(
        'model_unavailable',
        isFolder ? `${file} is a folder, not a GGUF model file.` : `The GGUF model file ${file} cannot be read: ${messageOf(error)}.`,
        CONFIG_HINT,
      );
    }
    if (bytesRead < 4 || magic.toString('latin1') !== GGUF_MAGIC) {
      throw new LoomError(
        'model_unavailable',
        `${file} is not a GGUF model file (it does not start with the GGUF signature).`,
        "Loom runs llama.cpp models in the GGUF format; convert other formats (safetensors, PyTorch .bin) with llama.cpp's convert_hf_to_gguf.py, or download a .gguf build of the model.",
      );
    }
  } finally {
    await handle.close();
  }
}

async function importRuntime(options: LoadOptions): Promise<NodeLlamaCpp> {
  try {
    return await options.importRuntime();
  } catch (error) {
    throw new LoomError(
      'model_unavailable',
      `Cannot run the GGUF model ${options.file}: node-llama-cpp failed to load (${messageOf(error)}).`,
      "Reinstall Loom's dependencies on this machine (npm ci); node-llama-cpp ships prebuilt llama.cpp binaries for Linux, macOS and Windows on x64 and arm64.",
    );
  }
}

async function runtimeLlama(module: NodeLlamaCpp, options: LoadOptions): Promise<Llama> {
  let llama: Llama;
  try {
    llama = await sharedLlama(module, options.gpu);
  } catch (error) {
    const noBinary = error instanceof module.NoBinaryFoundError;
    throw new LoomError(
      'model_unavailable',
      noBinary
        ? `Cannot run the GGUF model ${options.file}: no llama.cpp binary for gpu "${options.gpu}" is installed on this machine.`
        : `Cannot run the GGUF model ${options.file}: llama.cpp failed to start (${messageOf(error)}).`,
      'Set gguf.gpu to "auto" or "off" to run on the CPU binaries every install has; docs/models.md explains how to add the CUDA and Vulkan ones.',
    );
  }
  // node-llama-cpp falls back to the CPU when the asked-for backend is not there (metal off a
  // Mac): refuse, so that a configured GPU never silently becomes a slow CPU.
  const wanted = options.gpu === 'off' ? false : options.gpu;
  if (wanted !== 'auto' && llama.gpu !== wanted) {
    throw new LoomError(
      'model_unavailable',
      `Cannot run the GGUF model ${options.file}: gpu "${options.gpu}" is not available on this machine (llama.cpp would run on ${llama.gpu === false ? 'the CPU' : llama.gpu}).`,
      'Set gguf.gpu to "auto" to use whatever this machine has, or "off" for the CPU.',
    );
  }
  return llama;
}

async function createContext(model: LlamaModel, options: LoadOptions, contextSize: number, threads: number): Promise<LlamaContext> {
  // Each sequence holds its own window of KV cache; when memory is short, fewer documents are kept.
  for (let sequences = options.sequences; ; sequences = Math.max(1, Math.floor(sequences / 2))) {
    try {
      return await model.createContext({ contextSize, sequences, threads, failedCreationRemedy: false });
    } catch (error) {
      if (sequences === 1) {
        throw new LoomError(
          'model_unavailable',
          `The GGUF model ${options.file} loaded but its context of ${contextSize} tokens could not be created: ${messageOf(error)}.`,
          'Lower gguf.contextSize, or free memory.',
        );
      }
    }
  }
}

/** The last errors llama.cpp logged: its exceptions often say only "Failed to load model". */
function recentErrors(module: NodeLlamaCpp): { stop: () => void; describe: () => string } {
  const lines: string[] = [];
  const stop = listenToLlamaLogs((level, message) => {
    if (level !== module.LlamaLogLevel.error && level !== module.LlamaLogLevel.fatal) return;
    const line = message.trim();
    if (line === '') return;
    lines.push(line);
    if (lines.length > 3) lines.shift();
  });
  return { stop, describe: () => (lines.length === 0 ? '' : ` (llama.cpp: ${lines.join('; ')})`) };
}

/** Loads the model and its context; disposes the model when its context cannot be made. */
export async function loadRuntime(options: LoadOptions): Promise<Runtime> {
  await checkGgufFile(options.file);
  const module = await importRuntime(options);
  const llama = await runtimeLlama(module, options);
  const errors = recentErrors(module);
  let model: LlamaModel;
  try {
    model = await llama.loadModel({ modelPath: options.file });
  } catch (error) {
    // Logs reach JavaScript asynchronously: let the ones of this failure arrive.
    await new Promise((resolve) => setTimeout(resolve, 20));
    throw new LoomError(
      'model_unavailable',
      `llama.cpp cannot load the GGUF model ${options.file}: ${messageOf(error).replace(/\.$/, '')}${errors.describe()}.`,
      'The file may be incomplete (download it again) or use an architecture this llama.cpp build does not know (update Loom).',
    );
  } finally {
    errors.stop();
  }
  try {
    const trained = model.trainContextSize;
    // Past the length it was trained on a model's output degrades: never ask for more.
    const contextSize = trained > 0 ? Math.min(options.contextSize, trained) : options.contextSize;
    // llama.cpp's threads spin while they wait for each other: more of them than cores (the
    // default cap of node-llama-cpp is max(cores, 4)) made each token some 50x slower on a
    // 2-core machine. Use the cores that do math, as llama.cpp's own tools do.
    const threads = options.threads ?? Math.max(1, llama.cpuMathCores);
    const context = await createContext(model, options, contextSize, threads);
    const { prefix, suffix, middle } = model.tokens.infill;
    const infill = prefix !== null && suffix !== null && middle !== null ? { prefix, suffix, middle } : undefined;
    const metadata = model.fileInfo.metadata;
    const architecture = metadata?.general?.architecture as string | undefined;
    const tokenizerPre = (metadata as { tokenizer?: { ggml?: { pre?: string } } } | undefined)?.tokenizer?.ggml?.pre;
    return {
      llama,
      model,
      context,
      infill,
      bos: model.tokens.shouldPrependBosToken && model.tokens.bos !== null ? model.tokens.bos : undefined,
      layout: options.fimLayout === 'auto' ? resolveLayout(architecture, tokenizerPre) : options.fimLayout,
      allowShift: !model.fileInsights.isRecurrent && architecture !== 'deepseek2',
      contextSize: context.contextSize,
      sequences: context.totalSequences,
      threads,
    };
  } catch (error) {
    void model.dispose().catch(() => undefined);
    throw error;
  }
}

/** Disposes the context, then the model (the shared llama.cpp runtime stays). */
export async function disposeRuntime(runtime: Runtime): Promise<void> {
  await runtime.context.dispose().catch(() => undefined);
  await runtime.model.dispose().catch(() => undefined);
}
