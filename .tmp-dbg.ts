import { readFile } from 'node:fs/promises';
const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
const doc = await getDocument({ data: new Uint8Array(await readFile(process.argv[2]!)), verbosity: 0 }).promise;
const page = await doc.getPage(1);
const vp = page.getViewport({ scale: 1 });
for (const raw of (await page.getTextContent()).items as any[]) if (raw.str.trim()) console.log(Math.round(raw.transform[4]), (vp.height - raw.transform[5]).toFixed(1), Math.round(raw.width), raw.str);
