/** protect-pdf: AES-256, openable only with the password. */
import { expect } from 'vitest';
import { runProcess } from '../../../core/engines/process.js';
import { pluginConformanceSuite } from '../../../core/contract/testing/index.js';
import { protectPdfPlugin } from './index.js';
import { pdfTestFixtures, pageCount, outputOf } from '../testing/fixtures.js';
import { standardPlugins } from '../../index.js';

const fixtures = pdfTestFixtures();
const qpdf = (...args: string[]) => runProcess('qpdf', args, { timeoutMs: 15_000 });

pluginConformanceSuite(
  protectPdfPlugin,
  [
    {
      name: 'AES-256, openable only with the password',
      files: [fixtures.get('eight')],
      options: { password: 'correct horse' },
      expectFormat: 'pdf',
      async check(run) {
        const file = outputOf(run);
        const { stdout } = await qpdf('--password=correct horse', '--show-encryption', file);
        expect(stdout).toMatch(/^R = 6$/m);
        expect(stdout).toMatch(/file encryption method: AESv3/);
        await expect(pageCount(file)).rejects.toThrow(/invalid password/);
        expect(await pageCount(file, 'correct horse')).toBe(8);
      },
    },
  ],
  { against: standardPlugins },
);
