"""The kept figures a server process has read lately, so that its next page of the same figures reads no payload.

Why: a big project's kept figures are megabytes (figures/kept.py), and an admin opening its pages one after another
read, verified and unpickled the same ones on every request: on PostgreSQL, the items page of a million-label
Track-2 check spent about half its time there (bench/results/2026-11-29-items-pages.md). A kept row never changes
its figures under the same identity: a computation writes its row anew, with its own start time and stamp. So the
figures are remembered by (row id, name, stamp, start time) and found again by reading those columns only, which the
page reads anyway to decide whether the figures may be shown; another process's new computation changes them, and
the next page reads the new payload.

A remembered value is shared by the process's later requests: the pages treat kept figures as read-only, as they
do the kept gold they fold (tests/web/test_kept_pages.py checks that every page leaves them as they were read).
What is kept is bounded by `KEPT_RESULTS_MEMORY` bytes of payload per process (default 64 MB; 0: none), the least
recently used dropped first, and a payload larger than the bound is not kept at all.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable
from typing import Any

from flask import current_app

DEFAULT_BYTES = 64 * 1024 * 1024
EXTENSION = "kept_figures_read"


class ReadFigures:
    """Values by key, each with the size of the payload it was read from; at most `limit` bytes in all."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.size = 0
        self._entries: OrderedDict[Hashable, tuple[tuple[Any], int]] = OrderedDict()
        self._lock = threading.Lock()   # a server's thread computing figures reads them too

    def get(self, key: Hashable) -> tuple[Any] | None:
        with self._lock:
            found = self._entries.get(key)
            if found is None:
                return None
            self._entries.move_to_end(key)
            return found[0]

    def put(self, key: Hashable, value: tuple[Any], size: int) -> None:
        if size > self.limit:
            return
        with self._lock:
            if key in self._entries:
                return
            self._entries[key] = (value, size)
            self.size += size
            while self.size > self.limit:
                _, (_, dropped) = self._entries.popitem(last=False)
                self.size -= dropped

    def __len__(self) -> int:
        return len(self._entries)

    def values(self) -> list[tuple[Hashable, Any]]:
        """(key, value) of everything kept, oldest first: for the tests that check pages leave them as read."""
        with self._lock:
            return [(key, value[0]) for key, (value, _) in self._entries.items()]


def read_figures() -> ReadFigures:
    """This app's memory of kept figures (made on first use, sized by `KEPT_RESULTS_MEMORY`)."""
    found = current_app.extensions.get(EXTENSION)
    if found is None:
        limit = int(current_app.config.get("KEPT_RESULTS_MEMORY", DEFAULT_BYTES))
        found = current_app.extensions.setdefault(EXTENSION, ReadFigures(limit))
    assert isinstance(found, ReadFigures)
    return found
