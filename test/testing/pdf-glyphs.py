"""Test support: how a PDF drew each line of a writing-system sample set (run with Debian's /usr/bin/python3).

Usage: pdf-glyphs.py PDF SAMPLES_JSON [CJK_TTC,CJK_TTC...]

Prints JSON: {"notdef": glyph-0 (.notdef) draws in the whole PDF, "lines": per sample (by index) the characters
drawn with glyph 0, the characters drawn with a glyph that also stands for other characters (a box: one glyph for
many characters), the fonts that drew it, distinct glyphs per distinct character, and for CJK lines how close
each Noto CJK face's rendering is to what the PDF shows (the face whose shapes the PDF drew scores highest)}.
Needs python3-fitz (PyMuPDF) and python3-pil.
"""

import json
import sys
import unicodedata

import fitz

IGNORED = set(" \t\u200b\u200c\u200d") | {chr(c) for c in range(0xFE00, 0xFE10)}
# The faces of Debian's NotoSansCJK/NotoSerifCJK collections, by their index in the .ttc.
CJK_FACES = {"jp": 0, "kr": 1, "sc": 2, "tc": 3}
ZOOM = 4


def significant(text):
    return [c for c in dict.fromkeys(text) if c not in IGNORED and not unicodedata.category(c).startswith("Z")]


def cjk(char):
    code = ord(char)
    return (
        0x3000 <= code <= 0x30FF  # CJK punctuation, kana
        or 0x3400 <= code <= 0x9FFF  # ideographs
        or 0xAC00 <= code <= 0xD7AF  # Hangul syllables
        or 0xFF00 <= code <= 0xFFEF  # full-width forms
    )


def ink(image):
    """The set of dark pixels of a greyscale PIL image."""
    width = image.width
    return {(i % width, i // width) for i, value in enumerate(image.getdata()) if value < 128}


def face_scores(doc, draws, ttcs):
    """How well each Noto CJK face's rendering matches the PDF's, over `draws` (page, char tuple, size)."""
    from PIL import Image, ImageDraw, ImageFont

    scores = {face: 0.0 for face in CJK_FACES}
    fonts = {}
    for page_number, char, size in draws:
        (ox, oy) = char[2]
        rect = fitz.Rect(ox - size * 0.1, oy - size * 1.0, ox + size * 1.1, oy + size * 0.3)
        pix = doc[page_number].get_pixmap(matrix=fitz.Matrix(ZOOM, ZOOM), clip=rect, colorspace=fitz.csGRAY, alpha=False)
        drawn = Image.frombytes("L", (pix.width, pix.height), pix.samples)
        drawn_ink = ink(drawn)
        if not drawn_ink:
            continue
        for face, index in CJK_FACES.items():
            best = 0.0
            # Sans or serif: whichever the PDF used.
            for collection in ttcs:
                key = (collection, face, round(size * ZOOM))
                if key not in fonts:
                    fonts[key] = ImageFont.truetype(collection, key[2], index=index)
                reference = Image.new("L", drawn.size, 255)
                origin = (size * 0.1 * ZOOM, size * 1.0 * ZOOM)
                ImageDraw.Draw(reference).text(origin, chr(char[0]), font=fonts[key], fill=0, anchor="ls")
                reference_ink = ink(reference)
                union = drawn_ink | reference_ink
                best = max(best, len(drawn_ink & reference_ink) / len(union) if union else 0)
            scores[face] += best
    return scores


def main():
    pdf_path, samples_path = sys.argv[1], sys.argv[2]
    ttcs = sys.argv[3].split(",") if len(sys.argv) > 3 else []
    samples = json.load(open(samples_path, encoding="utf-8"))
    doc = fitz.open(pdf_path)
    # Every drawn character: (page, unicode, glyph, font, origin, size).
    drawn = []
    glyph_chars = {}
    span_number = 0
    for page_number, page in enumerate(doc):
        for span in page.get_texttrace():
            span_number += 1
            for char in span["chars"]:
                drawn.append((page_number, char, span["font"], span["size"]))
                code, glyph = char[0], char[1]
                # -1: a character that shares the glyph before it (a ligature or conjunct); U+FFFD: a glyph with no
                # character of its own (part of a split vowel sign). Within one span (one font object: separately
                # embedded fonts may share a name), one glyph standing for several characters is a box.
                if glyph > 0 and code != 0xFFFD and not chr(code).isspace():
                    glyph_chars.setdefault((span_number, glyph), set()).add(chr(code))
    boxes = {char for chars in glyph_chars.values() if len(chars) > 1 for char in chars}
    # Each drawn glyph belongs to the line being drawn: the last line one of whose own characters (in no other
    # line) was drawn, so characters shared by lines (Han in Chinese, Japanese and Korean) and glyphs with no
    # character of their own go to the right one.
    owners = {}
    for index, sample in enumerate(samples):
        for char in significant(sample["text"]):
            owners.setdefault(char, []).append(index)
    lines = [[] for _ in samples]
    current = None
    for entry in drawn:
        mine = owners.get(chr(entry[1][0]), [])
        if len(mine) == 1:
            current = mine[0]
        if current is not None and (current in mine or not mine):
            lines[current].append(entry)
        elif len(mine) == 1:
            lines[mine[0]].append(entry)
    report = []
    for sample, mine in zip(samples, lines):
        chars = significant(sample["text"])
        glyphs = {(e[2], e[1][1]) for e in mine if e[1][1] > 0}
        result = {
            "script": sample["script"],
            "notdef": sorted({chr(e[1][0]) for e in mine if e[1][1] == 0}),
            "boxes": sorted({chr(e[1][0]) for e in mine if chr(e[1][0]) in boxes}),
            "fonts": sorted({e[2] for e in mine}),
            # Distinct glyphs per distinct character: LibreOffice draws one box glyph for every character no font
            # has, mapped in the PDF's text to the first of them (the real text only in ActualText), so no glyph
            # stands for several characters there; a script drawn in boxes still brings this share down.
            "glyphShare": len(glyphs) / len(chars),
        }
        if ttcs and sample.get("cjkFace"):
            result["faces"] = face_scores(doc, [(e[0], e[1], e[3]) for e in mine if cjk(chr(e[1][0]))], ttcs)
        report.append(result)
    notdef = sum(1 for e in drawn if e[1][1] == 0)
    json.dump({"lines": report, "notdef": notdef}, sys.stdout, ensure_ascii=False)


main()
