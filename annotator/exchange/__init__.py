"""Bridges between the shared tasks' files (formats/) and projects in the database.

One module per file format, each with `import_files(...)` and `export_files(project, out_dir)`;
the CLI and the admin download find them here by format name.
"""
from __future__ import annotations

from types import ModuleType

from . import emphasis2020, kpa2021

EXCHANGES: dict[str, ModuleType] = {"kpa2021": kpa2021, "emphasis2020": emphasis2020}


def exchange_for(format_name: str) -> ModuleType:
    try:
        return EXCHANGES[format_name]
    except KeyError:
        raise KeyError(f"unknown format {format_name!r}; known: {', '.join(sorted(EXCHANGES))}") from None
