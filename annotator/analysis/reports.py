"""Tables a format reports about a project (e.g. a ranking of systems), in one shape for every front end.

Why: `flask rank` prints them, the admin's ranking page draws them, exports write them as CSV and JSON;
a format builds a `Report` once and none of those needs to know what it holds.
"""
from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotator.core.csv_cells import csv_text
from annotator.core.private_files import private_folder, write_private_text


@dataclass
class Table:
    name: str                  # also the CSV file name (<name>.csv)
    title: str
    columns: list[str]
    rows: list[list[Any]]
    note: str = ""

    def records(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row)) for row in self.rows]


@dataclass
class Report:
    title: str
    tables: list[Table] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"title": self.title, "notes": self.notes,
                "tables": [{"name": t.name, "title": t.title, "note": t.note, "rows": t.records()}
                           for t in self.tables]}

    def to_text(self) -> str:
        lines = [self.title, *(f"  {note}" for note in self.notes)]
        for table in self.tables:
            cells = [[_cell(v) for v in row] for row in table.rows]
            widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(table.columns)]
            lines += ["", table.title + (f" ({table.note})" if table.note else ""),
                      "  " + "  ".join(c.ljust(w) for c, w in zip(table.columns, widths))]
            lines += ["  " + "  ".join(v.ljust(w) for v, w in zip(row, widths)) for row in cells]
        return "\n".join(lines) + "\n"

    def write(self, folder: Path) -> list[Path]:
        """Every table as <name>.csv and the whole report as report.json in `folder`, 0600 in a folder made 0700,
        as every file the server writes from its data (core/private_files.py)."""
        private_folder(folder)
        paths = []
        for table in self.tables:
            paths.append(folder / f"{table.name}.csv")
            write_private_text(paths[-1], csv_text(table.columns, (["" if v is None else v for v in row]
                                                                  for row in table.rows)))
        paths.append(folder / "report.json")
        write_private_text(paths[-1], json.dumps(self.to_json(), indent=2, ensure_ascii=False, default=_json))
        return paths


def _cell(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{value:.4f}" if isinstance(value, float) else str(value)


def _json(value: Any) -> Any:
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    raise TypeError(f"{type(value).__name__} is not JSON serialisable")
