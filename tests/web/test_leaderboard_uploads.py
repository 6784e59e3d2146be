"""Leaderboard uploads are bounded: file names, zip bombs, empty gold, and no server path in a message."""
from __future__ import annotations

import io
import tempfile
import zipfile

import pytest
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import GoldSet, Submission
from tests.web.conftest import csrf_token
from tests.web.test_leaderboards import _admin, _create_kpa_board, _kpa_gold_zip, _predictions, _submit


def _new_gold(client, task: str, content: bytes, filename: str, **fields):  # type: ignore[no-untyped-def]
    page = client.get(f"/admin/leaderboards/new/{task}").get_data(as_text=True)
    return client.post(f"/admin/leaderboards/new/{task}", content_type="multipart/form-data", data={
        "csrf_token": csrf_token(page), "name": "gold", **fields, "file": (io.BytesIO(content), filename)})


def _bomb(name: str, size: int = 200 * 1024 * 1024) -> bytes:
    """A zip whose one member unpacks to `size` zero bytes from a few hundred kB."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open(name, "w", force_zip64=True) as member:
            block = bytes(1024 * 1024)
            for _ in range(size // len(block)):
                member.write(block)
    return buffer.getvalue()


def _gold_sets() -> int:
    return db.session.scalar(select(func.count()).select_from(GoldSet))


@pytest.mark.parametrize("filename", ["..", ".", "x" * 256 + ".txt"])
def test_a_gold_file_name_that_cannot_be_a_file_is_a_clear_400(login, make_user, filename):
    client = _admin(login, make_user)
    response = _new_gold(client, "emphasis2020", b"x\n", filename)
    assert response.status_code == 400 and "cannot be used as a file name" in response.get_data(as_text=True)
    assert _gold_sets() == 0


@pytest.mark.parametrize("filename", ["..", "x" * 300])
def test_a_submission_file_name_that_cannot_be_a_file_is_a_clear_400(login, make_user, filename):
    client = _admin(login, make_user)
    board = _create_kpa_board(client)
    response = _submit(client, board, "Team", _predictions("random"), filename=filename)
    assert response.status_code == 400 and "cannot be used as a file name" in response.get_data(as_text=True)


def test_a_zip_bomb_submission_is_refused_before_it_is_read(login, make_user):
    client = _admin(login, make_user)
    board = _create_kpa_board(client)
    response = _submit(client, board, "Bomb", _bomb("predictions.json"), filename="predictions.zip")
    assert response.status_code == 400 and "too compressed" in response.get_data(as_text=True)
    assert db.session.scalar(select(func.count()).select_from(Submission)) == 0


def test_a_zip_bomb_gold_set_is_refused_before_it_is_unpacked(login, make_user):
    client = _admin(login, make_user)
    response = _new_gold(client, "kpa2021", _bomb("arguments_test.csv"), "gold.zip", split="test", variant="official")
    assert response.status_code == 400 and "too compressed" in response.get_data(as_text=True)
    assert _gold_sets() == 0


def test_a_gold_zip_member_outside_the_folder_is_refused(login, make_user):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("../arguments_test.csv", "arg_id,topic,stance\n")
    client = _admin(login, make_user)
    response = _new_gold(client, "kpa2021", buffer.getvalue(), "gold.zip", split="test", variant="official")
    assert response.status_code == 400 and "outside the upload folder" in response.get_data(as_text=True)


@pytest.mark.parametrize("task, filename, fields", [("emphasis2020", "gold.txt", {}),
                                                     ("recam2021", "Task_1_dev.jsonl", {"subtask": ""})])
@pytest.mark.parametrize("content", [b"", b"\n\n"], ids=["empty", "blank-lines"])
def test_an_empty_gold_file_is_refused_at_upload(login, make_user, task, filename, fields, content):
    client = _admin(login, make_user)
    response = _new_gold(client, task, content, filename, **fields)
    assert response.status_code == 400 and "nothing to score against" in response.get_data(as_text=True)
    assert _gold_sets() == 0


def test_a_kpa_gold_without_arguments_is_refused_at_upload(login, make_user):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("arguments_test.csv", "arg_id,topic,stance\n")
        archive.writestr("key_points_test.csv", "key_point_id,topic,stance\n")
        archive.writestr("labels_test.csv", "arg_id,key_point_id,label\n")
    client = _admin(login, make_user)
    response = _new_gold(client, "kpa2021", buffer.getvalue(), "gold.zip", split="test", variant="official")
    assert response.status_code == 400 and "nothing to score against" in response.get_data(as_text=True)


@pytest.mark.parametrize("split", ["*", "../x"])
def test_a_kpa_split_is_restricted_to_a_safe_pattern(login, make_user, split):
    client = _admin(login, make_user)
    html = _new_gold(client, "kpa2021", _kpa_gold_zip(), "gold.zip", split=split,
                     variant="official").get_data(as_text=True)
    assert "1 to 40 letters, digits, - or _" in html and tempfile.gettempdir() not in html
    assert _gold_sets() == 0


def test_a_kpa_split_missing_from_the_gold_zip_is_named_without_a_server_path(login, make_user):
    client = _admin(login, make_user)
    response = _new_gold(client, "kpa2021", _kpa_gold_zip(), "gold.zip", split="dev", variant="official")
    html = response.get_data(as_text=True)
    assert response.status_code == 400 and "no arguments_dev.csv" in html and tempfile.gettempdir() not in html


def _statements(app, action):  # type: ignore[no-untyped-def]
    """The SQL the action sends to the database."""
    from sqlalchemy import event

    from annotator.core.extensions import db as database
    seen: list[str] = []

    def record(conn, cursor, statement, *_):  # type: ignore[no-untyped-def]
        seen.append(statement)
    engine = database.engine
    event.listen(engine, "before_cursor_execute", record)
    try:
        action()
    finally:
        event.remove(engine, "before_cursor_execute", record)
    return seen


def _reads_content(statements: list[str]) -> bool:
    return any(".content" in s and ("gold_sets" in s or "submissions" in s) for s in statements)


def test_the_leaderboard_pages_never_load_the_stored_files(app, login, make_user):
    client = _admin(login, make_user)
    board = _create_kpa_board(client)
    assert _submit(client, board, "Random", _predictions("random")).status_code == 302
    for url in ("/admin/leaderboards/", f"/admin/leaderboards/{board}"):
        statements = _statements(app, lambda url=url: client.get(url))
        assert statements and not _reads_content(statements), url


def test_scoring_still_reads_the_gold_file(app, login, make_user):
    client = _admin(login, make_user)
    board = _create_kpa_board(client)
    statements = _statements(app, lambda: _submit(client, board, "Random", _predictions("random")))
    assert _reads_content(statements)


def test_an_empty_gold_zip_is_refused_in_words(login, make_user):
    """Before: FileNotFoundError on the unpacked folder that was never made, a 500."""
    buffer = io.BytesIO()
    zipfile.ZipFile(buffer, "w").close()
    client = _admin(login, make_user)
    response = _new_gold(client, "kpa2021", buffer.getvalue(), "gold.zip", split="test", variant="official")
    assert response.status_code == 400 and "the zip holds no file" in response.get_data(as_text=True)
    assert _gold_sets() == 0


def test_a_gold_form_sent_without_a_file_answers_400(login, make_user):
    client = _admin(login, make_user)
    page = client.get("/admin/leaderboards/new/emphasis2020").get_data(as_text=True)
    response = client.post("/admin/leaderboards/new/emphasis2020", data={"csrf_token": csrf_token(page), "name": "g"})
    assert response.status_code == 400 and "Choose the gold file." in response.get_data(as_text=True)


def test_a_zip_where_the_gold_is_one_plain_file_is_refused_in_words(login, make_user):
    """Before: pandas unzipped a ruarg2022 gold by itself, and a zip of two files raised ValueError, a 500."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.tsv", "text_id\n")
        archive.writestr("b.tsv", "text_id\n")
    client = _admin(login, make_user)
    response = _new_gold(client, "ruarg2022", buffer.getvalue(), "gold.zip")
    assert response.status_code == 400 and "send the file itself, not a zip" in response.get_data(as_text=True)
    assert _gold_sets() == 0
