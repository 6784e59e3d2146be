"""The whole official train and dev files through the whole pipeline (import with votes -> agreement,
export), against the task paper's Fleiss' kappa and the released bytes. Skipped without ../shared/data."""
from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

from annotator.analysis.results import project_agreement
from annotator.core.extensions import db
from annotator.core.models import Project
from tests.conftest import SHARED_DATA

SHARED = SHARED_DATA / "emphasis2020"
OFFICIAL = SHARED / "train_dev_data"
pytestmark = pytest.mark.shared_data


def _import(app, split: str, path: Path | None = None, votes: bool = True) -> None:  # type: ignore[no-untyped-def]
    """Import the split (train.txt, dev.txt, or the given file) as `flask import` does."""
    result = app.test_cli_runner().invoke(args=["import", "emphasis2020", str(path or OFFICIAL / f"{split}.txt"),
                                                "--project", split, *(["--with-votes"] if votes else [])])
    assert result.exit_code == 0, result.output


def _export(app, tmp_path: Path, split: str) -> Path:  # type: ignore[no-untyped-def]
    out = tmp_path / "out"
    result = app.test_cli_runner().invoke(args=["export", "emphasis2020", "--project", split, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return out


@pytest.mark.parametrize("split, emphasis, bio", [
    ("train", 0.245991, 0.231743),  # the paper's 24.60 is the binary figure on train
    ("dev", 0.242606, 0.227109),
])
def test_imported_with_votes_the_split_has_the_published_kappa_and_exports_the_released_bytes(
        app, tmp_path, split, emphasis, bio):
    """One import of each file (the train file's 291,600 labels take most of a minute per engine) for both
    ends of the pipeline: agreement of the imported votes, and the export of them."""
    _import(app, split)
    fields = {f.field: f for f in project_agreement(db.session.scalar(select(Project)))}
    assert round(fields["emphasis"].fleiss_kappa.value, 6) == emphasis
    assert round(fields["emphasis.bio"].fleiss_kappa.value, 6) == bio   # the definition's name of the tag field
    assert fields["emphasis"].left_out == []
    assert (_export(app, tmp_path, split) / f"{split}.txt").read_bytes() == (OFFICIAL / f"{split}.txt").read_bytes()


def test_the_trial_file_imported_with_votes_exports_the_released_bytes(app, tmp_path):
    path = SHARED / "trial_data" / "trial_data.txt"
    _import(app, "trial_data", path)
    assert (_export(app, tmp_path, "trial_data") / "trial_data.txt").read_bytes() == path.read_bytes()


def test_the_words_only_test_file_round_trips(app, tmp_path):
    path = SHARED / "test_data" / "test_data.txt"
    _import(app, "test_data", path, votes=False)
    assert (_export(app, tmp_path, "test_data") / "test_data_words_only.txt").read_bytes() == path.read_bytes()


def test_the_votes_go_in_by_the_thousand_not_one_statement_each(app):
    """Bulk by statements, not by seconds: the dev file's labels (9 votes on every word) go in with a
    statement per thousand or more. How long the whole train file takes is measured by the benchmarks
    (bench/aggregate.py), not asserted by a test."""
    from sqlalchemy import event, func

    from annotator.core.models import Label
    statements: list[str] = []

    def count(conn, cursor, statement, *rest):  # type: ignore[no-untyped-def]
        statements.append(statement)
    event.listen(db.engine, "before_cursor_execute", count)
    try:
        _import(app, "dev")
    finally:
        event.remove(db.engine, "before_cursor_execute", count)
    labels = db.session.scalar(select(func.count()).select_from(Label))
    assert labels > 30_000  # 39,465 stored from dev.txt
    assert len(statements) < labels / 1000, f"{len(statements)} statements for {labels} labels"
