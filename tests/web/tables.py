"""The tables of an HTML page as text, for tests that read what a page shows in its cells."""
from __future__ import annotations

from html.parser import HTMLParser


class _Tables(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tables: list[dict[str, object]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table":
            self.tables.append({"class": dict(attrs).get("class") or "", "rows": []})
        elif tag == "tr" and self.tables:
            self.tables[-1]["rows"].append([])  # type: ignore[attr-defined]
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None and self.tables:
            self.tables[-1]["rows"][-1].append(" ".join("".join(self._cell).split()))  # type: ignore[index]
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def tables(html: str, css_class: str | None = None) -> list[list[list[str]]]:
    """Each table's rows (header row first) of cell texts; only tables of `css_class` when it is given."""
    parser = _Tables()
    parser.feed(html)
    return [t["rows"] for t in parser.tables  # type: ignore[misc]
            if css_class is None or css_class in str(t["class"]).split()]


def column(table: list[list[str]], header: str) -> list[str]:
    """The cells under `header` (the first row's cell of that text)."""
    index = table[0].index(header)
    return [row[index] for row in table[1:] if len(row) > index]
