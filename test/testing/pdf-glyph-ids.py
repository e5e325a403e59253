"""Test support: the glyph each character of a PDF is drawn with (run with Debian's /usr/bin/python3).

Usage: pdf-glyph-ids.py PDF FONT_FILE[,FONT_FILE...]

Prints JSON: {"chars": every drawn character as [character, glyph id, font name], "fonts": for each FONT_FILE
(a TrueType file or collection, its first face), the glyph id that font gives each of those characters (0: none)}.
A font substituted for one the PDF did not embed, and embedded by the writer with its glyph numbers kept, draws
each character with the glyph that font gives it; a writer that took the character's CID for a glyph number does not.
Needs python3-fitz (PyMuPDF).
"""

import json
import sys

import fitz


def main():
    pdf_path, font_files = sys.argv[1], sys.argv[2].split(",")
    doc = fitz.open(pdf_path)
    chars = []
    for page in doc:
        for span in page.get_texttrace():
            for char in span["chars"]:
                chars.append([chr(char[0]), char[1], span["font"]])
    distinct = sorted({c[0] for c in chars})
    fonts = {}
    for file in font_files:
        font = fitz.Font(fontfile=file)
        fonts[file] = {c: font.has_glyph(ord(c)) for c in distinct}
    print(json.dumps({"chars": chars, "fonts": fonts}, ensure_ascii=False))


if __name__ == "__main__":
    main()
