/**
 * The face detector's cost (plugins/image/blazeface.ts over its pyramid), against a plain sharp
 * decode of the same photo measured in the same run, and its accuracy on the LFW subset.
 * Photos come from Debian (test/fixtures/debian-photos.ts: downloaded once into a cache).
 * Prints: model load time and the RSS it adds; per photo the median detection time over
 * `rounds`, the median decode time and their ratio, and the faces found; LFW faces found in a
 * 10x10 grid of 25 px faces, non-faces detected, and faces detected after the mosaic. Then
 * remove-bg's matte (@imgly/background-removal-node, medium model) on the astronaut composited
 * onto a flat background: first run (model load) and warm runs against the same decode, the RSS
 * it adds, and the share of background made transparent and of subject kept opaque.
 *
 *   npx tsx bench/vision.ts [rounds=3]
 */
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { detectFaces } from '../plugins/image/shared/blazeface.js';
import { alphaMatte } from '../plugins/image/remove-bg/run.js';
import { findFaces, mosaic } from '../plugins/image/blur-faces/run.js';
import { DEBIAN_PHOTOS, ensureDebianPhotos, lfwGrid, lfwSubset } from '../test/fixtures/debian-photos.js';
import { makeComposite, matteScores } from '../test/fixtures/remove-bg.js';

const rounds = Number(process.argv[2] ?? 3);
const mb = (bytes: number) => Math.round(bytes / 1e6);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const time = async <T>(fn: () => Promise<T>): Promise<[number, T]> => {
  const start = performance.now();
  const value = await fn();
  return [performance.now() - start, value];
};

console.log(
  `load average at start: ${os
    .loadavg()
    .map((l) => l.toFixed(2))
    .join(' ')}; cores: ${os.availableParallelism()}`,
);
await ensureDebianPhotos();
const decode = async (file: string) => {
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels, data };
};

const rssBefore = process.memoryUsage().rss;
const tiny = { width: 128, height: 128, rgb: Buffer.alloc(128 * 128 * 3, 128) };
const [loadMs] = await time(() => detectFaces(tiny));
console.log(
  `model load + first window: ${loadMs.toFixed(0)} ms, RSS +${mb(process.memoryUsage().rss - rssBefore)} MB (now ` +
    `${mb(process.memoryUsage().rss)} MB)`,
);

for (const [name, file] of Object.entries({
  astronaut: DEBIAN_PHOTOS.astronaut,
  messi5: DEBIAN_PHOTOS.messi,
  coffee: DEBIAN_PHOTOS.coffee,
})) {
  const decodeMs: number[] = [];
  const detectMs: number[] = [];
  let faces = 0;
  let size = '';
  for (let i = 0; i < rounds; i++) {
    const [d, pixels] = await time(() => decode(file));
    const [f, found] = await time(() => findFaces(pixels));
    decodeMs.push(d);
    detectMs.push(f);
    faces = found.length;
    size = `${pixels.width}x${pixels.height}`;
  }
  console.log(
    `${name} (${size}): detect ${median(detectMs).toFixed(0)} ms, decode ${median(decodeMs).toFixed(1)} ms, ratio ` +
      `${(median(detectMs) / median(decodeMs)).toFixed(0)}x, faces ${faces}`,
  );
}

const images = await lfwSubset();
const grid = lfwGrid(images.slice(0, 100));
const [gridMs, found] = await time(() => detectFaces(grid));
const cells = new Set(
  found.map((b) => Math.floor((b.y + b.height / 2) / grid.cell) * 10 + Math.floor((b.x + b.width / 2) / grid.cell)),
);
const nonFaces = await detectFaces(lfwGrid(images.slice(100)));
const pixels = { width: grid.width, height: grid.height, channels: 3, data: Buffer.from(grid.rgb) };
mosaic(pixels, found);
const after = await findFaces(pixels);
console.log(
  `LFW grid (${grid.width}x${grid.height}, 25 px faces): ${cells.size}/100 faces found (${found.length} boxes) in ` +
    `${gridMs.toFixed(0)} ms; non-faces detected: ${nonFaces.length}/100; faces after the mosaic: ${after.length}`,
);
console.log(`peak RSS so far ${mb(process.resourceUsage().maxRSS * 1024)} MB`);

const composite = path.join(await mkdtemp(path.join(os.tmpdir(), 'bench-vision-')), 'composite.png');
await makeComposite(composite);
const png = await sharp(composite).png().toBuffer();
const rssBeforeMatte = process.memoryUsage().rss;
const [firstMs, firstMatte] = await time(() => alphaMatte(png, 512, 512));
const warmMs: number[] = [];
for (let i = 0; i < rounds; i++) warmMs.push((await time(() => alphaMatte(png, 512, 512)))[0]);
const [decodeMs] = await time(() => sharp(png).raw().toBuffer());
const rgb = await sharp(composite).removeAlpha().raw().toBuffer();
const scores = await matteScores(
  await sharp(rgb, { raw: { width: 512, height: 512, channels: 3 } })
    .joinChannel(firstMatte, { raw: { width: 512, height: 512, channels: 1 } })
    .png()
    .toBuffer(),
);
console.log(
  `remove-bg matte (512x512 composite): first ${firstMs.toFixed(0)} ms, warm ${median(warmMs).toFixed(0)} ms ` +
    `(${(median(warmMs) / decodeMs).toFixed(0)}x a ${decodeMs.toFixed(1)} ms decode), ` +
    `RSS +${mb(process.memoryUsage().rss - rssBeforeMatte)} MB; background alpha<=10 ` +
    `${(scores.background * 100).toFixed(1)}%, subject alpha>=245 ${(scores.subject * 100).toFixed(1)}%, soft-edge ` +
    `pixels ${scores.soft}`,
);
console.log(`peak RSS ${mb(process.resourceUsage().maxRSS * 1024)} MB`);
