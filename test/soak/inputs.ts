/**
 * The soak's inputs, made here (nothing from a reserved corpus), and the checks of each output on its content:
 * an image's format and dimensions, a PDF's page count and text, an audio file's codec and duration, a text's exact
 * bytes.
 */
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import type { Random } from '../testing/random.js';

const run = promisify(execFile);

/** What a done job's output must be. */
export type Expectation =
  | { type: 'text'; text: string }
  | { type: 'image'; format: 'jpeg' | 'png' | 'webp'; width: number; height: number }
  | { type: 'pdf'; pages: number; phrase: string }
  | { type: 'audio'; codec: string; seconds: number };

export interface SoakFile {
  name: string;
  data: Buffer;
}

export async function pngOf(random: Random, width: number, height: number): Promise<Buffer> {
  const background = { r: random.int(0, 255), g: random.int(0, 255), b: random.int(0, 255) };
  return sharp({ create: { width, height, channels: 3, background } })
    .png()
    .toBuffer();
}

/** A mono 16-bit PCM WAV of a sine tone. */
export function wavOf(seconds: number, hz: number): Buffer {
  const rate = 8000;
  const samples = Math.round(seconds * rate);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    data.writeInt16LE(Math.round(Math.sin((2 * Math.PI * hz * i) / rate) * 12_000), i * 2);
  const header = Buffer.alloc(44);
  header.write('RIFF', 0);
  header.writeUInt32LE(36 + data.length, 4);
  header.write('WAVE', 8);
  header.write('fmt ', 12);
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(1, 22);
  header.writeUInt32LE(rate, 24);
  header.writeUInt32LE(rate * 2, 28);
  header.writeUInt16LE(2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36);
  header.writeUInt32LE(data.length, 40);
  return Buffer.concat([header, data]);
}

const WORDS = ['amber', 'basalt', 'cedar', 'delta', 'ember', 'fjord', 'granite', 'harbor', 'indigo', 'juniper'];

/** A few DOCX files made by pandoc from Markdown written here, each with its own phrase. */
export async function makeDocuments(dir: string, count: number): Promise<Array<{ file: SoakFile; phrase: string }>> {
  await mkdir(dir, { recursive: true });
  const documents: Array<{ file: SoakFile; phrase: string }> = [];
  for (let i = 0; i < count; i++) {
    const phrase = `Soak ${WORDS[i % WORDS.length]} ${WORDS[(i * 3 + 1) % WORDS.length]} ledger ${i}`;
    const markdown = path.join(dir, `doc-${i}.md`);
    const docx = path.join(dir, `doc-${i}.docx`);
    await writeFile(markdown, `# Report ${i}\n\n${phrase}.\n\nA short paragraph that fits on one page.\n`);
    await run('pandoc', [markdown, '-o', docx], { timeout: 60_000 });
    documents.push({ file: { name: `report-${i}.docx`, data: await readFile(docx) }, phrase });
  }
  return documents;
}

/** Whether `data` is what `expected` says; a reason when not. */
export async function checkOutput(data: Buffer, expected: Expectation, scratch: string): Promise<string | null> {
  try {
    switch (expected.type) {
      case 'text': {
        const text = data.toString('utf8');
        return text === expected.text ? null : `text differs: ${JSON.stringify(text.slice(0, 80))}`;
      }
      case 'image': {
        const meta = await sharp(data).metadata();
        const got = `${meta.format} ${meta.width}x${meta.height}`;
        const want = `${expected.format} ${expected.width}x${expected.height}`;
        return got === want ? null : `image is ${got}, expected ${want}`;
      }
      case 'pdf': {
        const file = path.join(scratch, `check-${process.hrtime.bigint()}.pdf`);
        await writeFile(file, data);
        const info = (await run('pdfinfo', [file], { timeout: 30_000 })).stdout;
        const pages = Number(/^Pages:\s+(\d+)/m.exec(info)?.[1]);
        const text = (await run('pdftotext', [file, '-'], { timeout: 30_000 })).stdout.replace(/\s+/g, ' ');
        if (pages !== expected.pages) return `PDF has ${pages} pages, expected ${expected.pages}`;
        return text.includes(expected.phrase) ? null : `PDF text lacks "${expected.phrase}"`;
      }
      case 'audio': {
        const file = path.join(scratch, `check-${process.hrtime.bigint()}.bin`);
        await writeFile(file, data);
        const probe = JSON.parse(
          (
            await run(
              'ffprobe',
              ['-v', 'error', '-show_entries', 'stream=codec_name:format=duration', '-of', 'json', file],
              { timeout: 30_000 },
            )
          ).stdout,
        ) as { streams?: Array<{ codec_name?: string }>; format?: { duration?: string } };
        const codec = probe.streams?.[0]?.codec_name;
        const seconds = Number(probe.format?.duration);
        if (codec !== expected.codec) return `audio codec ${codec}, expected ${expected.codec}`;
        return Math.abs(seconds - expected.seconds) <= 0.25
          ? null
          : `audio lasts ${seconds} s, expected ${expected.seconds}`;
      }
    }
  } catch (err) {
    return `unreadable output: ${(err as Error).message.split('\n')[0]}`;
  }
}
