"""The app's own style sheets size text in rem or em, never in px: the reader's browser font setting counts.

A size in px ignores the default font size the reader chose in the browser (WCAG 1.4.4, resize text);
rem and em follow it. The browser side (a larger default font size really enlarges the pages) is in
tests/browser/test_accessibility.py.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[2] / "static"
SHEETS = sorted(p for p in STATIC.rglob("*.css") if "vendor" not in p.parts)
# font-size: 14px, or the font shorthand's size (font: 14px/1.5 ..., font: bold 12pt serif)
ABSOLUTE_FONT = re.compile(r"\bfont(?:-size)?\s*:[^;}]*?\b\d*\.?\d+(?:px|pt|pc|cm|mm|in)\b", re.IGNORECASE)


def test_there_are_style_sheets_to_check() -> None:
    """The check below looks at files: it must find the app's style sheets where they are served from."""
    assert STATIC / "style.css" in SHEETS and len(SHEETS) > 1


@pytest.mark.parametrize("sheet", SHEETS, ids=lambda p: str(p.relative_to(STATIC)))
def test_no_font_size_is_in_absolute_units(sheet: Path) -> None:
    """Every font size is relative (rem, em, %): a px or pt size would not grow with the reader's setting."""
    found = [(number, line.strip()) for number, line in enumerate(sheet.read_text(encoding="utf-8").splitlines(), 1)
             if ABSOLUTE_FONT.search(line)]
    assert not found, f"{sheet.name}: font sizes in absolute units: {found}"


def test_the_root_font_size_is_the_readers() -> None:
    """html's font size, if set at all, is a percentage of the browser's default, not a fixed size."""
    rules = re.findall(r"(?:^|})\s*html\s*{([^}]*)}", (STATIC / "style.css").read_text(encoding="utf-8"))
    sizes = [m for rule in rules for m in re.findall(r"font-size\s*:\s*([^;]+)", rule)]
    assert all(size.strip().endswith("%") for size in sizes), sizes
