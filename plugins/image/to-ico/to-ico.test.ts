import { readFile } from 'node:fs/promises';
import sharp from 'sharp';
import { afterAll, beforeAll, expect } from 'vitest';
import { pluginConformanceSuite, type TestRun } from '../../../core/contract/testing/index.js';
import { imageToIcoPlugin } from './index.js';
import { imageFixtures, outputOf } from '../testing/fixtures.js';
import { standardPlugins } from '../../index.js';

const fixtures = imageFixtures();
const { files } = fixtures;
beforeAll(fixtures.build);
afterAll(fixtures.cleanup);

/** The icon's entries as declared in its directory, each with its decoded PNG's size. */
async function iconEntries(file: string) {
  const ico = await readFile(file);
  expect([ico.readUInt16LE(0), ico.readUInt16LE(2)]).toEqual([0, 1]);
  return Promise.all(
    Array.from({ length: ico.readUInt16LE(4) }, async (_, i) => {
      const entry = 6 + i * 16;
      const png = ico.subarray(
        ico.readUInt32LE(entry + 12),
        ico.readUInt32LE(entry + 12) + ico.readUInt32LE(entry + 8),
      );
      const meta = await sharp(png).metadata();
      return { declared: ico.readUInt8(entry) || 256, width: meta.width, height: meta.height, format: meta.format };
    }),
  );
}

const sizesAre =
  (expected: number[]) =>
  async ({ result }: TestRun) => {
    const entries = await iconEntries(outputOf(result));
    expect(entries.map((e) => e.declared)).toEqual(expected);
    for (const entry of entries)
      expect(entry).toEqual({ declared: entry.declared, width: entry.declared, height: entry.declared, format: 'png' });
  };

pluginConformanceSuite(
  imageToIcoPlugin,
  [
    {
      name: '320x240 photo -> sizes 16 to 256',
      files: [files.photoJpg],
      expectFormat: 'ico',
      check: sizesAre([16, 24, 32, 48, 64, 128, 256]),
    },
    { name: '64x48 png -> sizes up to 64', files: [files.redPng], check: sizesAre([16, 24, 32, 48, 64]) },
    { name: 'svg -> ico', files: [files.greenSvg], check: sizesAre([16, 24, 32, 48, 64]) },
  ],
  { against: standardPlugins },
);
