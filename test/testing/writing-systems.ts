/**
 * Test support: one line of real text in each writing system the service must render, and the
 * same lines as a DOCX, an ODT, an HTML page and a Markdown file, each line marked with its
 * language the way each format does it (Word's w:lang, ODF's fo:language and its Asian and
 * complex-script twins, HTML's lang).
 */
import { strToU8, zipSync } from 'fflate';

export interface ScriptSample {
  /** What the line is written in (test names). */
  script: string;
  /** BCP 47 language tag of the line. */
  lang: string;
  text: string;
  /** CJK lines: the Noto CJK face the language calls for (its PostScript name holds "CJKsc", "CJKjp"...). */
  cjkFace?: 'sc' | 'tc' | 'jp' | 'kr';
}

export const SCRIPT_SAMPLES: readonly ScriptSample[] = [
  { script: 'Latin with diacritics', lang: 'cs-CZ', text: 'Příliš žluťoučký kůň úpěl ďábelské ódy' },
  { script: 'Latin (Vietnamese)', lang: 'vi-VN', text: 'Tiếng Việt có dấu: ặ ẫ ự ở đường' },
  { script: 'Latin (Polish, Icelandic, Turkish)', lang: 'pl-PL', text: 'Zażółć gęślą jaźń; Þórður; ığdır şehri' },
  { script: 'Greek', lang: 'el-GR', text: 'Καλημέρα κόσμε, ξεσκεπάζω την ψυχοφθόρα βδελυγμία' },
  { script: 'Cyrillic', lang: 'ru-RU', text: 'Съешь же ещё этих мягких французских булок' },
  { script: 'Armenian', lang: 'hy-AM', text: 'Բարեւ աշխարհ, ողջույն' },
  { script: 'Georgian', lang: 'ka-GE', text: 'გამარჯობა მსოფლიო' },
  { script: 'Hebrew', lang: 'he-IL', text: 'שלום עולם, זהו מבחן' },
  { script: 'Arabic', lang: 'ar-EG', text: 'مرحبا بالعالم، هذا اختبار' },
  { script: 'Persian', lang: 'fa-IR', text: 'سلام دنیا، گچ پژو یک' },
  { script: 'Devanagari', lang: 'hi-IN', text: 'नमस्ते दुनिया, यह परीक्षण है' },
  { script: 'Bengali', lang: 'bn-BD', text: 'ওহে বিশ্ব, এটি একটি পরীক্ষা' },
  { script: 'Tamil', lang: 'ta-IN', text: 'வணக்கம் உலகம், இது ஒரு சோதனை' },
  { script: 'Telugu', lang: 'te-IN', text: 'హలో ప్రపంచం, ఇది ఒక పరీక్ష' },
  { script: 'Gujarati', lang: 'gu-IN', text: 'નમસ્તે દુનિયા, આ એક કસોટી છે' },
  { script: 'Gurmukhi', lang: 'pa-IN', text: 'ਸਤਿ ਸ੍ਰੀ ਅਕਾਲ ਦੁਨੀਆ, ਇਹ ਇੱਕ ਪਰੀਖਿਆ ਹੈ' },
  { script: 'Kannada', lang: 'kn-IN', text: 'ನಮಸ್ಕಾರ ಜಗತ್ತು, ಇದು ಒಂದು ಪರೀಕ್ಷೆ' },
  { script: 'Malayalam', lang: 'ml-IN', text: 'നമസ്കാരം ലോകം, ഇതൊരു പരീക്ഷണമാണ്' },
  { script: 'Sinhala', lang: 'si-LK', text: 'ආයුබෝවන් ලෝකය, මෙය පරීක්ෂණයකි' },
  { script: 'Thai', lang: 'th-TH', text: 'สวัสดีชาวโลก นี่คือการทดสอบ' },
  { script: 'Lao', lang: 'lo-LA', text: 'ສະບາຍດີຊາວໂລກ ນີ້ແມ່ນການທົດສອບ' },
  { script: 'Khmer', lang: 'km-KH', text: 'សួស្តីពិភពលោក នេះជាការសាកល្បង' },
  { script: 'Myanmar', lang: 'my-MM', text: 'မင်္ဂလာပါကမ္ဘာလောက' },
  { script: 'Ethiopic', lang: 'am-ET', text: 'ሰላም ለዓለም፣ ይህ ፈተና ነው' },
  { script: 'Tibetan', lang: 'bo-CN', text: 'བཀྲ་ཤིས་བདེ་ལེགས། འཛམ་གླིང་' },
  { script: 'Simplified Chinese', lang: 'zh-CN', text: '这是简体中文测试：直线与骨骼，说话写字', cjkFace: 'sc' },
  { script: 'Traditional Chinese', lang: 'zh-TW', text: '這是繁體中文測試：直線與骨骼，說話寫字', cjkFace: 'tc' },
  {
    script: 'Japanese',
    lang: 'ja-JP',
    text: 'こんにちは世界、日本語の直線と骨格のテストです。カタカナ',
    cjkFace: 'jp',
  },
  { script: 'Korean', lang: 'ko-KR', text: '안녕하세요 세계, 한국어 시험입니다 (直線과 骨格)', cjkFace: 'kr' },
  { script: 'Emoji', lang: 'en-US', text: 'Emoji 😀 🎉 👍 🚀 🌍 🐙' },
];

/** The characters of `text` a PDF's text must hold: all but spaces, joiners and variation selectors. */
export function significantCharacters(text: string): string[] {
  const ignored = (char: string) => {
    const code = char.codePointAt(0)!;
    return /\s/u.test(char) || (code >= 0x200b && code <= 0x200d) || (code >= 0xfe00 && code <= 0xfe0f);
  };
  return [...new Set([...text].filter((char) => !ignored(char)))];
}

const xml = (text: string) => text.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);
const RTL = new Set(['he', 'ar', 'fa']);
const primary = (lang: string) => lang.split('-')[0]!;

/**
 * A DOCX with one paragraph per sample, its language in all three of Word's slots (w:val for Latin text,
 * w:eastAsia for CJK, w:bidi for complex scripts), set in fonts this machine does not have as a Word document
 * would be (Calibri, SimSun, Arial for complex scripts): fallback must find the glyphs.
 */
export function scriptsDocx(samples: readonly ScriptSample[]): Buffer {
  const W = 'http://schemas.openxmlformats.org/wordprocessingml/2006/main';
  const paragraphs = samples
    .map((sample) => {
      const rtl = RTL.has(primary(sample.lang)) ? '<w:bidi/>' : '';
      const runRtl = rtl ? '<w:rtl/>' : '';
      const lang = `<w:lang w:val="${sample.lang}" w:eastAsia="${sample.lang}" w:bidi="${sample.lang}"/>`;
      return (
        `<w:p><w:pPr>${rtl}<w:rPr>${lang}</w:rPr></w:pPr><w:r><w:rPr>${runRtl}${lang}</w:rPr><w:t` +
        ` xml:space="preserve">${xml(sample.text)}</w:t></w:r></w:p>`
      );
    })
    .join('');
  const parts: Record<string, Uint8Array> = {
    '[Content_Types].xml': strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types' +
        ' xmlns="http://schemas.openxmlformats.org/package/2006/content-types">' +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/word/document.xml"' +
        ' ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/>' +
        '<Override PartName="/word/styles.xml"' +
        ' ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/>' +
        '</Types>',
    ),
    '_rels/.rels': strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships' +
        ' xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1"' +
        ' Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument"' +
        ' Target="word/document.xml"/>' +
        '</Relationships>',
    ),
    'word/_rels/document.xml.rels': strToU8(
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Relationships' +
        ' xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
        '<Relationship Id="rId1"' +
        ' Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/>' +
        '</Relationships>',
    ),
    'word/styles.xml': strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:styles xmlns:w="${W}"><w:docDefaults>` +
        `<w:rPrDefault><w:rPr>` +
        '<w:rFonts w:ascii="Calibri" w:hAnsi="Calibri" w:eastAsia="SimSun" w:cs="Arial"/><w:sz w:val="22"/>' +
        '<w:szCs w:val="22"/>' +
        '<w:lang w:val="en-US" w:eastAsia="zh-CN" w:bidi="ar-SA"/></w:rPr></w:rPrDefault></w:docDefaults>' +
        '<w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style></w:styles>',
    ),
    'word/document.xml': strToU8(
      `<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="${W}"><w:body>${paragraphs}` +
        '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1134" w:right="1134" w:bottom="1134"' +
        ' w:left="1134" w:header="0" w:footer="0" w:gutter="0"/></w:sectPr>' +
        '</w:body></w:document>',
    ),
  };
  return Buffer.from(zipSync(parts));
}

/** `lang` as ODF's language and country attributes with `prefix` ("fo:", "style:" + "-asian"...). */
function odfLanguage(lang: string): { language: string; country: string } {
  const [language, country] = lang.split('-');
  return { language: language!, country: country ?? 'none' };
}

/**
 * An ODT with one paragraph per sample, each in an automatic style giving its language for Western, Asian and
 * complex text alike, set in Liberation Serif (the document's face for Western text, as LibreOffice's default).
 */
export function scriptsOdt(samples: readonly ScriptSample[]): Buffer {
  const styles = samples
    .map((sample, index) => {
      const { language, country } = odfLanguage(sample.lang);
      const rtl = RTL.has(primary(sample.lang)) ? ' style:writing-mode="rl-tb"' : '';
      return (
        `<style:style style:name="P${index}" style:family="paragraph"><style:paragraph-properties${rtl}/>` +
        `<style:text-properties style:font-name="Liberation Serif" fo:language="${language}" fo:country="${country}" ` +
        `style:language-asian="${language}" style:country-asian="${country}" ` +
        `style:language-complex="${language}" style:country-complex="${country}"/></style:style>`
      );
    })
    .join('');
  const body = samples
    .map((sample, index) => `<text:p text:style-name="P${index}">${xml(sample.text)}</text:p>`)
    .join('');
  const ns =
    'xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0"' +
    ' xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" ' +
    'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0"' +
    ' xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" ' +
    'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0" office:version="1.3"';
  const manifest =
    '<?xml version="1.0" encoding="UTF-8"?><manifest:manifest' +
    ' xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.3">' +
    '<manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.text"/>' +
    '<manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>';
  const content =
    `<?xml version="1.0" encoding="UTF-8"?><office:document-content ${ns}>` +
    '<office:font-face-decls><style:font-face style:name="Liberation Serif" svg:font-family="&apos;Liberation' +
    ' Serif&apos;" style:font-family-generic="roman"/></office:font-face-decls>' +
    `<office:automatic-styles>${styles}</office:automatic-styles><office:body><office:text>${body}</office:text>` +
    `</office:body></office:document-content>`;
  // The mimetype member comes first and stored, as ODF requires.
  return Buffer.from(
    zipSync({
      mimetype: [strToU8('application/vnd.oasis.opendocument.text'), { level: 0 }],
      'META-INF/manifest.xml': strToU8(manifest),
      'content.xml': strToU8(content),
    }),
  );
}

/** An HTML page with one paragraph per sample, each with its lang (and dir for right-to-left text). */
export function scriptsHtml(samples: readonly ScriptSample[]): string {
  const body = samples
    .map((sample) => {
      const dir = RTL.has(primary(sample.lang)) ? ' dir="rtl"' : '';
      return `<p lang="${sample.lang}"${dir}>${xml(sample.text)}</p>`;
    })
    .join('\n');
  return (
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Scripts</title></head><body>` +
    `\n${body}\n</body></html>\n`
  );
}

/** A Markdown file with one paragraph per sample: Markdown has no way to say a paragraph's language. */
export function scriptsMarkdown(samples: readonly ScriptSample[]): string {
  return `# Scripts\n\n${samples.map((sample) => sample.text).join('\n\n')}\n`;
}
