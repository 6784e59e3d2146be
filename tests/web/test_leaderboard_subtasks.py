"""The submission form of a leaderboard whose task had several subtasks lets the admin say which one a
submission is (ReCAM's CodaLab zips held subtask1.csv and subtask2.csv); a task with one has no such field."""
from __future__ import annotations

import io
import json
import zipfile

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import GoldSet, Submission
from tests.conftest import DATA
from tests.web.conftest import csrf_token

GOLD = DATA / "recam2021" / "Task_1_dev_excerpt.jsonl"


@pytest.fixture
def board(login, make_user):  # type: ignore[no-untyped-def]
    """An admin's client and a ReCAM board whose gold is a Task 1 file, its subtask left to the submissions."""
    make_user("boss", role="admin")
    client = login("boss")
    page = client.get("/admin/leaderboards/new/recam2021").get_data(as_text=True)
    response = client.post("/admin/leaderboards/new/recam2021", content_type="multipart/form-data", data={
        "csrf_token": csrf_token(page), "name": "ReCAM dev", "subtask": "",
        "file": (io.BytesIO(GOLD.read_bytes()), GOLD.name)})
    assert response.status_code == 302, response.get_data(as_text=True)
    return client, db.session.scalar(select(GoldSet.id))


def _codalab_zip() -> bytes:
    """subtask1.csv answers every gold question right, subtask2.csv every one wrong."""
    labels = [json.loads(line)["label"] for line in GOLD.read_text(encoding="utf-8").splitlines() if line.strip()]
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("subtask1.csv", "".join(f"{i},{label}\n" for i, label in enumerate(labels)))
        archive.writestr("subtask2.csv", "".join(f"{i},{(label + 1) % 5}\n" for i, label in enumerate(labels)))
    return buffer.getvalue()


def test_the_submission_form_lists_the_subtasks_with_the_gold_files_one_chosen(board):
    """Task_1_dev.jsonl is subtask 1's gold: proposed, in sight, and changeable."""
    client, board_id = board
    html = client.get(f"/admin/leaderboards/{board_id}").get_data(as_text=True)
    assert 'name="subtask"' in html and "imperceptibility" in html
    assert '<option selected value="1">1</option>' in html and '<option value="2">2</option>' in html


def test_the_chosen_subtask_is_the_csv_of_the_zip_that_is_scored(board):
    """Both CSVs in one zip: the admin's choice decides, and the submission records it."""
    client, board_id = board
    page = client.get(f"/admin/leaderboards/{board_id}").get_data(as_text=True)
    response = client.post(f"/admin/leaderboards/{board_id}", content_type="multipart/form-data", data={
        "csrf_token": csrf_token(page), "team": "t", "system": "s", "subtask": "2",
        "file": (io.BytesIO(_codalab_zip()), "answers.zip")})
    assert response.status_code == 302, response.get_data(as_text=True)
    submission = db.session.scalar(select(Submission))
    assert submission.metrics["accuracy"] == 0 and submission.report["detail"]["options"] == {"subtask": 2}


def test_a_task_with_one_subtask_has_no_subtask_field(login, make_user):
    """Emphasis selection was one task: nothing to choose."""
    make_user("boss", role="admin")
    client = login("boss")
    gold = DATA / "scoring" / "emphasis2020" / "dev_excerpt.txt"
    page = client.get("/admin/leaderboards/new/emphasis2020").get_data(as_text=True)
    client.post("/admin/leaderboards/new/emphasis2020", content_type="multipart/form-data", data={
        "csrf_token": csrf_token(page), "name": "Emphasis", "file": (io.BytesIO(gold.read_bytes()), gold.name)})
    html = client.get(f"/admin/leaderboards/{db.session.scalar(select(GoldSet.id))}").get_data(as_text=True)
    assert 'name="subtask"' not in html and 'name="team"' in html


def test_a_submission_of_the_wrong_kind_is_told_what_it_looks_like(board):
    """A JSON Lines file sent to ReCAM's scorer, which reads index,label CSV lines."""
    client, board_id = board
    page = client.get(f"/admin/leaderboards/{board_id}").get_data(as_text=True)
    response = client.post(f"/admin/leaderboards/{board_id}", content_type="multipart/form-data", data={
        "csrf_token": csrf_token(page), "team": "t", "system": "s", "subtask": "1",
        "file": (io.BytesIO(GOLD.read_bytes()), "answers.csv")})
    assert response.status_code == 400
    assert "answers.csv looks like JSON Lines; the scorer expects index,label CSV" in response.get_data(as_text=True)


def test_a_refused_submission_keeps_its_file_for_the_next_try(board):
    """Sent without a team name, the zip is kept: the retry fills in the team, not the file again."""
    import re
    client, board_id = board
    page = client.get(f"/admin/leaderboards/{board_id}").get_data(as_text=True)
    refused = client.post(f"/admin/leaderboards/{board_id}", content_type="multipart/form-data", data={
        "csrf_token": csrf_token(page), "team": "", "system": "s", "subtask": "1",
        "file": (io.BytesIO(_codalab_zip()), "answers.zip")})
    html = refused.get_data(as_text=True)
    assert refused.status_code == 400 and "Kept from your last try: answers.zip" in html
    kept = re.search(r'id="kept" name="kept" type="hidden" value="([^"]+)"', html)
    assert kept is not None
    retry = client.post(f"/admin/leaderboards/{board_id}", content_type="multipart/form-data", data={
        "csrf_token": csrf_token(html), "team": "t", "system": "s", "subtask": "1", "kept": kept.group(1)})
    assert retry.status_code == 302, retry.get_data(as_text=True)
    assert db.session.scalar(select(Submission)).metrics["accuracy"] == 1
