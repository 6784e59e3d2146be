"""RuArg-2022 to the letter: relevance by its own rule, and the two annotation stages as linked projects.

Kotelnikov et al., RuArg-2022 (Dialogue 2022): §3.1 "A sentence is considered to be relevant to an aspect,
if at least two annotators considered it relevant"; §3.2 premises annotated at a second stage, labels by
the agreement of at least two of three annotators (train, validation) or three of four (test).
"""
from __future__ import annotations

from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Project
from annotator.engine import assignment as engine
from tests.cli.test_ruarg2022 import EXCERPTS, _cli, _import, _read
from tests.conftest import stored

IRR = {"stance": -1, "premise": -1}
CLAIMS = ("masks", "quarantine", "vaccines")


def _vote(project, user, item_id: str, answer: dict) -> None:  # type: ignore[no-untyped-def, type-arg]
    """A submitted vote on the project's item (both stages hold an item of the same sentence id)."""
    item = db.session.scalar(select(Item).where(Item.project_id == project.id, Item.external_id == item_id))
    lease = Assignment(project_id=project.id, item_id=item.id, user_id=user.id,
                       expires_at=engine.utcnow() + engine.timedelta(minutes=5))
    db.session.add(lease)
    db.session.commit()
    engine.submit(lease.id, user, answer)


def _answer(masks: dict, **labels: dict) -> dict:  # type: ignore[type-arg]
    return {"claims": {"masks": masks, **{c: labels.get(c, IRR) for c in CLAIMS[1:]}}}


def test_two_of_four_annotators_make_a_sentence_relevant_on_the_test_sets_3_of_4_rule(app, make_user, tmp_path):
    # §3.1 and §3.2: with --k 4 --agree 3 a sentence two of four found relevant to masks is relevant (not -1);
    # its labels lack three agreeing annotators, so it is left for adjudication instead of exported as -1.
    _import(app, EXCERPTS / "test_excerpt.tsv", "--k", "4", "--agree", "3")
    project = stored(Project, slug="ru")
    assert [q["gold"]["m"] for q in project.definition["questions"][0]["questions"]] == [2, 3, 3]
    users = [make_user(f"a{n}") for n in range(4)]
    for user, masks in zip(users, ({"stance": 2, "premise": 1}, {"stance": 2, "premise": 1}, IRR, IRR)):
        _vote(project, user, "17059", _answer(masks))
    result = _cli(app, "export", "ruarg2022", "--project", "ru", "--out", tmp_path / "paper")
    assert result.exit_code == 0, result.output
    assert _read(tmp_path / "paper" / "test_excerpt.tsv") == []
    assert [(r["text_id"], r["masks_stance"]) for r in _read(tmp_path / "paper" / "undecided.tsv")] == \
        [("17059", "2"), ("17059", "2"), ("17059", "-1"), ("17059", "-1")]


def test_the_old_single_threshold_is_a_setting(app, make_user, tmp_path):
    _import(app, EXCERPTS / "test_excerpt.tsv", "--k", "4", "--agree", "3", "--relevant-votes", "3")
    project = stored(Project, slug="ru")
    users = [make_user(f"a{n}") for n in range(4)]
    for user, masks in zip(users, ({"stance": 2, "premise": 1}, {"stance": 2, "premise": 1}, IRR, IRR)):
        _vote(project, user, "17059", _answer(masks))
    _cli(app, "export", "ruarg2022", "--project", "ru", "--out", tmp_path)
    assert [(r["text_id"], r["masks_stance"]) for r in _read(tmp_path / "test_excerpt.tsv")] == [("17059", "-1")]


def _stance_stage(app, make_user, k: int = 2):  # type: ignore[no-untyped-def]
    """The train excerpt as a stance stage whose k annotators all give the file's stance labels, in today's answer
    shape (the votes of test_ruarg2022_declared_projects.py's stages disagree)."""
    _import(app, EXCERPTS / "train_excerpt.tsv", "--k", str(k), "--stage", "stance", slug="st")
    project = stored(Project, slug="st")
    users = [make_user(f"s{n}") for n in range(k)]
    stances = {r["text_id"]: {c: int(r[f"{c}_stance"]) for c in CLAIMS} for r in _read(EXCERPTS / "train_excerpt.tsv")}
    for item in db.session.scalars(select(Item).where(Item.project_id == project.id)).all():
        answer = {"claims": {c: {"stance": code} for c, code in stances[item.external_id].items()}}
        for user in users:
            _vote(project, user, item.external_id, answer)
    return project


def _relevant_in_excerpt() -> dict[str, list[str]]:
    rows = _read(EXCERPTS / "train_excerpt.tsv")
    return {r["text_id"]: [c for c in CLAIMS if r[f"{c}_stance"] != "-1"] for r in rows
            if any(r[f"{c}_stance"] != "-1" for c in CLAIMS)}


def test_the_premise_stage_is_made_of_the_stance_stages_relevant_sentences(app, make_user):
    _stance_stage(app, make_user)
    result = _cli(app, "premise-stage", "--from", "st", "--project", "pr", "--k", "4", "--agree", "3")
    assert result.exit_code == 0, result.output
    relevant = _relevant_in_excerpt()
    assert f"Added {len(relevant)} sentences to project 'pr' (k=4)" in result.output
    project = stored(Project, slug="pr")
    assert (project.k, [q["gold"]["m"] for q in project.definition["questions"]]) == (4, [3, 3, 3])
    assert project.source == {**stored(Project, slug="st").source, "stance_project": "st"}
    items = db.session.scalars(select(Item).where(Item.project_id == project.id).order_by(Item.position)).all()
    assert {i.external_id: i.payload["claims"] for i in items} == relevant
    assert items[0].reference == {f"{c}_premise": "1" for c in relevant[items[0].external_id]}  # 17024: quarantine 1/1
    again = _cli(app, "premise-stage", "--from", "st", "--project", "pr")
    assert f"Added 0 sentences to project 'pr' (k=4); {len(relevant)} were there already." in again.output


def test_the_export_joins_both_stages_into_the_tasks_file(app, make_user, tmp_path):
    _stance_stage(app, make_user)
    _cli(app, "premise-stage", "--from", "st", "--project", "pr", "--k", "3")
    premise = stored(Project, slug="pr")
    users = [make_user(f"p{n}") for n in range(3)]
    for item in db.session.scalars(select(Item).where(Item.project_id == premise.id)).all():
        answer = {"claims": {c: {"premise": int(item.reference[f"{c}_premise"])} for c in item.payload["claims"]}}
        for user in users:
            _vote(premise, user, item.external_id, answer)
    for slug in ("pr", "st"):  # either stage's project exports the two joined
        result = _cli(app, "export", "ruarg2022", "--project", slug, "--out", tmp_path / slug)
        assert result.exit_code == 0, result.output
        assert (tmp_path / slug / "train_excerpt.tsv").read_bytes() == (EXCERPTS / "train_excerpt.tsv").read_bytes()
        assert _read(tmp_path / slug / "undecided.tsv") == []


def test_before_the_premise_stage_the_export_has_the_irrelevant_sentences_and_says_who_waits(app, make_user, tmp_path):
    _stance_stage(app, make_user)
    result = _cli(app, "export", "ruarg2022", "--project", "st", "--out", tmp_path)
    assert result.exit_code == 0, result.output
    relevant = _relevant_in_excerpt()
    written = [r["text_id"] for r in _read(tmp_path / "train_excerpt.tsv")]
    assert written == [r["text_id"] for r in _read(EXCERPTS / "train_excerpt.tsv") if r["text_id"] not in relevant]
    assert f"{len(relevant)} sentences are relevant to a claim at the stance stage and wait" in result.output
    assert "no premise-stage project continues 'st' yet" in result.output


def test_undecided_votes_of_each_stage_are_listed_with_their_stage(app, make_user, tmp_path):
    _stance_stage(app, make_user)
    _cli(app, "premise-stage", "--from", "st", "--project", "pr", "--k", "2")
    premise = stored(Project, slug="pr")
    item = db.session.scalar(select(Item).where(Item.project_id == premise.id).order_by(Item.position))
    claim = item.payload["claims"][0]
    for user, code in zip((make_user("p0"), make_user("p1")), (2, 0)):
        _vote(premise, user, item.external_id, {"claims": {c: {"premise": code} for c in item.payload["claims"]}})
    _cli(app, "export", "ruarg2022", "--project", "pr", "--out", tmp_path)
    rows = _read(tmp_path / "undecided.tsv")
    assert [(r["text_id"], r["stage"], r["annotator"], r[f"{claim}_argument"], r[f"{claim}_stance"])
            for r in rows] == [(item.external_id, "premise", "p0", "2", ""),
                               (item.external_id, "premise", "p1", "0", "")]


def test_a_premise_stage_needs_a_stance_stage_and_nothing_is_made_otherwise(app):
    _import(app, EXCERPTS / "train_excerpt.tsv", slug="both")
    result = _cli(app, "premise-stage", "--from", "both", "--project", "pr")
    assert result.exit_code == 1
    assert "project 'both' is not a stance stage (stage 'both')" in result.output
    assert "Nothing was imported" in result.output
    missing = _cli(app, "premise-stage", "--from", "nope", "--project", "pr")
    assert "there is no project 'nope'" in missing.output
    assert db.session.scalar(select(func.count()).select_from(Project).where(Project.slug == "pr")) == 0


def test_a_premise_stage_is_not_made_from_a_project_of_the_built_in_type_and_says_why(app):
    """A project of the built-in stance_premise type (none is left after migration 0022: as a database not upgraded
    would hold one) is no stance stage of today's: refused, saying the type is gone, and nothing is made."""
    db.session.add(Project(slug="old", name="old", task_type="stance_premise", k=2, lease_minutes=30,
                           settings={"stage": "stance"}, source={"format": "ruarg2022"}))
    db.session.commit()
    result = _cli(app, "premise-stage", "--from", "old", "--project", "pr")
    assert result.exit_code == 1
    assert "project 'old' holds stance_premise HITs, not a RuArg-2022 stance stage" in result.output
    assert "the built-in stance_premise type is gone" in result.output and "Nothing was imported" in result.output
    assert db.session.scalar(select(func.count()).select_from(Project).where(Project.slug == "pr")) == 0


def _projects() -> int:
    db.session.remove()
    return db.session.scalar(select(func.count()).select_from(Project))


def test_an_import_with_stage_premise_is_refused_and_says_how_a_premise_stage_is_made(app):
    result = _cli(app, "import", "ruarg2022", EXCERPTS / "train_excerpt.tsv", "--project", "pr", "--stage", "premise")
    assert result.exit_code == 1
    assert "a premise-stage project is not imported from a file" in result.output
    assert "flask premise-stage --from STANCE --project SLUG" in result.output
    assert "needs stance_project" not in result.output
    assert "Nothing was imported" in result.output
    assert _projects() == 0


def test_a_file_is_not_imported_into_an_existing_premise_stage(app, make_user):
    _stance_stage(app, make_user)
    _cli(app, "premise-stage", "--from", "st", "--project", "pr")
    before = db.session.scalar(select(func.count()).select_from(Item).join(Project).where(Project.slug == "pr"))
    result = _cli(app, "import", "ruarg2022", EXCERPTS / "val_excerpt.tsv", "--project", "pr")
    assert result.exit_code == 1
    assert "a premise-stage project is not imported from a file" in result.output
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(Item).join(Project).where(Project.slug == "pr")) == before


def test_an_import_does_not_change_the_stage_of_a_project_with_votes(app, make_user):
    _stance_stage(app, make_user)
    made = stored(Project, slug="st").definition
    result = _cli(app, "import", "ruarg2022", EXCERPTS / "train_excerpt.tsv", "--project", "st", "--stage", "both")
    assert result.exit_code == 1
    assert "project 'st' was created with another definition" in result.output
    db.session.remove()
    assert stored(Project, slug="st").definition == made
