"""A database file the lifecycle tests build once for the whole run, whatever process (xdist worker) asks first.

The upgrades and downgrades of the kept database run `flask db` in a new process, as a user runs it (2-3 s each on
the 2-core machine). A module-scoped fixture built its file once per process that ran one of the module's tests, and
several modules built the same one (the kept database upgraded to head: the cloze, emphasis and KPA downgrade tests
and the upgrade test; the RuArg upgrade test has a kept database of its own): under `make test`'s four processes
the same file was built up to four times per module.

`built_once(factory, name, build, target)` writes to `target` the bytes of the file `build(path)` makes, built by
the first process of the run to ask for `name` and kept for the others in the run's shared files (`_run_shared`,
tests/conftest.py, as the demo's rows are: under a lock the others wait on). Each caller gets a file of its own,
as the fixtures copied the file they built, and changes only that. A build that fails keeps nothing, and the next
process that asks builds it again (and fails in its own test the same way).
"""
from __future__ import annotations

import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import _run_shared


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None], target: Path) -> Path:
    """`target`, a copy of the file `build(path)` makes, made by the first process of the run that asks."""
    def make() -> bytes:
        with tempfile.TemporaryDirectory(dir=factory.getbasetemp()) as folder:
            path = Path(folder) / name
            build(path)
            return path.read_bytes()
    content, _ = _run_shared(factory, "lifecycle-file").get_or_make(name, make)
    target.write_bytes(content)
    return target
