/** Glyph widths of the PostScript base fonts, read from the URW AFM files ghostscript renders with. */
import { readFileSync } from 'node:fs';

const AFM_DIR = '/usr/share/fonts/type1/urw-base35';

/** PostScript font name -> URW file ghostscript substitutes for it. */
const URW_FILES: Record<string, string> = {
  Helvetica: 'NimbusSans-Regular',
  'Helvetica-Bold': 'NimbusSans-Bold',
  'Times-Roman': 'NimbusRoman-Regular',
  'Times-Bold': 'NimbusRoman-Bold',
  Courier: 'NimbusMonoPS-Regular',
  'Courier-Bold': 'NimbusMonoPS-Bold',
};

export type FontName = keyof typeof URW_FILES & string;

/** Glyph name -> advance width in 1/1000 em. */
export type GlyphWidths = ReadonlyMap<string, number>;

const cache = new Map<string, GlyphWidths>();

export function glyphWidths(font: string): GlyphWidths {
  const cached = cache.get(font);
  if (cached) return cached;
  const file = URW_FILES[font];
  if (!file) throw new Error(`no AFM for font ${font}`);
  const widths = new Map<string, number>();
  for (const line of readFileSync(`${AFM_DIR}/${file}.afm`, 'latin1').split('\n')) {
    const match = /^C -?\d+ ; WX (\d+) ; N (\S+) ;/.exec(line);
    if (match) widths.set(match[2]!, Number(match[1]));
  }
  cache.set(font, widths);
  return widths;
}

/** Code -> glyph name of the font's built-in (Standard) encoding, for printable ASCII. */
export function standardEncoding(font: string): string[] {
  const names: string[] = [];
  const file = URW_FILES[font];
  if (!file) throw new Error(`no AFM for font ${font}`);
  for (const line of readFileSync(`${AFM_DIR}/${file}.afm`, 'latin1').split('\n')) {
    const match = /^C (\d+) ; WX \d+ ; N (\S+) ;/.exec(line);
    if (match && Number(match[1]) >= 32 && Number(match[1]) < 127) names[Number(match[1])] = match[2]!;
  }
  return names;
}
