"""A database file the lifecycle tests build once for the whole run, whatever process (xdist worker) asks first.

The upgrades and downgrades of the kept database run `flask db` in a new process, as a user runs it (2-3 s each on
the 2-core machine). A module-scoped fixture built its file once per process that ran one of the module's tests, and
several modules built the same one (the kept database upgraded to head: the cloze, emphasis and KPA downgrade tests
and the upgrade test; the RuArg upgrade test has a kept database of its own): under `make test`'s four processes
the same file was built up to four times per module.

`built_once(factory, name, build)` runs `build(path)` once for the run: the first process to ask builds the file
under a lock in the folder the run's processes share (the base temporary folder's parent under xdist, the base
folder itself otherwise, so never a folder of an earlier run), the others wait for it. The file is never changed
after: each caller copies it, as the fixtures copied the file they built, and changes only its copy. A build that
fails leaves nothing, and the next process that asks builds it again (and fails in its own test the same way).
"""
from __future__ import annotations

import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], None]) -> Path:
    """The file `build(path)` makes, made by the first process of the run that asks; the caller copies it."""
    base = factory.getbasetemp()
    folder = (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "built-once"
    folder.mkdir(exist_ok=True)
    done = folder / name
    with open(folder / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)   # released when the file closes, by a failed build too
        if not done.exists():
            building = folder / f"building-{os.getpid()}" / name
            shutil.rmtree(building.parent, ignore_errors=True)   # what a failed build of this process left
            building.parent.mkdir()
            build(building)
            os.replace(building, done)
            shutil.rmtree(building.parent)
    return done
