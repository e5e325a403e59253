/**
 * blur-faces on real photos shipped by Debian (test/fixtures/debian-photos.ts): the detector's
 * targets on the LFW subset, one face each in the astronaut and messi5 photos, the mosaic strong
 * enough that the detector finds nothing afterwards, and an image without faces left unchanged.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pluginConformanceSuite, runPlugin } from '../../../core/contract/testing/index.js';
import { ensureDebianPhotos, lfwGrid, lfwSubset, DEBIAN_PHOTOS } from '../../../test/fixtures/debian-photos.js';
import { detectFaces } from '../shared/blazeface.js';
import { blurFacesPlugin } from './index.js';
import { findFaces } from './run.js';
import { outputOf } from '../testing/fixtures.js';
import { standardPlugins } from '../../index.js';

let dir = '';
beforeAll(async () => {
  await ensureDebianPhotos();
  dir = await mkdtemp(path.join(os.tmpdir(), 'faces-'));
}, 600_000);
afterAll(() => rm(dir, { recursive: true, force: true }));

const decode = async (file: string) => {
  const { data, info } = await sharp(file).raw().toBuffer({ resolveWithObject: true });
  return { width: info.width, height: info.height, channels: info.channels, data };
};

/** Grid cells (row * 10 + column) holding the centre of a detected box. */
const cellsOf = (boxes: Array<{ x: number; y: number; width: number; height: number }>, cell: number) =>
  new Set(boxes.map((b) => Math.floor((b.y + b.height / 2) / cell) * 10 + Math.floor((b.x + b.width / 2) / cell)));

pluginConformanceSuite(
  blurFacesPlugin,
  [
    {
      name: 'messi5.jpg -> png, one face',
      files: [{ path: DEBIAN_PHOTOS.messi, format: 'jpg' }],
      target: 'png',
      expectFormat: 'png',
      check: ({ toolReport }) => expect(toolReport).toEqual({ detected: 1 }),
    },
  ],
  { against: standardPlugins },
);

describe('blur-faces', () => {
  it('LFW: at least 95 of 100 faces found in a grid, 0 of 100 non-faces, 0 after the mosaic', {
    timeout: 120_000,
  }, async () => {
    const images = await lfwSubset();
    const faces = lfwGrid(images.slice(0, 100));
    const found = await detectFaces(faces);
    expect(cellsOf(found, faces.cell).size).toBeGreaterThanOrEqual(95);
    expect(found.length).toBe(cellsOf(found, faces.cell).size); // one box per face
    expect(await detectFaces(lfwGrid(images.slice(100)))).toEqual([]);

    await sharp(faces.rgb, { raw: { width: faces.width, height: faces.height, channels: 3 } })
      .png()
      .toFile(path.join(dir, 'lfw.png'));
    const run = await runPlugin(
      blurFacesPlugin,
      [{ path: path.join(dir, 'lfw.png'), format: 'png' }],
      {},
      { target: 'png' },
    );
    expect(run.toolReport!.detected).toBeGreaterThanOrEqual(95);
    expect(await findFaces(await decode(outputOf(run.result)))).toEqual([]);
  });

  for (const [name, file, format] of [
    ['astronaut', () => DEBIAN_PHOTOS.astronaut, 'png'],
    ['messi5', () => DEBIAN_PHOTOS.messi, 'jpg'],
  ] as const) {
    it(`${name}: 1 face, mosaicked so none is found again; pixels away from it unchanged`, {
      timeout: 60_000,
    }, async () => {
      const before = await decode(file());
      const faces = await findFaces(before);
      expect(faces).toHaveLength(1);
      const run = await runPlugin(blurFacesPlugin, [{ path: file(), format }], {}, { target: 'png' });
      expect(run.toolReport).toEqual({ detected: 1 });
      const after = await decode(outputOf(run.result));
      expect((await sharp(outputOf(run.result)).metadata()).format).toBe('png');
      expect([after.width, after.height]).toEqual([before.width, before.height]);
      expect(await findFaces(after)).toEqual([]);
      // The face's centre changed; the corners (far from the face) did not.
      const [face] = faces;
      const at = (img: typeof before, x: number, y: number) => [
        ...img.data.subarray(
          (Math.round(y) * img.width + Math.round(x)) * img.channels,
          (Math.round(y) * img.width + Math.round(x)) * img.channels + 3,
        ),
      ];
      expect(at(after, face!.x + face!.width * 0.3, face!.y + face!.height * 0.4)).not.toEqual(
        at(before, face!.x + face!.width * 0.3, face!.y + face!.height * 0.4),
      );
      for (const [x, y] of [
        [0, 0],
        [before.width - 1, before.height - 1],
      ] as const)
        expect(at(after, x, y)).toEqual(at(before, x, y));
    });
  }

  it('coffee (no face): detected 0 and the image unchanged, re-encoded as PNG', { timeout: 60_000 }, async () => {
    const run = await runPlugin(
      blurFacesPlugin,
      [{ path: DEBIAN_PHOTOS.coffee, format: 'png' }],
      {},
      { target: 'png' },
    );
    expect(run.toolReport).toEqual({ detected: 0 });
    expect((await decode(outputOf(run.result))).data.equals((await decode(DEBIAN_PHOTOS.coffee)).data)).toBe(true);
  });

  it('an aborted run ends with the abort reason', { timeout: 30_000 }, async () => {
    const controller = new AbortController();
    const run = runPlugin(
      blurFacesPlugin,
      [{ path: DEBIAN_PHOTOS.astronaut, format: 'png' }],
      {},
      { target: 'png', signal: controller.signal },
    );
    // Aborted while the run is starting (model load, decode): a warm model may finish a photo in
    // under a second, so a later abort could land after the end.
    controller.abort(new Error('stop'));
    // Ended by the abort, with its reason: not by a failure of its own, nor after finishing the photo.
    await expect(run).rejects.toThrow(/^stop$/);
  });
});
