/**
 * A CV spec as a flat OpenDocument text (FODT) that LibreOffice turns into PDF, DOCX and DOC:
 * single column, a sidebar as the first column of a table, a sidebar in a page-anchored frame,
 * or contact details in a text frame (a text box once saved as DOCX).
 */
import type { CvSpec, Job, Month } from './model.js';
import { VOCAB } from './vocab.js';

const esc = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

type Para = { style: string; text: string };
const p = (style: string, text: string): Para => ({ style, text });

function point(spec: CvSpec, m: Month): string {
  const v = VOCAB[spec.lang];
  const mm = String(m.month).padStart(2, '0');
  switch (spec.dateStyle) {
    case 'month-name':
      return `${v.monthNames[m.month - 1]} ${m.year}`;
    case 'month-abbr':
      return `${v.monthAbbr[m.month - 1]} ${m.year}`;
    case 'slash':
      return `${mm}/${m.year}`;
    case 'dot':
      return `${mm}.${m.year}`;
    case 'iso':
      return `${m.year}-${mm}`;
    case 'year':
      return String(m.year);
  }
}

/** "Jan 2019 – Present", "Seit 06.2024", "2025-06 bis dato", "Depuis sept. 2021", "03/2017 - 12/2020". */
export function dateRange(spec: CvSpec, job: { start: Month; end?: Month }, variant: number): string {
  const v = VOCAB[spec.lang];
  const start = point(spec, job.start);
  const dash = ['–', '-', '—', v.to][variant % 4]!;
  if (!job.end) {
    if (spec.lang === 'de' && spec.dateStyle === 'iso') return `${start} bis dato`;
    if (variant % 3 === 0) return `${v.since} ${start}`;
    return `${start} ${dash} ${v.present[variant % v.present.length]}`;
  }
  const end = point(spec, job.end);
  return dash === '-' && variant % 2 ? `${start}-${end}` : `${start} ${dash} ${end}`;
}

function entry(spec: CvSpec, job: Job, index: number): Para[] {
  const v = VOCAB[spec.lang];
  const variant = spec.id.length + index + spec.jobs.length;
  const dates = dateRange(spec, job, variant);
  const employer = job.place ? `${job.employer}, ${job.place}` : job.employer;
  const bullets = job.bullets.map((text) => p('Body', `• ${text}`));
  if (job.isBreak) return [p('Bold', job.title), p('Body', dates)];
  switch (spec.entryLayout) {
    case 'title-first':
      return [p('Bold', job.title), p('Body', employer), p('Italic', dates), ...bullets];
    case 'employer-first':
      return [p('Bold', employer), p('Body', job.title), p('Italic', dates), ...bullets];
    case 'title-at':
      return [
        p('Bold', `${job.title} ${v.at} ${job.employer}`),
        p('Italic', job.place ? `${dates}, ${job.place}` : dates),
        ...bullets,
      ];
    case 'dates-left':
      return [p('Left', `${dates}\t${job.title}`), p('Left', `\t${employer}`), ...bullets];
    case 'pipes':
      return [p('Bold', `${job.title} | ${employer} | ${dates}`), ...bullets];
    case 'right-dates':
      return [p('Right', `${job.title} — ${employer}\t${dates}`), ...bullets];
  }
}

function contactParas(spec: CvSpec, stacked: boolean): Para[] {
  const phone = spec.phoneLabel ? `${spec.phoneLabel} ${spec.phone}` : spec.phone;
  const location = spec.locationLabel ? `${spec.locationLabel} ${spec.location}` : spec.location;
  if (stacked)
    return [location, phone, spec.email, ...(spec.linkedin ? [spec.linkedin] : [])].map((text) => p('Small', text));
  return [p('Body', `${location} | ${phone} | ${spec.email}`), ...(spec.linkedin ? [p('Body', spec.linkedin)] : [])];
}

function skillParas(spec: CvSpec): Para[] {
  const lines = spec.skillGroups.map((group) =>
    p('Small', `${group.label ? `${group.label} ` : ''}${group.items.join(', ')}`),
  );
  if (spec.spokenInSkills)
    lines.push(
      p('Small', `${VOCAB[spec.lang].spokenLabel} ${spec.spoken.map((s) => s.replace(/ \(.*\)$/, '')).join(', ')}`),
    );
  return lines;
}

function mainParas(spec: CvSpec, withName: boolean): Para[] {
  const out: Para[] = [];
  if (withName) {
    out.push(p('Name', spec.writtenName));
    if (spec.headline) out.push(p('Headline', spec.headline));
  }
  out.push(p('Heading', spec.headings.profile), p('Body', spec.profile));
  out.push(p('Heading', spec.headings.experience));
  spec.jobs.forEach((job, index) => out.push(...entry(spec, job, index)));
  out.push(p('Heading', spec.headings.education));
  for (const edu of spec.education) {
    out.push(p('Bold', edu.degree), p('Body', `${edu.school}, ${dateRange(spec, edu, 1)}`));
  }
  return out;
}

function sidebarParas(spec: CvSpec): Para[] {
  const out: Para[] = [];
  if (spec.nameInSidebar) {
    out.push(p('Name', spec.writtenName));
    if (spec.headline) out.push(p('Headline', spec.headline));
  }
  out.push(p('Heading', spec.headings.contact), ...contactParas(spec, true));
  out.push(p('Heading', spec.headings.skills), ...skillParas(spec));
  out.push(p('Heading', spec.headings.languages), ...spec.spoken.map((s) => p('Small', s)));
  return out;
}

function xmlOf(paras: readonly Para[]): string {
  return paras
    .map(
      ({ style, text }) =>
        `<text:p ` + `text:style-name="${style}">${text.split('\t').map(esc).join('<text:tab/>')}</text:p>`,
    )
    .join('\n');
}

/** The FODT document of a spec. */
export function renderFodt(spec: CvSpec): string {
  let body: string;
  let marginLeft = '2cm';
  let tabWidth = '16.8cm';
  if (spec.layout === 'single') {
    body = xmlOf([
      p('Name', spec.writtenName),
      ...(spec.headline ? [p('Headline', spec.headline)] : []),
      ...contactParas(spec, false),
      ...mainParas(spec, false).slice(0),
      p('Heading', spec.headings.skills),
      ...skillParas(spec),
      p('Heading', spec.headings.languages),
      p('Body', spec.spoken.join(', ')),
    ]);
  } else if (spec.layout === 'table') {
    tabWidth = '11.3cm';
    body = `<table:table table:name="Layout" table:style-name="Tbl"><table:table-column table:style-name="ColA"/>` +
    `<table:table-column table:style-name="ColB"/>
<table:table-row><table:table-cell table:style-name="Side" office:value-type="string">` +
`${xmlOf(sidebarParas(spec))}</table:table-cell>
<table:table-cell table:style-name="Main" office:value-type="string">` +
`${xmlOf(mainParas(spec, !spec.nameInSidebar))}</table:table-cell></table:table-row></table:table>`;
  } else if (spec.layout === 'frame') {
    marginLeft = '7.5cm';
    tabWidth = '11.3cm';
    const frame =
      `<draw:frame draw:style-name="Sidebar" draw:name="Sidebar" text:anchor-type="page" ` +
      `text:anchor-page-number="1" svg:x="1cm" svg:y="1.5cm" svg:width="5.6cm" draw:z-index="0"><draw:text-box ` +
      `fo:min-height="25cm">${xmlOf(sidebarParas(spec))}</draw:text-box></draw:frame>`;
    const main = mainParas(spec, !spec.nameInSidebar);
    body =
      `<text:p ` +
      `text:style-name="${main[0]!.style}">${frame}${esc(main[0]!.text)}</text:p>\n${xmlOf(main.slice(1))}`;
  } else {
    // Contact details only in a text frame at the top right.
    const frame =
      `<draw:frame draw:style-name="Box" draw:name="Contact" text:anchor-type="paragraph" svg:x="11cm" ` +
      `svg:y="0cm" svg:width="6cm" draw:z-index="0"><draw:text-box ` +
      `fo:min-height="2.5cm">${xmlOf(contactParas(spec, true))}</draw:text-box></draw:frame>`;
    const main = mainParas(spec, true);
    body = `<text:p text:style-name="Name">${frame}${esc(main[0]!.text)}</text:p>\n${xmlOf([
      ...main.slice(1),
      p('Heading', spec.headings.skills),
      ...skillParas(spec),
      p('Heading', spec.headings.languages),
      p('Body', spec.spoken.join(', ')),
    ])}`;
  }
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" ` +
`xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" ` +
`xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" ` +
`xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" ` +
`xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" ` +
`xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" ` +
`xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" office:version="1.3" ` +
`office:mimetype="application/vnd.oasis.opendocument.text">
<office:font-face-decls>` +
`<style:font-face style:name="Liberation Sans" svg:font-family="'Liberation Sans'" ` +
`style:font-family-generic="swiss"/></office:font-face-decls>
<office:styles>
<style:default-style style:family="paragraph">` +
`<style:text-properties style:font-name="Liberation Sans" fo:font-size="10pt" fo:language="${spec.lang}"/>` +
`</style:default-style>
</office:styles>
<office:automatic-styles>
<style:style style:name="Name" style:family="paragraph"><style:paragraph-properties fo:margin-bottom="0.15cm"/>` +
`<style:text-properties fo:font-size="20pt" fo:font-weight="bold"/></style:style>
<style:style style:name="Headline" style:family="paragraph"><style:paragraph-properties fo:margin-bottom="0.2cm"/>` +
`<style:text-properties fo:font-size="12pt"/></style:style>
<style:style style:name="Heading" style:family="paragraph">` +
`<style:paragraph-properties fo:margin-top="0.4cm" fo:margin-bottom="0.1cm"/>` +
`<style:text-properties fo:font-size="12pt" fo:font-weight="bold"/></style:style>
<style:style style:name="Body" style:family="paragraph"><style:text-properties fo:font-size="10pt"/></style:style>
<style:style style:name="Small" style:family="paragraph"><style:text-properties fo:font-size="9pt"/></style:style>
<style:style style:name="Bold" style:family="paragraph"><style:paragraph-properties fo:margin-top="0.15cm"/>` +
`<style:text-properties fo:font-size="10pt" fo:font-weight="bold"/></style:style>
<style:style style:name="Italic" style:family="paragraph">` +
`<style:text-properties fo:font-size="10pt" fo:font-style="italic"/></style:style>
<style:style style:name="Left" style:family="paragraph"><style:paragraph-properties fo:margin-top="0.1cm">` +
`<style:tab-stops><style:tab-stop style:position="3.8cm"/></style:tab-stops></style:paragraph-properties>` +
`<style:text-properties fo:font-size="10pt"/></style:style>
<style:style style:name="Right" style:family="paragraph"><style:paragraph-properties fo:margin-top="0.15cm">` +
`<style:tab-stops><style:tab-stop style:position="${tabWidth}" style:type="right"/></style:tab-stops>` +
`</style:paragraph-properties><style:text-properties fo:font-size="10pt" fo:font-weight="bold"/></style:style>
<style:style style:name="Tbl" style:family="table"><style:table-properties style:width="17cm" table:align="left"/>` +
`</style:style>
<style:style style:name="ColA" style:family="table-column">` +
`<style:table-column-properties style:column-width="5.5cm"/></style:style>
<style:style style:name="ColB" style:family="table-column">` +
`<style:table-column-properties style:column-width="11.5cm"/></style:style>
<style:style style:name="Side" style:family="table-cell">` +
`<style:table-cell-properties fo:background-color="#e8eef4" fo:padding="0.2cm" fo:border="none"/></style:style>
<style:style style:name="Main" style:family="table-cell">` +
`<style:table-cell-properties fo:padding-left="0.4cm" fo:border="none"/></style:style>
<style:style style:name="Sidebar" style:family="graphic">` +
`<style:graphic-properties style:wrap="none" style:vertical-pos="from-top" style:vertical-rel="page" ` +
`style:horizontal-pos="from-left" style:horizontal-rel="page" fo:background-color="#e8eef4" fo:padding="0.2cm" ` +
`fo:border="none"/></style:style>
<style:style style:name="Box" style:family="graphic">` +
`<style:graphic-properties style:wrap="parallel" style:vertical-pos="from-top" style:vertical-rel="paragraph" ` +
`style:horizontal-pos="from-left" style:horizontal-rel="paragraph" fo:padding="0.15cm" fo:border="0.5pt solid ` +
`#888888"/></style:style>
<style:page-layout style:name="PL">` +
`<style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" fo:margin-top="1.5cm" ` +
`fo:margin-bottom="1.5cm" fo:margin-left="${marginLeft}" fo:margin-right="2cm"/></style:page-layout>
</office:automatic-styles>
<office:master-styles><style:master-page style:name="Standard" style:page-layout-name="PL"/></office:master-styles>
<office:body><office:text>
${body}
</office:text></office:body></office:document>
`;
}
