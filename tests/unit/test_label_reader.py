"""The label frame read for speed (annotator/analysis/label_reader.py): the same rows, in the same order, as the
plain query.

Data: the KPA excerpt of tests/data/kpa2021 (26 arguments of one test topic), every argument voted by
three annotators, each matching the argument's first key point or none.
"""
from __future__ import annotations

import pandas as pd
import pytest
from sqlalchemy import select

from annotator.analysis import label_reader
from annotator.analysis.results import LABEL_COLUMNS, labels_frame
from annotator.core.extensions import db
from annotator.core.models import Item, Label
from tests.support.voting import vote_everywhere


@pytest.fixture(autouse=True)
def arrow_from_the_first_row(monkeypatch):  # type: ignore[no-untyped-def]
    """The excerpt counts as big: on PostgreSQL its labels are read by ADBC, as a big project's are (below
    ARROW_FROM_ROWS the session's driver reads them, see the last test)."""
    monkeypatch.setattr(label_reader, "ARROW_FROM_ROWS", 0)


def _voted_project(kpa_project, make_user):  # type: ignore[no-untyped-def]
    project = kpa_project(k=3)
    users = [make_user(name) for name in ("ann", "bob", "cyd")]
    vote_everywhere(project, users, lambda item, user: {
        "matches": [item.payload["key_points"][0]["id"]] if (item.position + user.id) % 2 else []})
    return project


def _by_the_plain_query(project) -> pd.DataFrame:  # type: ignore[no-untyped-def]
    """What labels_frame means: the counted label rows with their item's external id, in item then vote order."""
    rows = db.session.execute(
        select(Item.external_id, Item.position, Label.unit, Label.field, Label.value, Label.user_id,
               Label.assignment_id)
        .join(Item, Item.id == Label.item_id).where(Label.project_id == project.id)
        .order_by(Item.position, Label.assignment_id, Label.id)).all()
    return pd.DataFrame([tuple(row) for row in rows], columns=LABEL_COLUMNS)


def _without_arrow(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Make labels_frame read through the session's DB-API cursor, as it does on SQLite and in a writing
    transaction on PostgreSQL."""
    monkeypatch.setattr(label_reader, "_arrow_table", lambda connection, query: None)


def test_the_frame_is_the_plain_query_in_item_then_vote_order(kpa_project, make_user):
    project = _voted_project(kpa_project, make_user)
    frame = labels_frame(project)
    assert len(frame) > 7 * 3
    pd.testing.assert_frame_equal(frame, _by_the_plain_query(project), check_exact=True)


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_postgresql_reads_committed_labels_through_arrow(kpa_project, make_user, monkeypatch):
    project = _voted_project(kpa_project, make_user)
    monkeypatch.setattr(label_reader, "_driver_columns", None)  # the Arrow path or nothing
    pd.testing.assert_frame_equal(labels_frame(project), _by_the_plain_query(project), check_exact=True)


def test_the_frame_read_in_small_chunks_is_the_plain_query_in_item_then_vote_order(kpa_project, make_user,
                                                                                    monkeypatch):
    project = _voted_project(kpa_project, make_user)
    _without_arrow(monkeypatch)
    monkeypatch.setattr(label_reader, "CHUNK", 7)  # many chunks, their edges inside votes
    frame = labels_frame(project)
    assert len(frame) > 7 * 3
    pd.testing.assert_frame_equal(frame, _by_the_plain_query(project), check_exact=True)


@pytest.mark.parametrize("reader", ["fastest", "DB-API cursor in chunks"])
def test_text_is_held_in_arrow_buffers_not_as_a_python_string_per_row(kpa_project, make_user, monkeypatch,
                                                                      reader):
    """What makes a million labels cheap to hold and group: no Python object per cell."""
    project = _voted_project(kpa_project, make_user)
    if reader != "fastest":
        _without_arrow(monkeypatch)
        monkeypatch.setattr(label_reader, "CHUNK", 7)
    frame = labels_frame(project)
    for column in ("item", "unit", "field", "value"):
        assert frame[column].dtype == "str" and frame[column].dtype.storage == "pyarrow", column


def test_labels_written_in_the_open_transaction_are_read(kpa_project, make_user):
    """A connection of ADBC's own would not see them: the reader must read on the session's then."""
    project = _voted_project(kpa_project, make_user)
    before = len(labels_frame(project))
    vote = db.session.scalar(select(Label).where(Label.project_id == project.id).limit(1))
    db.session.add(Label(assignment_id=vote.assignment_id, project_id=project.id, item_id=vote.item_id,
                         user_id=vote.user_id, unit="kp_extra", field="match", value="1"))
    db.session.flush()  # written, not committed
    assert len(labels_frame(project)) == before + 1
    db.session.rollback()


def _label_rows(project):  # type: ignore[no-untyped-def]
    return select(Label.id, Label.unit).where(Label.project_id == project.id)


def _read_on(engine, project):  # type: ignore[no-untyped-def]
    with engine.connect() as connection:
        columns = label_reader.read_columns(connection, _label_rows(project),
                                            {"id": label_reader.INT, "unit": label_reader.TEXT})
    return sorted(zip(columns["id"].tolist(), list(columns["unit"])))


def _session_rows(project):  # type: ignore[no-untyped-def]
    return sorted(tuple(row) for row in db.session.execute(_label_rows(project)))


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_arrow_reads_the_schema_the_session_reads_when_connect_args_choose_it(kpa_project, make_user,
                                                                              monkeypatch, database_url):
    """The engine's connect_args (e.g. from SQLALCHEMY_ENGINE_OPTIONS) override the URL's search_path for
    the session's connections; ADBC's connection must get them too, not read another schema's labels."""
    from sqlalchemy import create_engine

    from tests.conftest import POSTGRES_URL, with_search_path
    project = _voted_project(kpa_project, make_user)
    db.session.commit()
    schema = database_url.split("search_path%3D")[1]
    engine = create_engine(with_search_path(POSTGRES_URL, "public"),
                           connect_args={"options": f"-csearch_path={schema}"})
    monkeypatch.setattr(label_reader, "_driver_columns", None)  # the Arrow path or nothing
    try:
        assert _read_on(engine, project) == _session_rows(project)
    finally:
        engine.dispose()


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_arrow_connects_with_a_password_that_needs_quoting(kpa_project, make_user, monkeypatch, database_url):
    from sqlalchemy import create_engine
    project = _voted_project(kpa_project, make_user)
    db.session.commit()
    engine = create_engine(database_url.replace("postgres@", "postgres:top%20secret@"))  # trust auth: any password
    monkeypatch.setattr(label_reader, "_driver_columns", None)
    try:
        assert _read_on(engine, project) == _session_rows(project)
    finally:
        engine.dispose()


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_when_adbc_cannot_connect_the_session_reads_the_labels_and_the_password_is_not_logged(
        kpa_project, make_user, monkeypatch, database_url, caplog):
    from adbc_driver_manager import AdbcStatusCode
    from adbc_driver_postgresql import dbapi
    from sqlalchemy import create_engine
    project = _voted_project(kpa_project, make_user)
    db.session.commit()
    engine = create_engine(database_url.replace("postgres@", "postgres:s3cret-word@"))

    def refused(conninfo, *args, **kwargs):  # type: ignore[no-untyped-def]
        raise dbapi.OperationalError(f"could not connect with {conninfo}: too many clients already",
                                     status_code=AdbcStatusCode.IO)

    monkeypatch.setattr(dbapi, "connect", refused)
    try:
        with caplog.at_level("WARNING", logger=label_reader.__name__):
            assert _read_on(engine, project) == _session_rows(project)
    finally:
        engine.dispose()
    assert "instead of ADBC" in caplog.text and "too many clients" in caplog.text
    assert "s3cret-word" not in caplog.text


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
def test_fewer_rows_than_arrow_from_rows_are_read_by_the_sessions_driver_without_opening_adbc(
        kpa_project, make_user, monkeypatch):
    """ADBC's connection costs more to open than the driver spends on a small project's labels."""
    from adbc_driver_postgresql import dbapi
    project = _voted_project(kpa_project, make_user)
    db.session.commit()
    rows = len(_session_rows(project))
    opened: list[str] = []
    connect = dbapi.connect

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append("ADBC")
        return connect(*args, **kwargs)

    monkeypatch.setattr(dbapi, "connect", counted)
    monkeypatch.setattr(label_reader, "ARROW_FROM_ROWS", rows + 1)
    pd.testing.assert_frame_equal(labels_frame(project), _by_the_plain_query(project), check_exact=True)
    assert opened == []
    monkeypatch.setattr(label_reader, "ARROW_FROM_ROWS", rows)  # as many rows as the bound: ADBC reads them
    pd.testing.assert_frame_equal(labels_frame(project), _by_the_plain_query(project), check_exact=True)
    assert opened == ["ADBC"]
