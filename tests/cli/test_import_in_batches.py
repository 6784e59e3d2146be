"""A declared campaign's items file of any size: read as a stream and stored in batches (ITEM_BATCH, made small
here so that a few items span several batches, as a million do), still all or nothing, each database lookup
bounded by the batch and not by the file. The million items themselves are timed in bench/uploads.py."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import event, func, select

from annotator.campaigns import projects
from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.declared.definition_reader import definition_from_file
from annotator.declared.items import iter_items
from tests.support.declared_projects import EVERY_KIND

BATCH = 2


def _line(external_id: str, text: str = "A sentence.") -> str:
    return json.dumps({"id": external_id, "text": text, "other": "Another sentence.", "text_id": external_id,
                       "other_id": "x"}) + "\n"


def _file(tmp_path: Path, lines: list[str], name: str = "items.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(lines), encoding="utf-8")
    return path


def _import(app, path: Path, slug: str = "quotes"):  # type: ignore[no-untyped-def]
    return app.test_cli_runner().invoke(args=["import", "custom", str(path), "--definition", str(EVERY_KIND),
                                              "--project", slug])


def _stored_ids(slug: str = "quotes") -> list[str]:
    db.session.remove()
    return list(db.session.scalars(select(Item.external_id).join(Project).where(Project.slug == slug)
                                   .order_by(Item.position)))


@pytest.fixture
def small_batches(monkeypatch):  # type: ignore[no-untyped-def]
    monkeypatch.setattr(projects, "ITEM_BATCH", BATCH)


def test_items_spanning_several_batches_are_all_stored_in_file_order(app, tmp_path, small_batches):
    ids = [f"s{n}" for n in range(7)]
    result = _import(app, _file(tmp_path, [_line(i, f"Sentence {i}.") for i in ids]))
    assert result.exit_code == 0, result.output
    assert "Imported 7 items" in result.output
    assert _stored_ids() == ids
    db.session.remove()
    assert db.session.scalars(select(Item.position).order_by(Item.position)).all() == list(range(7))
    assert db.session.scalar(select(Item.payload).where(Item.external_id == "s6"))["text"] == "Sentence s6."


def test_more_items_in_batches_follow_the_projects_own(app, tmp_path, small_batches):
    assert _import(app, _file(tmp_path, [_line(f"a{n}") for n in range(3)], "first.jsonl")).exit_code == 0
    assert _import(app, _file(tmp_path, [_line(f"b{n}") for n in range(5)], "more.jsonl")).exit_code == 0
    db.session.remove()
    assert db.session.scalars(select(Item.position).order_by(Item.position)).all() == list(range(8))
    assert _stored_ids() == ["a0", "a1", "a2", "b0", "b1", "b2", "b3", "b4"]


def test_an_id_repeated_in_a_later_batch_names_both_lines_and_stores_nothing(app, tmp_path, small_batches):
    lines = [_line("a"), _line("b"), _line("c"), "\n", _line("d"), _line("b")]
    result = _import(app, _file(tmp_path, lines))
    assert result.exit_code != 0
    assert "items.jsonl, line 6, column \"id\": the id 'b' is also the id of line 2" in result.output
    assert "Nothing was imported." in result.output
    assert _stored_ids() == [] and not db.session.scalar(select(func.count()).select_from(Project))


def test_an_id_repeated_within_one_batch_names_both_lines(app, tmp_path, monkeypatch):
    monkeypatch.setattr(projects, "ITEM_BATCH", 10)
    result = _import(app, _file(tmp_path, [_line("a"), _line("b"), _line("a")]))
    assert result.exit_code != 0
    assert "items.jsonl, line 3, column \"id\": the id 'a' is also the id of line 1" in result.output


def test_an_id_the_project_has_found_in_a_later_batch_adds_nothing(app, tmp_path, small_batches):
    assert _import(app, _file(tmp_path, [_line("kept1"), _line("kept2")], "first.jsonl")).exit_code == 0
    result = _import(app, _file(tmp_path, [_line("n1"), _line("n2"), _line("n3"), _line("n4"), _line("kept2")],
                                "more.jsonl"))
    assert result.exit_code != 0
    assert "more.jsonl, line 5: project 'quotes' already has item kept2" in result.output
    assert _stored_ids() == ["kept1", "kept2"]


def test_a_broken_line_after_several_stored_batches_leaves_nothing(app, tmp_path, small_batches):
    lines = [_line(f"s{n}") for n in range(6)] + ['{"id": "s6", "text": ]\n']
    result = _import(app, _file(tmp_path, lines))
    assert result.exit_code != 0 and "items.jsonl, line 7: not valid JSON" in result.output
    assert _stored_ids() == [] and not db.session.scalar(select(func.count()).select_from(Project))


def test_no_statement_of_an_import_carries_more_rows_or_ids_than_a_batch(app, tmp_path, small_batches):
    """Inserts go a batch at a time, and the lookup of a refused batch's ids holds that batch's ids only."""
    widest: list[int] = []
    lookups: list[int] = []

    def count(conn, cursor, statement, parameters, context, executemany):  # type: ignore[no-untyped-def]
        if executemany:
            widest.append(len(parameters))   # rows
        if "external_id IN" in statement:
            lookups.append(len(parameters))
    engine = db.engines[None] if hasattr(db, "engines") else db.engine
    assert _import(app, _file(tmp_path, [_line(f"s{n}") for n in range(9)], "first.jsonl")).exit_code == 0
    event.listen(engine, "before_cursor_execute", count)
    try:
        more = _file(tmp_path, [_line(f"n{n}") for n in range(6)] + [_line("s8")], "more.jsonl")
        assert _import(app, more).exit_code != 0
    finally:
        event.remove(engine, "before_cursor_execute", count)
    assert lookups and max(lookups) <= BATCH + 1   # the batch's ids and the project's id
    assert max(widest, default=0) <= BATCH   # on PostgreSQL the rows go by COPY, a batch at a time too
    assert _stored_ids() == [f"s{n}" for n in range(9)]


def test_the_items_file_is_read_as_a_stream(tmp_path):
    """The first items come before the file is read to its end: a problem further on is met only there."""
    path = _file(tmp_path, [_line("a"), _line("b"), "not JSON\n"])
    items = iter_items(path, definition_from_file(EVERY_KIND))
    assert [next(items).external_id, next(items).external_id] == ["a", "b"]
    with pytest.raises(Exception, match="line 3: not valid JSON"):
        next(items)
