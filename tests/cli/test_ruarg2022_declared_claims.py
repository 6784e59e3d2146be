"""A declared RuArg-2022 project about other claims than the data set's three: the claims given with the import
(`--claims`, "key | English | Russian" a line, the built-in type's setting) are the definition's own (the repeat
group's elements; the premise stage's questions), and the HIT, the API, the gold, the task's files and the premise
stage follow them.

The claims here are masks (worded otherwise than the data set) and schools, which the data set does not have. The
votes give masks the file's labels and schools labels set out below, so what the files must hold is worked out
here from the file and those votes; that they are the bytes the built-in type wrote for other claims is held
against its kept outputs (tests/cli/test_ruarg2022_kept_outputs.py, `ru-claims`), the type being gone.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, ControlAnswer, Item, Label, Project, User
from annotator.quality.controls import make_control
from tests.cli.test_ruarg2022 import EXCERPTS, _cli, _import, _read
from tests.cli.test_ruarg2022_stages import _vote
from tests.web.conftest import csrf_token, open_hit_page

TRAIN = EXCERPTS / "train_excerpt.tsv"
GIVEN = "masks | Masks are good for everyone | Маски полезны всем\nschools | Schools should stay open | Школы нужны"
FILES = ("train_excerpt.tsv", "undecided.tsv", "label_statistics.tsv")
HEADER = ["text_id", "text", "masks_stance", "masks_argument", "schools_stance", "schools_argument"]
UNDECIDED = 3   # the position of the sentence whose schools stance the three annotators split on


def _project(slug: str) -> Project:
    db.session.remove()
    return db.session.scalars(select(Project).where(Project.slug == slug)).one()


def _masks() -> dict[str, dict[str, int]]:
    """The train excerpt's masks labels, read from the file: text_id -> stance and premise code."""
    return {row["text_id"]: {"stance": int(row["masks_stance"]), "premise": int(row["masks_argument"])}
            for row in _read(TRAIN)}


def _schools(position: int, annotator: int) -> dict[str, int]:
    """The schools labels annotator `annotator` gives the sentence at `position`: irrelevant on even positions;
    for (2) with a premise against (0) on odd ones, but for the third annotator's stance against (0); at position
    3 the three stances differ (2, 0, 1), so the stance is undecided there."""
    if position % 2 == 0:
        return {"stance": -1, "premise": -1}
    stances = (2, 0, 1) if position == UNDECIDED else (2, 2, 0)
    return {"stance": stances[annotator], "premise": 0}


def _vote_all(slug: str, fields: tuple[str, ...] = ("stance", "premise")) -> None:
    """Three annotators' votes on every sentence of project `slug` in today's answer shape: masks as the file
    says, schools as `_schools` says."""
    project = _project(slug)
    users = [db.session.scalar(select(User).where(User.username == f"a{n}")) for n in range(3)]
    for position, (text_id, masks) in enumerate(_masks().items()):
        for n, user in enumerate(users):
            given = {"masks": masks, "schools": _schools(position, n)}
            _vote(project, user, text_id, {"claims": {c: {f: codes[f] for f in fields} for c, codes in given.items()}})


def _export(app, slug: str, out: Path) -> Path:  # type: ignore[no-untyped-def]
    result = _cli(app, "export", "ruarg2022", "--project", slug, "--out", out)
    assert result.exit_code == 0, result.output
    return out


def _annotators(make_user) -> None:  # type: ignore[no-untyped-def]
    for n in range(3):
        make_user(f"a{n}")


def test_the_claims_given_are_the_definitions_elements_in_their_order_and_words(app):
    _import(app, TRAIN, "--claims", GIVEN, slug="en")
    _import(app, TRAIN, "--claims", GIVEN, "--language", "ru", slug="ru")
    for slug, texts in (("en", ["Masks are good for everyone", "Schools should stay open"]),
                        ("ru", ["Маски полезны всем", "Школы нужны"])):
        group = _project(slug).definition["questions"][0]
        assert group["repeat"] == "claims"
        assert group["elements"] == [{"id": "masks", "text": texts[0]}, {"id": "schools", "text": texts[1]}]


def test_the_hit_asks_about_the_projects_claims_and_stores_the_posted_answer_as_the_definitions(app, login,
                                                                                               make_user):
    _import(app, TRAIN, "--claims", GIVEN)
    make_user("ann")
    client = login("ann")
    page = open_hit_page(client, "ru").get_data(as_text=True)
    assert "Schools should stay open" in page and "Masks are good for everyone" in page
    assert "Vaccination" not in page and 'name="q_claims__2__relevance"' not in page
    action = re.search(r'action="(/p/ru/a/\d+)"', page).group(1)
    response = client.post(action, data={"csrf_token": csrf_token(page), "q_claims__0__relevance": "irrelevant",
                                         "q_claims__1__relevance": "relevant", "q_claims__1__stance": "0",
                                         "q_claims__1__premise": "1"})
    assert response.status_code == 302
    db.session.remove()
    vote = db.session.scalars(select(Assignment).join(User, User.id == Assignment.user_id)
                              .where(User.username == "ann", Assignment.status == SUBMITTED)).one()
    assert vote.answer == {"claims": {"masks": {"relevance": "irrelevant"},
                                      "schools": {"relevance": "relevant", "stance": "0", "premise": "1"}}}


def test_the_api_takes_todays_answer_about_the_projects_claims_and_refuses_one_about_others(app, api_client):
    _import(app, TRAIN, "--claims", GIVEN)
    client = api_client("api-ann")
    leased = client.post("/api/v1/projects/ru/next").get_json()["assignment"]
    wrong = {"claims": {"masks": {"stance": 2, "premise": 1}, "vaccines": {"stance": -1, "premise": -1}}}
    refused = client.post(f"/api/v1/assignments/{leased['id']}/submit", json={"answer": wrong})
    assert refused.status_code == 422
    said = refused.get_json()["error"]
    assert "claim 'schools' is missing" in said and "'vaccines' is not one of this project's claims (masks, schools)" \
        in said
    answer = {"claims": {"masks": {"stance": 2, "premise": 1}, "schools": {"stance": -1, "premise": -1}}}
    taken = client.post(f"/api/v1/assignments/{leased['id']}/submit", json={"answer": answer})
    assert taken.status_code == 201, taken.get_json()
    db.session.remove()
    assert db.session.get_one(Assignment, int(leased["id"])).answer == {
        "claims": {"masks": {"relevance": "relevant", "stance": "2", "premise": "1"},
                   "schools": {"relevance": "irrelevant"}}}
    rows = sorted(db.session.execute(select(Label.unit, Label.field, Label.value)
                                     .where(Label.assignment_id == int(leased["id"]))).all())
    assert rows == [("masks", "premise", "1"), ("masks", "relevance", "relevant"), ("masks", "stance", "2"),
                    ("schools", "relevance", "irrelevant")]


def _expected_rows() -> list[dict[str, str]]:
    """The gold file's rows the votes decide, worked out from the file and `_schools`: every sentence but the one
    whose schools stance is split, masks as the file says, schools irrelevant on even positions and for (2) with
    a premise against (0) on odd ones (two of three said for)."""
    rows = []
    for position, (text_id, masks) in enumerate(_masks().items()):
        if position == UNDECIDED:
            continue
        schools = ("-1", "-1") if position % 2 == 0 else ("2", "0")
        rows.append({"text_id": text_id, "masks_stance": str(masks["stance"]), "masks_argument": str(masks["premise"]),
                     "schools_stance": schools[0], "schools_argument": schools[1]})
    return rows


def _without_text(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{key: value for key, value in row.items() if key != "text"} for row in rows]


def test_the_gold_file_has_a_column_pair_per_claim_and_the_labels_the_votes_decide(app, make_user, tmp_path):
    _import(app, TRAIN, "--claims", GIVEN)
    _annotators(make_user)
    _vote_all("ru")
    out = _export(app, "ru", tmp_path)
    header = (out / "train_excerpt.tsv").read_bytes().decode("utf-8").split("\r\n")[0].split("\t")
    assert header == HEADER
    assert _without_text(_read(out / "train_excerpt.tsv")) == _expected_rows()
    split = list(_masks())[UNDECIDED]
    assert [(r["text_id"], r["schools_stance"]) for r in _read(out / "undecided.tsv")] == \
        [(split, "2"), (split, "0"), (split, "1")]
    assert [r["claim"] for r in _read(out / "label_statistics.tsv")] == ["masks", "schools", "all claims"]


def test_the_reference_export_gives_the_imported_file_back_whatever_the_claims(app, tmp_path):
    _import(app, TRAIN, "--claims", GIVEN)
    result = _cli(app, "export", "ruarg2022", "--project", "ru", "--out", tmp_path, "--labels", "reference")
    assert result.exit_code == 0, result.output
    assert (tmp_path / "train_excerpt.tsv").read_bytes() == TRAIN.read_bytes()


def _stages(app, slug: str, *args: str) -> None:  # type: ignore[no-untyped-def]
    """A stance stage `slug` about the two claims with the three annotators' stances, and its premise stage
    `<slug>-premise` voted: the file's masks premise, schools against (0) by all three."""
    _import(app, TRAIN, *args, "--stage", "stance", "--claims", GIVEN, slug=slug)
    _vote_all(slug, ("stance",))
    made = _cli(app, "premise-stage", "--from", slug, "--project", f"{slug}-premise")
    assert made.exit_code == 0, made.output
    premise = _project(f"{slug}-premise")
    users = [db.session.scalar(select(User).where(User.username == f"a{n}")) for n in range(3)]
    masks = _masks()
    for item in premise.items:
        codes = {"masks": masks[item.external_id]["premise"], "schools": 0}
        for user in users:
            _vote(premise, user, item.external_id,
                  {"claims": {c: {"premise": codes[c]} for c in item.payload["claims"]}})


def test_the_premise_stage_asks_the_premise_of_each_claim_the_stance_stage_found_relevant(app, make_user):
    _annotators(make_user)
    _stages(app, "st")
    premise = _project("st-premise")
    questions = premise.definition["questions"]
    assert [(q["id"], q["when"]) for q in questions] == [("masks_premise", {"item.claims": "masks"}),
                                                        ("schools_premise", {"item.claims": "schools"})]
    assert questions[1]["prompt"] == "Claim: Schools should stay open. Does the sentence give an argument for or " \
                                     "against it?"
    masks = _masks()
    expected = {text_id: [c for c, relevant in (("masks", masks[text_id]["stance"] != -1), ("schools", position % 2))
                          if relevant]
                for position, text_id in enumerate(masks) if position != UNDECIDED}
    assert {i.external_id: i.payload["claims"] for i in premise.items} == {k: v for k, v in expected.items() if v}


def test_either_stage_exports_the_two_joined_with_the_labels_the_votes_decide(app, make_user, tmp_path):
    _annotators(make_user)
    _stages(app, "st")
    written = {}
    for slug in ("st", "st-premise"):
        out = _export(app, slug, tmp_path / slug)
        assert _without_text(_read(out / "train_excerpt.tsv")) == _expected_rows(), slug
        written[slug] = [(out / n).read_bytes() for n in FILES]
    assert written["st"] == written["st-premise"]


def test_a_control_item_scores_the_projects_claims_only(app, make_user):
    # the file's labels know masks, quarantine and vaccines; the project asks masks and schools: schools has no
    # known answer and the other two are not asked, so an answer giving the file's masks labels is right
    _import(app, TRAIN, "--claims", GIVEN)
    project = _project("ru")
    item = db.session.scalar(select(Item).where(Item.project_id == project.id, Item.external_id == "17024"))
    make_control(item, project)
    db.session.commit()
    masks = _masks()["17024"]                        # -1 -1 in the file
    for name, given in (("right", masks), ("wrong", {"stance": 2, "premise": 1})):
        _vote(_project("ru"), make_user(name), "17024",
              {"claims": {"masks": given, "schools": {"stance": 2, "premise": 2}}})
    db.session.remove()
    scores = dict(db.session.execute(select(User.username, ControlAnswer.score).join(User)).all())
    # the six codes' share as the built-in scored them, here masks' stance and premise: 2 of 2 right, 0 of 2
    assert scores == {"right": 1.0, "wrong": 0.0}


def test_more_sentences_go_into_the_project_with_its_own_claims_when_other_settings_are_given(app, tmp_path):
    header, *rows = TRAIN.read_bytes().decode("utf-8").split("\r\n")
    first, rest = tmp_path / "first" / TRAIN.name, tmp_path / "rest" / TRAIN.name
    for path, part in ((first, [r for r in rows if r][:5]), (rest, [r for r in rows if r][5:])):
        path.parent.mkdir()
        path.write_bytes("\r\n".join([header, *part, ""]).encode("utf-8"))
    _import(app, first, "--claims", GIVEN)
    made = _project("ru").definition
    _import(app, rest, "--agree", "2")     # read over the project's own settings: its claims, not the data set's
    project = _project("ru")
    assert project.definition == made and len(project.items) == len(_masks())
    other = _cli(app, "import", "ruarg2022", rest, "--project", "ru", "--claims", "masks | Masks are good")
    assert other.exit_code == 1 and "was created with another definition" in other.output
