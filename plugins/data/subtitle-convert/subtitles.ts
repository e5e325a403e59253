/** SubRip and WebVTT cues: parsing and writing (pure text, no I/O). */
import { PluginError } from '../../../core/contract/index.js';

export interface Cue {
  id?: string;
  /** Milliseconds. */
  start: number;
  end: number;
  /** Lines of text, joined with \n. */
  text: string;
}

// SRT: HH:MM:SS,mmm (a '.' is tolerated). VTT: [HH:]MM:SS.mmm.
const SRT_TIME = /^(\d{1,3}):([0-5]\d):([0-5]\d)[,.](\d{3})$/;
const VTT_TIME = /^(?:(\d{1,3}):)?([0-5]\d):([0-5]\d)\.(\d{3})$/;

function toMs(match: RegExpExecArray): number {
  const [, h, m, s, ms] = match;
  return ((Number(h ?? 0) * 60 + Number(m)) * 60 + Number(s)) * 1000 + Number(ms);
}

function timing(line: string, lineNo: number, format: 'srt' | 'vtt'): { start: number; end: number; settings: string } {
  const pattern = format === 'srt' ? SRT_TIME : VTT_TIME;
  const [left = '', right = ''] = line.split('-->');
  const [endText = '', ...settings] = right.trim().split(/[ \t]+/);
  const start = pattern.exec(left.trim());
  const end = pattern.exec(endText);
  const example = format === 'srt' ? '00:00:01,000 --> 00:00:02,000' : '00:00:01.000 --> 00:00:02.000';
  if (!start || !end || line.split('-->').length !== 2) {
    throw new PluginError(`Malformed timestamp on line ${lineNo}: '${line.trim().slice(0, 80)}' (expected ${example})`);
  }
  const cue = { start: toMs(start), end: toMs(end), settings: settings.join(' ') };
  if (cue.end < cue.start) throw new PluginError(`Cue on line ${lineNo} ends before it starts`);
  return cue;
}

/** Lines with their 1-based numbers, grouped into blocks separated by blank lines. */
function blocks(text: string): Array<Array<{ line: string; no: number }>> {
  const result: Array<Array<{ line: string; no: number }>> = [];
  let current: Array<{ line: string; no: number }> = [];
  text.split(/\r\n|\r|\n/).forEach((line, i) => {
    if (line.trim() === '') {
      if (current.length) result.push(current);
      current = [];
    } else current.push({ line, no: i + 1 });
  });
  if (current.length) result.push(current);
  return result;
}

export function parseSrt(text: string): Cue[] {
  const cues: Cue[] = [];
  for (const block of blocks(text)) {
    let i = 0;
    if (/^\s*\d+\s*$/.test(block[0]!.line) && block.length > 1) i = 1; // cue number
    const timeLine = block[i]!;
    if (!timeLine.line.includes('-->')) {
      throw new PluginError(
        `Malformed timestamp on line ${timeLine.no}: expected 'HH:MM:SS,mmm --> HH:MM:SS,mmm', got ` +
          `'${timeLine.line.trim().slice(0, 80)}'`,
      );
    }
    const { start, end } = timing(timeLine.line, timeLine.no, 'srt');
    cues.push({
      start,
      end,
      text: block
        .slice(i + 1)
        .map((l) => l.line)
        .join('\n'),
    });
  }
  return cues;
}

export function parseVtt(text: string): Cue[] {
  const all = blocks(text);
  const header = all[0]?.[0]?.line ?? '';
  if (!/^WEBVTT(?:[ \t].*)?$/.test(header)) throw new PluginError("Not a WebVTT file: line 1 must start with 'WEBVTT'");
  const cues: Cue[] = [];
  for (const block of all.slice(1)) {
    const first = block[0]!.line;
    if (/^(NOTE|STYLE|REGION)(?:[ \t]|$)/.test(first)) continue;
    const at = block.findIndex((l) => l.line.includes('-->'));
    if (at < 0 || at > 1) {
      const culprit = block[at < 0 ? Math.min(1, block.length - 1) : 0]!;
      throw new PluginError(
        `Malformed timestamp on line ${culprit.no}: expected 'HH:MM:SS.mmm --> HH:MM:SS.mmm', got ` +
          `'${culprit.line.trim().slice(0, 80)}'`,
      );
    }
    const { start, end } = timing(block[at]!.line, block[at]!.no, 'vtt');
    const id = at === 1 ? first.trim() : undefined;
    cues.push({
      ...(id ? { id } : {}),
      start,
      end,
      text: block
        .slice(at + 1)
        .map((l) => l.line)
        .join('\n'),
    });
  }
  return cues;
}

export function formatTime(ms: number, separator: ',' | '.'): string {
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  const h = Math.floor(ms / 3_600_000);
  const m = Math.floor(ms / 60_000) % 60;
  const s = Math.floor(ms / 1000) % 60;
  return `${pad(h)}:${pad(m)}:${pad(s)}${separator}${pad(ms % 1000, 3)}`;
}

/** VTT cue text to SRT: VTT-only tags removed, entities decoded. */
function vttTextToSrt(text: string): string {
  return text
    .replace(/<(?!\/?(?:b|i|u)>)[^>]*>/gi, '') // keeps only <b>, <i>, <u> and their closings
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&nbsp;/g, '\u00a0')
    .replace(/&lrm;/g, '\u200e')
    .replace(/&rlm;/g, '\u200f')
    .replace(/&amp;/g, '&');
}

/** SRT cue text to VTT: <b>/<i>/<u> kept, <font> dropped, bare '&' and '<' escaped. */
function srtTextToVtt(text: string): string {
  return text
    .replace(/<\/?font\b[^>]*>/gi, '')
    .replace(/&(?!(?:amp|lt|gt|nbsp|lrm|rlm);)/g, '&amp;')
    .replace(/<(?!\/?(?:b|i|u)>)/gi, '&lt;')
    .replace(/-->/g, '--&gt;');
}

export function writeSrt(cues: readonly Cue[]): string {
  return cues
    .map((cue) => ({
      ...cue,
      text: vttTextToSrt(cue.text)
        .split('\n')
        .filter((l) => l.trim() !== '')
        .join('\n'),
    }))
    .filter((cue) => cue.text !== '')
    .map((cue, i) => `${i + 1}\n${formatTime(cue.start, ',')} --> ${formatTime(cue.end, ',')}\n${cue.text}\n`)
    .join('\n');
}

export function writeVtt(cues: readonly Cue[]): string {
  const body = cues.map((cue, i) => {
    const id = (cue.id ?? String(i + 1)).replace(/-->/g, '');
    const text = srtTextToVtt(cue.text)
      .split('\n')
      .filter((l) => l.trim() !== '')
      .join('\n');
    return `${id}\n${formatTime(cue.start, '.')} --> ${formatTime(cue.end, '.')}\n${text}\n`;
  });
  return ['WEBVTT\n', ...body].join('\n');
}
