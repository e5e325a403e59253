/**
 * The refusals every PDF op shares (encrypted input, a file that is not a PDF), and what the
 * content ops refuse.
 */
import { describe, expect, it } from 'vitest';
import { runPlugin } from '../../core/contract/testing/index.js';
import { extractImagesPlugin } from './extract-images/index.js';
import { pdfPlugins } from './index.js';
import { pdfTestFixtures } from './testing/fixtures.js';
import { pdfToTextPlugin } from './pdf-to-text/index.js';

const fixtures = pdfTestFixtures();

describe('content ops refuse what they cannot do', () => {
  it('a PDF without embedded images', async () => {
    await expect(runPlugin(extractImagesPlugin, [fixtures.get('eight')])).rejects.toThrow(
      'The PDF has no embedded images',
    );
  });

  it('text from a scan', async () => {
    await expect(runPlugin(pdfToTextPlugin, [fixtures.get('scan')])).rejects.toThrow(
      'The PDF has no text layer (it may be scanned): run op ocr on it first',
    );
  });
});

describe('every op but unlock-pdf', () => {
  const optionsFor: Record<string, Record<string, unknown>> = {
    'rotate-pdf': { angle: 90 },
    'split-pdf': { split: { mode: 'pages' } },
    'extract-pages': { pages: '1' },
    'delete-pages': { pages: '1' },
    'protect-pdf': { password: 'x' },
    'pdf-to-pdfa': { pdfa: '2b' },
  };
  const ops = pdfPlugins.filter((plugin) => plugin.id !== 'unlock-pdf');
  const filesFor = (id: string, file: string) =>
    id === 'pdf-merge'
      ? [fixtures.get('two'), { path: file, format: 'pdf' as const }]
      : [{ path: file, format: 'pdf' as const }];

  it.each(ops.map((plugin) => [plugin.id, plugin] as const))(
    '%s refuses an encrypted PDF and a file that is not one',
    async (id, plugin) => {
      const prefix = id === 'pdf-merge' ? /^File 2 \(\w+\.pdf\): / : /^/;
      await expect(runPlugin(plugin, filesFor(id, fixtures.get('encrypted').path), optionsFor[id])).rejects.toThrow(
        new RegExp(`${prefix.source}The PDF is password-protected: unlock it first \\(op unlock-pdf\\)$`),
      );
      await expect(runPlugin(plugin, filesFor(id, fixtures.get('garbage').path), optionsFor[id])).rejects.toThrow(
        new RegExp(
          `${prefix.source}The file is not a readable PDF; it may be damaged or truncated \\(unable to find trailer ` +
            `dictionary while recovering damaged file\\)$`,
        ),
      );
    },
  );
});
