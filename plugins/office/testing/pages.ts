/** Test support: an office package that claims `count` pages (or slides) in docProps/app.xml. */
import { strToU8, unzipSync, zipSync } from 'fflate';

const APP_XML = (element: string, count: number) =>
  '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n' +
  '<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties">' +
  `<Application>Microsoft Office Word</Application><${element}>${count}</${element}></Properties>`;

/** `pkg` (a DOCX or PPTX) with its docProps/app.xml replaced by one saying `count` pages or slides. */
export function claimingPages(pkg: Uint8Array, count: number, element: 'Pages' | 'Slides' = 'Pages'): Buffer {
  const parts = unzipSync(pkg);
  parts['docProps/app.xml'] = strToU8(APP_XML(element, count));
  return Buffer.from(zipSync(parts));
}
