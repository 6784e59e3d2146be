"""What a scorer declares: its metrics, options, gold layout and how its leaderboard ranks.

Kept apart from the registry (scorers.py) so that each task's module can declare its own `SCORER`
without importing the registry that reads it (through the task's SharedTask).
"""
from __future__ import annotations

import fnmatch
import zipfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from annotator.core.errors import SubmissionError
from annotator.core.options import Option
from annotator.lookups.score_report import ScoreReport

Metrics = Mapping[str, float]


def shared_places(keys: list[tuple[float, ...]]) -> list[int]:
    """Leaderboard places: 1 + the number of entries whose *first* sort key is strictly lower.

    Entries equal on the first key share a place and the next place is skipped ("5, 5, 7"), as KPA-2021's
    Table 2 places teams of equal mean rank; later keys only order the entries within a shared place.
    """
    firsts = [k[0] for k in keys]
    return [1 + sum(other < first for other in firsts) for first in firsts]


@dataclass(frozen=True)
class RankRule:
    """A leaderboard order other than "this metric, higher first".

    `keys` gives one sort key per entry (lower sorts first; equal keys keep the input order); the first
    element decides the place (equal first elements share one), the others only break ties in the listing.
    `column`, when set, is shown on the leaderboard with `value` per entry.
    """

    note: str
    keys: Callable[[list[Metrics]], list[tuple[float, ...]]]
    column: str | None = None
    value: Callable[[list[Metrics]], list[float]] | None = None


@dataclass(frozen=True)
class Scorer:
    """What a caller needs to know about a task's official metric without importing its module.

    ``rankings`` are the leaderboard orders the task used, the first being ``rank``'s default (a task may have
    ranked two metrics in separate lists).
    A ranking is a metric name or the name of one of ``rules``. ``gold_kind`` says whether the gold is one
    file or a folder of files (kept as a zip). ``read_gold(path, **options)`` reads the gold as scoring
    would and raises a located FormatError, so an unusable gold set is refused when it is uploaded.
    """

    name: str
    title: str
    metrics: tuple[str, ...]
    gold: str
    predictions: str
    options: tuple[Option, ...]
    rankings: tuple[str, ...]
    score_files: Callable[..., ScoreReport]
    read_gold: Callable[..., Any]
    gold_kind: Literal["file", "folder"] = "file"
    rules: dict[str, RankRule] = field(default_factory=dict)
    # The members a zipped submission may hold, as glob patterns of names at the zip's root: what the task's
    # CodaLab zips held. Empty: the scorer reads a plain file only, and a zip is refused.
    zip_members: tuple[str, ...] = ()
    # The options a submission chooses for itself (a subtask or track, where the task had several), offered on
    # the leaderboard's submission form; `guess_options(gold file name)` proposes them from the gold's name.
    submission_options: tuple[str, ...] = ()
    # The kinds of file a submission is (campaigns/file_kinds.py): a refused one of another kind is told so.
    submission_kinds: tuple[str, ...] = ()
    guess_options: Callable[[str], dict[str, Any]] | None = None

    @property
    def task(self) -> str:
        return self.name

    def option(self, name: str) -> Option:
        return next(o for o in self.options if o.name == name)

    def sort_keys(self, metrics: list[Metrics], by: str) -> list[tuple[float, ...]]:
        if by in self.rules:
            return self.rules[by].keys(metrics)
        if by in self.metrics:
            return [(-m[by],) for m in metrics]
        raise ValueError(f"{self.name}: cannot rank by {by!r}; use one of {', '.join(self.rankings)} "
                         "or a metric name")

    def read_gold_at(self, path: Path, options: Mapping[str, Any]) -> Any:
        return self.read_gold(path, **options)

    def check_zip_members(self, path: Path) -> None:
        """SubmissionError naming the member when a zipped submission holds one the scorer does not read (or in
        a folder, or twice), or none that it does; so nothing in a zip is silently left out of the score."""
        try:
            with zipfile.ZipFile(path) as archive:
                names = [i.filename for i in archive.infolist() if not i.is_dir() and not _ignored(i.filename)]
        except (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError) as error:
            raise SubmissionError(f"the zip cannot be read: {error}", file=path.name) from None
        expected = ", ".join(self.zip_members)
        if not self.zip_members:
            raise SubmissionError(f"a zip cannot be scored here; send the file itself ({self.predictions})",
                                  file=path.name)
        for name in names:
            if "/" in name or "\\" in name or not any(fnmatch.fnmatchcase(name, p) for p in self.zip_members):
                raise SubmissionError(f"the zip holds {name[:120]!r}, which the {self.title} scorer does not read: "
                                      f"it reads {expected} at the zip's root", file=path.name)
            if names.count(name) > 1:
                raise SubmissionError(f"the zip holds {name[:120]!r} twice", file=path.name)
        if not names:
            raise SubmissionError(f"the zip holds no file; it should hold {expected} at its root", file=path.name)


def _ignored(name: str) -> bool:
    """What archivers add on their own (macOS resource forks, Finder and Explorer files)."""
    parts = name.replace("\\", "/").split("/")
    return any(part in ("__MACOSX", ".DS_Store", "Thumbs.db") or part.startswith("._") for part in parts)
