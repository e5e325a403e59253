import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { confined } from './confine.js';
import { configureFonts, fontconfigFile, fontJailBinds, fontSetup } from './fonts.js';
import { runProcess } from './process.js';

/** What fontconfig answers for `pattern` under the configuration in `file`. */
async function fcMatch(file: string, pattern: string): Promise<string> {
  const { stdout } = await runProcess('fc-match', ['--format=%{family[0]}', pattern], {
    timeoutMs: 30_000,
    env: { ...process.env, FONTCONFIG_FILE: file },
  });
  return stdout;
}

describe('fonts', () => {
  let dir: string;
  let operatorFonts: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'fonts-test-'));
    // An operator font no Debian package here installs: Visual Studio Code's icons, inside playwright-core.
    const root = path.join(import.meta.dirname, '../../node_modules/playwright-core/lib/vite');
    const codicon = (await readdir(root, { recursive: true })).find((entry) => /codicon[^/]*\.ttf$/.test(entry));
    operatorFonts = path.join(dir, 'operator');
    await mkdir(path.join(operatorFonts, 'icons'), { recursive: true });
    await copyFile(path.join(root, codicon!), path.join(operatorFonts, 'icons/codicon.ttf'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('falls back to the Noto CJK face of the text language, serif or sans as the text asks', async () => {
    const file = path.join(dir, 'fonts.conf');
    await writeFile(file, fontconfigFile(undefined));
    // fc-match parses `lang` as a language set; engines pass a tag: both must land on the language's face.
    expect(await fcMatch(file, 'sans-serif:lang=zh-tw')).toBe('Noto Sans CJK TC');
    expect(await fcMatch(file, 'serif:lang=zh-cn')).toBe('Noto Serif CJK SC');
    expect(await fcMatch(file, 'sans-serif:lang=ja')).toBe('Noto Sans CJK JP');
    expect(await fcMatch(file, 'serif:lang=ko')).toBe('Noto Serif CJK KR');
    expect(await fcMatch(file, 'monospace:lang=ko')).toBe('Noto Sans Mono CJK KR');
    expect(await fcMatch(file, 'sans-serif:lang=zh-hk')).toBe('Noto Sans CJK HK');
    // An installed font the document names still comes first; Microsoft's fonts get their metric twins.
    expect(await fcMatch(file, 'DejaVu Sans:lang=ja')).toBe('DejaVu Sans');
    expect(await fcMatch(file, 'Calibri:lang=zh-cn')).toBe('Carlito');
    expect(await fcMatch(file, 'Cambria')).toBe('Caladea');
    expect(await fcMatch(file, 'Arial')).toBe('Liberation Sans');
    expect(await fcMatch(file, 'Times New Roman')).toBe('Liberation Serif');
    expect(await fcMatch(file, 'Courier New')).toBe('Liberation Mono');
  });

  it("adds the operator's fonts folder, subfolders included, and binds it read-only into jails", async () => {
    const before = fontSetup();
    const setup = configureFonts(operatorFonts);
    expect(configureFonts(operatorFonts)).toBe(setup);
    expect(process.env.FONTCONFIG_FILE).toBe(setup.file);
    expect(await readFile(setup.file, 'utf8')).toContain(`<dir>${operatorFonts}</dir>`);
    expect(await fcMatch(setup.file, 'codicon')).toBe('codicon');
    const { binds, env } = fontJailBinds();
    expect(binds).toEqual(['--ro-bind', setup.file, setup.file, '--ro-bind-try', operatorFonts, operatorFonts]);
    expect(env).toEqual({ FONTCONFIG_FILE: setup.file });
    const jail = confined('fc-match', ['codicon'], { writable: [] });
    expect(jail.args.join(' ')).toContain(`--setenv FONTCONFIG_FILE ${setup.file}`);
    expect(jail.args.join(' ')).toContain(`--ro-bind-try ${operatorFonts} ${operatorFonts}`);
    if (before) configureFonts(before.fontsDir);
  });
});
