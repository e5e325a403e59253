import { mkdtemp } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PluginError } from '../contract/index.js';
import { EngineError } from './process.js';
import { TESSERACT, TESSERACT_ALL_LANGUAGES, ocrLanguageOption, recognizeText } from './tesseract.js';
import { PHOTO_TEXT, rejectionOf, useEngineTestFiles } from './testing/files.js';

const files = useEngineTestFiles();

describe('tesseract', () => {
  it('requires the program and its English data', () => {
    expect(TESSERACT).toEqual({
      command: 'tesseract',
      debian: ['tesseract-ocr', 'tesseract-ocr-eng'],
      license: 'Apache-2.0',
    });
  });

  it('offers every OCR language, with its data, to tools that take lang', () => {
    expect(TESSERACT_ALL_LANGUAGES.debian).toEqual([
      'tesseract-ocr',
      'tesseract-ocr-eng',
      'tesseract-ocr-fra',
      'tesseract-ocr-deu',
      'tesseract-ocr-jpn',
    ]);
    expect(ocrLanguageOption.parse(undefined)).toBe('eng');
    expect(ocrLanguageOption.parse(' deu+eng+fra ')).toBe('deu+eng+fra');
    const problem = (lang: string) => ocrLanguageOption.safeParse(lang).error?.issues[0]?.message;
    expect(problem('spa')).toBe(
      "must be eng, fra, deu or jpn, or up to three of them joined with + (e.g. eng+fra); 'spa' is not one of them",
    );
    expect(problem('eng+fra+deu+jpn')).toBe(
      'must be eng, fra, deu or jpn, or up to three of them joined with + (e.g. eng+fra): at most 3 languages',
    );
    expect(problem('fra+fra')).toBe('lists fra twice');
    expect(problem('eng,fra')).toMatch(/'eng,fra' is not one of them/);
  });

  it('reads printed text', async () => {
    expect(await recognizeText(files().photo, await files().ctx())).toContain(PHOTO_TEXT);
  });

  it('a garbage image is a PluginError', async () => {
    const error = await rejectionOf(recognizeText(files().garbagePng, await files().ctx()));
    expect(error).toBeInstanceOf(PluginError);
    expect(error.message).toBe('The image could not be read for text recognition; it may be damaged');
  });

  it('missing language data is a broken install: the EngineError passes through', async () => {
    const previous = process.env.TESSDATA_PREFIX;
    process.env.TESSDATA_PREFIX = await mkdtemp(path.join(files().dir, 'no-tessdata-'));
    try {
      const error = await rejectionOf(recognizeText(files().photo, await files().ctx()));
      expect(error).toBeInstanceOf(EngineError);
      expect((error as EngineError).stderrTail).toMatch(/Error opening data file|Failed loading language/);
    } finally {
      if (previous === undefined) delete process.env.TESSDATA_PREFIX;
      else process.env.TESSDATA_PREFIX = previous;
    }
  });
});
