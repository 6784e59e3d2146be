"""Leaderboards: gold sets, scored submissions, the tasks' rankings; admin only."""
from __future__ import annotations

import csv
import io
import json
import random
import re
import zipfile

import pytest
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import GoldSet, Submission
from annotator.engine import assignment as engine
from tests.conftest import DATA, load_project
from tests.support.emphasis_submissions import from_gold
from tests.unit.scoring.test_kpa2021_table2_places import SUBMITTED, TABLE_2
from tests.web.conftest import csrf_token

KPA = DATA / "kpa2021"
EMPHASIS_GOLD = DATA / "scoring" / "emphasis2020" / "dev_excerpt.txt"


def _kpa_gold_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name in ("arguments_test.csv", "key_points_test.csv", "labels_test.csv"):
            archive.write(KPA / name, arcname=name)
    return buffer.getvalue()


def _predictions(kind: str) -> bytes:
    """oracle: the gold label as score; random: seeded noise, over the same-stance key points."""
    labels = {(r["arg_id"], r["key_point_id"]): int(r["label"]) for r in csv.DictReader(open(KPA / "labels_test.csv"))}
    rng = random.Random(42)
    out: dict[str, dict[str, float]] = {}
    for arg, kp in labels:
        out.setdefault(arg, {})[kp] = labels[(arg, kp)] + rng.random() * 1e-3 if kind == "oracle" else rng.random()
    return json.dumps(out).encode()


def _admin(login, make_user):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    return login("boss")


def _create_kpa_board(client) -> int:  # type: ignore[no-untyped-def]
    page = client.get("/admin/leaderboards/new/kpa2021").get_data(as_text=True)
    response = client.post("/admin/leaderboards/new/kpa2021", content_type="multipart/form-data", data={
        "csrf_token": csrf_token(page), "name": "KPA test topic 1", "split": "test",
        "variant": "official", "file": (io.BytesIO(_kpa_gold_zip()), "gold.zip")})
    assert response.status_code == 302, response.get_data(as_text=True)
    return db.session.scalar(select(GoldSet.id))


def _submit(client, board: int, team: str, content: bytes, filename: str = "predictions.p"):  # type: ignore[no-untyped-def]
    page = client.get(f"/admin/leaderboards/{board}").get_data(as_text=True)
    return client.post(f"/admin/leaderboards/{board}", content_type="multipart/form-data", data={
        "csrf_token": csrf_token(page), "team": team, "system": f"{team}-1",
        "file": (io.BytesIO(content), filename)})


def test_submissions_are_scored_kept_and_ranked(login, make_user):
    client = _admin(login, make_user)
    board = _create_kpa_board(client)
    assert _submit(client, board, "Random", _predictions("random")).status_code == 302
    assert _submit(client, board, "Oracle", _predictions("oracle")).status_code == 302
    html = client.get(f"/admin/leaderboards/{board}").get_data(as_text=True)
    assert html.index("Oracle") < html.index("Random")
    oracle = db.session.scalar(select(Submission).where(Submission.team == "Oracle"))
    assert set(oracle.metrics) == {"strict", "relaxed", "p_at_50_strict"}
    assert oracle.metrics["relaxed"] == pytest.approx(1.0)
    assert oracle.content == _predictions("oracle")


def test_a_malformed_submission_is_reported_and_not_kept(login, make_user):
    client = _admin(login, make_user)
    board = _create_kpa_board(client)
    html = _submit(client, board, "Broken", b'{"arg_1_0": {"kp_1_0": "x"}}').get_data(as_text=True)
    assert "was not scored" in html and "arg_1_0" in html
    assert db.session.scalar(select(func.count()).select_from(Submission)) == 0


def test_an_unusable_gold_file_is_refused(login, make_user):
    client = _admin(login, make_user)
    page = client.get("/admin/leaderboards/new/recam2021").get_data(as_text=True)
    html = client.post("/admin/leaderboards/new/recam2021", content_type="multipart/form-data", data={
        "csrf_token": csrf_token(page), "name": "bad", "subtask": "",
        "file": (io.BytesIO(b"not json\n"), "gold.jsonl")}).get_data(as_text=True)
    assert "cannot be used" in html and "gold.jsonl" in html
    assert db.session.scalar(select(func.count()).select_from(GoldSet)) == 0


def test_submission_page_shows_the_reproduced_quirks_as_warnings(login, make_user):
    client = _admin(login, make_user)
    board = _create_kpa_board(client)
    _submit(client, board, "Partial", json.dumps({"arg_1_0": {"kp_1_0": 0.9}}).encode())
    submission = db.session.scalar(select(Submission))
    html = client.get(f"/admin/leaderboards/{board}/submissions/{submission.id}").get_data(as_text=True)
    assert "Warnings" in html and submission.report["warnings"]


def test_a_leaderboard_from_a_projects_gold(login, make_user, kpa_project):
    project = kpa_project(k=1)
    ann = make_user("ann")
    while (lease := engine.next_for(ann, project)) is not None:
        engine.submit(lease.id, ann, {"matches": [lease.item.payload["key_points"][0]["id"]]})
    client = _admin(login, make_user)
    page = client.get("/admin/projects/kpa").get_data(as_text=True)
    response = client.post("/admin/leaderboards/from-project/kpa", data={"csrf_token": csrf_token(page)})
    assert response.status_code == 302
    gold_set = db.session.scalar(select(GoldSet))
    assert (gold_set.task, gold_set.options, gold_set.project_id) == ("kpa2021", {"split": "test"}, project.id)
    names = zipfile.ZipFile(io.BytesIO(gold_set.content)).namelist()
    assert sorted(names) == ["arguments_test.csv", "key_points_test.csv", "labels_test.csv"]


def test_no_leaderboard_from_a_project_without_gold(login, make_user, kpa_project):
    kpa_project()
    client = _admin(login, make_user)
    page = client.get("/admin/projects/kpa").get_data(as_text=True)
    client.post("/admin/leaderboards/from-project/kpa", data={"csrf_token": csrf_token(page)})
    assert "so there is no gold yet" in client.get("/admin/projects/kpa").get_data(as_text=True)
    assert db.session.scalar(select(func.count()).select_from(GoldSet)) == 0


def test_no_leaderboard_from_votes_on_no_complete_item_says_so_with_the_votes_the_page_shows(login, make_user):
    """It said "no vote yet" while the project page showed the votes: gold comes from complete items only."""
    project = load_project("emphasis2020", DATA / "emphasis2020" / "dev_excerpt.txt", "emph", k=3)
    for name, hits in (("ann", 3), ("bob", 1)):  # 4 votes, no sentence with its 3
        user = make_user(name)
        for _ in range(hits):
            lease = engine.next_for(user, project)
            engine.submit(lease.id, user, {"tags": ["O"] * len(lease.item.payload["words"])})
    client = _admin(login, make_user)
    page = client.get("/admin/projects/emph").get_data(as_text=True)
    client.post("/admin/leaderboards/from-project/emph", data={"csrf_token": csrf_token(page)})
    html = client.get("/admin/projects/emph").get_data(as_text=True)
    assert "No leaderboard from this project yet: No item of project emph is complete yet (4 votes; 0 of 3" in html
    assert "no vote yet" not in html and db.session.scalar(select(func.count()).select_from(GoldSet)) == 0


def test_leaderboards_are_admin_only(login, make_user):
    make_user("ann")
    client = login("ann")
    assert client.get("/admin/leaderboards/").status_code == 403


def _places(html: str) -> list[tuple[int, str]]:
    return [(int(place), team) for place, team in re.findall(r'<tr><td class="num">(\d+)</td><td>([^<]+)</td>', html)]


def test_equal_mean_ranks_share_a_place_on_the_kpa_leaderboard_as_in_table_2(login, make_user):
    """KPA-2021 overview paper, Table 2 (Matching Track): MatchTStm and mozhiwen share the 5th place, BarH and
    np-quadrat the 13th (the figures and the one adjusted value: tests/unit/scoring/test_kpa2021_table2_places.py)."""
    client = _admin(login, make_user)
    board = _create_kpa_board(client)
    gold_set = db.session.get(GoldSet, board)
    for model, _, strict, _, relaxed, _ in SUBMITTED:
        db.session.add(Submission(gold_set=gold_set, team=model, system=model, filename="predictions.p",
                                  content=b"{}", metrics={"strict": strict, "relaxed": relaxed, "p_at_50_strict": 0.0},
                                  report={"detail": {}, "warnings": []}))
    db.session.commit()
    html = client.get(f"/admin/leaderboards/{board}").get_data(as_text=True)
    assert _places(html) == [(place, model) for model, place, *_ in TABLE_2]


def _emphasis_board(client) -> int:  # type: ignore[no-untyped-def]
    page = client.get("/admin/leaderboards/new/emphasis2020").get_data(as_text=True)
    response = client.post("/admin/leaderboards/new/emphasis2020", content_type="multipart/form-data", data={
        "csrf_token": csrf_token(page), "name": "Emphasis dev excerpt",
        "file": (io.BytesIO(EMPHASIS_GOLD.read_bytes()), "dev_excerpt.txt")})
    assert response.status_code == 302, response.get_data(as_text=True)
    return db.session.scalar(select(GoldSet.id))


def _emphasis_submission(value) -> bytes:  # type: ignore[no-untyped-def]
    return from_gold(EMPHASIS_GOLD, value).encode()


def test_the_emphasis_leaderboard_shows_the_numeric_comparison_beside_the_official_score(login, make_user):
    client = _admin(login, make_user)
    board = _emphasis_board(client)
    _submit(client, board, "Tenfold", _emphasis_submission(lambda p: str(round(10 * float(p), 3))), "answer.txt")
    _submit(client, board, "Copy", _emphasis_submission(lambda p: p), "answer.txt")
    html = client.get(f"/admin/leaderboards/{board}").get_data(as_text=True)
    tenfold = html[html.index("Tenfold"):html.index("</tr>", html.index("Tenfold"))]
    copy = html[html.index("<td>Copy"):html.index("</tr>", html.index("<td>Copy"))]
    assert "0.8688" in tenfold and "numeric comparison: 1.0000" in tenfold
    assert "comparison" not in copy
    assert "which alone decides the ranking" in html


def test_a_negative_emphasis_score_is_refused_with_its_line_and_nothing_is_kept(login, make_user):
    client = _admin(login, make_user)
    board = _emphasis_board(client)
    response = _submit(client, board, "Negated", _emphasis_submission(lambda p: repr(-float(p))), "answer.txt")
    assert response.status_code == 400
    assert "answer.txt, line 2, column score: score &#39;-0.2222222222222222&#39; is negative" in \
        response.get_data(as_text=True)
    assert db.session.scalar(select(func.count()).select_from(Submission)) == 0


def test_a_kpa_leaderboard_with_random_ties_records_the_seeds_with_each_score(login, make_user):
    """The overview paper's rule (section 3.3.1, footnote 4): a random maximum, the mean of 10 seeded runs."""
    client = _admin(login, make_user)
    page = client.get("/admin/leaderboards/new/kpa2021").get_data(as_text=True)
    response = client.post("/admin/leaderboards/new/kpa2021", content_type="multipart/form-data", data={
        "csrf_token": csrf_token(page), "name": "KPA test, paper's ties", "split": "test", "variant": "official",
        "random_ties": "y", "seed": "3", "file": (io.BytesIO(_kpa_gold_zip()), "gold.zip")})
    assert response.status_code == 302, response.get_data(as_text=True)
    board = db.session.scalar(select(GoldSet.id))
    tied = {arg: dict.fromkeys(kps, 0.5) for arg, kps in json.loads(_predictions("random")).items()}
    assert _submit(client, board, "Tied", json.dumps(tied).encode()).status_code == 302
    detail = db.session.scalar(select(Submission)).report["detail"]
    assert (detail["tie_break"], detail["seeds"]) == ("random", list(range(3, 13)))
    assert detail["arguments_with_tied_best"] == sum(len(kps) > 1 for kps in tied.values())
    html = client.get(f"/admin/leaderboards/{board}").get_data(as_text=True)
    assert "· random_ties = True" in html and "· seed = 3" in html  # options in the engine's JSON key order
