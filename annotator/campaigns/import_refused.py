"""An import refused, with nothing kept: what the pages and commands that import catch and show.

A module of its own, apart from imports.py, so that a shared task's own import (RuArg-2022's premise stage, in its
folder) can use it: imports.py reads the formats' lookups, which import the shared tasks' formats, whose modules
would import imports.py back while it is being imported.
"""
from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from annotator.core.errors import FormatError
from annotator.core.options import OptionError


class ImportRefused(Exception):
    """An import that changed nothing; the message says what is wrong and where, and ends "Nothing was imported.";
    its cause (`__cause__`) is the located FormatError or OptionError, whose file, line and column a page shows.

    `hint`: what the refused file looks like when it is not the kind the format reads (file_kinds.py), or None.
    """

    hint: str | None = None


@contextmanager
def refused_as_import() -> Iterator[None]:
    """A FormatError or OptionError raised in the block goes on as ImportRefused, its cause kept: the domain action
    it is raised in rolls everything back (core/domain_action.py)."""
    try:
        yield
    except (FormatError, OptionError) as error:
        raise ImportRefused(f"{error}\nNothing was imported.") from error
