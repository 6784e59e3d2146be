"""A declared campaign's files written on Windows (CRLF) or an old Mac (CR) are read with LF line ends: a line
break inside a quoted cell of the items is LF (YAML, and Python reading the guidelines file, see any line end as LF)."""
from __future__ import annotations

from pathlib import Path

from annotator.declared.definition_reader import definition_from_file
from annotator.declared.items import read_items

DEFINITION = """name: Review tone
guidelines: guidelines.md
show: [review]
questions:
  - {id: tone, kind: choice, prompt: "What is the review's tone?", options: [negative, mixed, positive]}
"""


def test_a_line_break_inside_a_quoted_csv_cell_is_lf_in_the_items_payload(tmp_path: Path):
    (tmp_path / "guidelines.md").write_text("Read the review.", encoding="utf-8")
    (tmp_path / "tone.yaml").write_text(DEFINITION, encoding="utf-8")
    (tmp_path / "items.csv").write_bytes(b'id,review\r\nr1,"Works.\r\nWould buy again."\r\nr2,"Broke.\rSent back."\r\n')
    items = read_items(tmp_path / "items.csv", definition_from_file(tmp_path / "tone.yaml"))
    assert [item.payload["review"] for item in items] == ["Works.\nWould buy again.", "Broke.\nSent back."]
