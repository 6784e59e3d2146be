"""Emphasis-selection submissions made from a gold file, for the scorer, CLI and leaderboard tests."""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path


def from_gold(gold: Path, value: Callable[[str], str]) -> str:
    """A submission in the example writer's layout (``word_id TAB word TAB score TAB``, a blank line first and
    after each sentence) whose scores are ``value(probability text)`` of the gold's 5th field."""
    out = ["\n"]
    for block in gold.read_text(encoding="utf-8").strip("\n").split("\n\n"):
        out.extend(f"{f[0]}\t{f[1]}\t{value(f[4])}\t\n" for f in (line.split("\t") for line in block.split("\n")))
        out.append("\n")
    return "".join(out)
