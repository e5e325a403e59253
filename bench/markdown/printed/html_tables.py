"""The data tables of an HTML page as JSON rows of cell texts, for the printed corpus' truth.

A data table is a <table> whose class names docutils (Sphinx and docutils write every table of a document's
text that way; index, code-listing and layout tables carry other classes). Rows are <tr> in document order
(header rows included); a cell's text is its text with whitespace collapsed; a span's text sits in its top-left
cell and the cells it covers are empty, as the corpus truth writes merged cells. Nested tables are not kept.

    python3 html_tables.py page.html  ->  [[["h1", "h2"], ["a", "b"]], ...]
"""
import json
import re
import sys
from html.parser import HTMLParser

HIDDEN = {"script", "style", "head"}


class Tables(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.tables = []
        self.stack = []  # open tables: {"data": bool, "rows": [...], "spans": {}, "row": None, "cell": None}
        self.hidden = 0

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag in HIDDEN:
            self.hidden += 1
        if tag == "table":
            data = "docutils" in (attrs.get("class") or "").split() and not self.stack
            self.stack.append({"data": data, "rows": [], "row": None, "cell": None, "pending": {}})
            return
        if not self.stack:
            return
        table = self.stack[-1]
        if tag == "tr":
            table["row"] = []
        elif tag in ("td", "th") and table["row"] is not None:
            self._fill_spans(table)
            table["cell"] = {"text": [], "colspan": int(attrs.get("colspan") or 1), "rowspan": int(attrs.get("rowspan") or 1)}
        elif tag in ("br", "p", "li", "div") and table["cell"] is not None:
            table["cell"]["text"].append(" ")

    def _fill_spans(self, table):
        # Cells covered by a rowspan from a row above come first at their column.
        row = table["row"]
        while len(row) in table["pending"]:
            left = table["pending"].pop(len(row))
            row.append("")
            if left > 1:
                table["pending"][len(row) - 1] = left - 1

    def handle_endtag(self, tag):
        if tag in HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        if not self.stack:
            return
        table = self.stack[-1]
        if tag in ("td", "th") and table["cell"] is not None:
            cell = table["cell"]
            text = re.sub(r"\s+", " ", "".join(cell["text"])).strip()
            row = table["row"]
            start = len(row)
            row.append(text)
            for _ in range(cell["colspan"] - 1):
                row.append("")
            if cell["rowspan"] > 1:
                for column in range(start, start + cell["colspan"]):
                    table["pending"][column] = cell["rowspan"] - 1
            table["cell"] = None
        elif tag == "tr" and table["row"] is not None:
            self._fill_spans(table)
            table["rows"].append(table["row"])
            table["row"] = None
        elif tag == "table":
            self.stack.pop()
            if table["data"] and len(table["rows"]) >= 1:
                self.tables.append(table["rows"])

    def handle_data(self, data):
        if self.hidden or not self.stack:
            return
        cell = self.stack[-1]["cell"]
        if cell is not None:
            cell["text"].append(data)


parser = Tables()
with open(sys.argv[1], encoding="utf-8", errors="replace") as handle:
    parser.feed(handle.read())
print(json.dumps(parser.tables, ensure_ascii=False))
