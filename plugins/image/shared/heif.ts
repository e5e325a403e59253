/**
 * HEIC/HEIF decoding with libheif compiled to WASM (heic-decode): sharp's prebuilt libheif
 * has no HEVC decoder. The WASM decode is synchronous and takes seconds on a phone photo, so it
 * runs in a worker thread, which keeps the event loop free and can be stopped on abort.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

export type HeifDecoding =
  | { kind: 'pixels'; width: number; height: number; rgba: Buffer; opaque: boolean }
  | { kind: 'too-large'; pixels: number };

const heicDecodePath = createRequire(import.meta.url).resolve('heic-decode');

// CommonJS run by the worker: size check from the container, then decode of the first image.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
const decode = require(workerData.heicDecodePath);
(async () => {
  const images = await decode.all({ buffer: workerData.file });
  try {
    const first = images[0];
    const pixels = first.width * first.height;
    if (pixels > workerData.maxPixels) return parentPort.postMessage({ kind: 'too-large', pixels });
    const { width, height, data } = await first.decode();
    let opaque = true;
    for (let i = 3; i < data.length && opaque; i += 4) opaque = data[i] === 255;
    parentPort.postMessage({ kind: 'pixels', width, height, rgba: data, opaque }, [data.buffer]);
  } finally {
    images.dispose();
  }
})().catch((error) => parentPort.postMessage({ kind: 'error', message: String((error && error.message) || error) }));
`;

type WorkerMessage =
  | { kind: 'pixels'; width: number; height: number; rgba: Uint8ClampedArray; opaque: boolean }
  | { kind: 'too-large'; pixels: number }
  | { kind: 'error'; message: string };

/** Decode a HEIC/HEIF file to RGBA; rejects on bad input, abort or timeout. */
export function decodeHeif(
  file: Buffer,
  { signal, maxPixels, timeoutMs }: { signal: AbortSignal; maxPixels: number; timeoutMs: number },
): Promise<HeifDecoding> {
  signal.throwIfAborted();
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { heicDecodePath, file, maxPixels } });
  return new Promise<HeifDecoding>((resolve, reject) => {
    const stop = (error: Error) => {
      settle();
      reject(error);
    };
    const onAbort = () => stop(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
    const timer = setTimeout(() => stop(new Error('timeout: HEIF decoding')), timeoutMs);
    signal.addEventListener('abort', onAbort, { once: true });
    const settle = () => {
      worker.removeAllListeners();
      clearTimeout(timer);
      signal.removeEventListener('abort', onAbort);
      void worker.terminate();
    };
    worker.once('message', (message: WorkerMessage) => {
      settle();
      if (message.kind === 'error') reject(new Error(message.message));
      else if (message.kind === 'too-large') resolve(message);
      else
        resolve({
          ...message,
          rgba: Buffer.from(message.rgba.buffer, message.rgba.byteOffset, message.rgba.byteLength),
        });
    });
    worker.once('error', stop);
    // A worker killed from outside (out of memory) ends without a message.
    worker.once('exit', (code) => stop(new Error(`HEIF decoder exited with code ${code}`)));
  });
}
