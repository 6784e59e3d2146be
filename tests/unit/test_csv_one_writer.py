"""Every CSV or TSV file the application writes goes through annotator/core/csv_cells.py, which quotes the cells a
spreadsheet would run: a new export, table or report that wrote its own would skip it. This test is the grep."""
from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
WRITER = ROOT / "annotator" / "core" / "csv_cells.py"
# The ways Python code here could write CSV: the csv module's writers (also imported by name), pandas' and
# polars' writers, pyarrow's CSV module.
WRITING = re.compile(r"\bcsv\.(writer|DictWriter)\b|\bfrom csv import\b.*\b(writer|DictWriter)\b|\.to_csv\("
                     r"|\.write_csv\(|\bpyarrow\.csv\b|\bpyarrow import csv\b")


def offenders(files: list[Path]) -> list[str]:
    return [f"{path.relative_to(ROOT) if path.is_relative_to(ROOT) else path.name}:{n}: {line.strip()[:100]}"
            for path in files
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
            if WRITING.search(line) and not line.lstrip().startswith("#")]


def application_modules() -> list[Path]:
    return sorted(p for p in (ROOT / "annotator").rglob("*.py") if p != WRITER and "__pycache__" not in p.parts)


def test_no_module_but_csv_cells_writes_csv() -> None:
    found = offenders(application_modules())
    assert found == [], "CSV written outside annotator/core/csv_cells.py:\n" + "\n".join(found)


def test_the_grep_finds_each_way_of_writing_csv(tmp_path: Path) -> None:
    lines = ["w = csv.writer(out)", "w = csv.DictWriter(out, cols)", "from csv import writer",
             "frame.to_csv(path)", "frame.write_csv(path)", "import pyarrow.csv as pc", "from pyarrow import csv"]
    for n, line in enumerate(lines):
        sample = tmp_path / f"sample_{n}.py"
        sample.write_text(line + "\n", encoding="utf-8")
        assert offenders([sample]), line


def test_the_writer_module_is_where_the_grep_allows_it() -> None:
    assert WRITER.exists() and offenders([WRITER])
