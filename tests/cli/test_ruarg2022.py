"""`flask import ruarg2022` and `flask export ruarg2022`: sentences in, gold / reference TSV out."""
from __future__ import annotations

import csv
import io
from pathlib import Path

import pytest
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import Adjudication, Assignment, Item, Project
from annotator.engine import assignment as engine
from annotator.lookups.scorers import score_files
from tests.conftest import DATA, SHARED_DATA, stored

EXCERPTS = DATA / "ruarg2022"
IRR = {"stance": -1, "premise": -1}


def _cli(app, *args):  # type: ignore[no-untyped-def]
    return app.test_cli_runner().invoke(args=[str(a) for a in args])


def _import(app, path: Path, *args, slug: str = "ru"):  # type: ignore[no-untyped-def]
    result = _cli(app, "import", "ruarg2022", path, "--project", slug, *args)
    assert result.exit_code == 0, result.output
    return result


def test_one_item_per_sentence_with_its_text_id_and_the_file_labels_as_reference(app):
    result = _import(app, EXCERPTS / "train_excerpt.tsv", "--agree", "2")
    assert "Created project 'ru' (Declared campaign: Stance and premise per claim (RuArg-2022))" in result.output
    assert "Imported 11 sentences into project 'ru' (k=3)" in result.output
    project = stored(Project, slug="ru")
    assert project.source == {"format": "ruarg2022", "split": "train_excerpt", "layout": "labelled", "newline": "crlf"}
    assert (project.task_type, project.settings) == ("custom", {})
    assert [q["gold"]["m"] for q in project.definition["questions"][0]["questions"]] == [2, 2, 2]
    item = db.session.scalar(select(Item).where(Item.external_id == "17024"))
    assert item.payload == {"id": item.external_id, "text": item.payload["text"]}
    # 17024 in the file: masks -1 -1, quarantine 1 1, vaccines -1 -1, in the definition's terms
    assert item.reference == {"claims": {"masks": {"relevance": "irrelevant"},
                                         "quarantine": {"relevance": "relevant", "stance": "1", "premise": "1"},
                                         "vaccines": {"relevance": "irrelevant"}}}


def test_without_declared_the_import_is_refused_saying_the_built_in_type_is_gone(app):
    """The built-in stance_premise type is gone (docs/one-engine.md): --no-declared is refused before any file is
    read, saying why and what to do, and nothing is made."""
    result = _cli(app, "import", "ruarg2022", EXCERPTS / "train_excerpt.tsv", "--project", "ru", "--no-declared",
                  "--agree", "2")
    assert result.exit_code == 1
    assert "the built-in stance_premise HIT type is gone" in result.output
    assert "import without --no-declared" in result.output and "Nothing was imported" in result.output
    assert db.session.scalar(select(func.count()).select_from(Project)) == 0


def test_the_text_only_and_empty_label_layouts_import_without_reference(app):
    _import(app, EXCERPTS / "val_excerpt.tsv", slug="val")
    _import(app, EXCERPTS / "test_excerpt.tsv", slug="test")
    assert db.session.scalar(select(func.count()).select_from(Item).where(Item.reference.is_not(None))) == 0
    assert db.session.scalar(select(func.count()).select_from(Item)) == 12


def test_bad_input_imports_nothing_and_says_where(app, tmp_path):
    text = (EXCERPTS / "train_excerpt.tsv").read_bytes().decode("utf-8")
    lines = text.split("\r\n")
    lines[3] = lines[3].rsplit("\t", 1)[0] + "\t7"
    bad = tmp_path / "train.tsv"
    bad.write_bytes("\r\n".join(lines).encode())
    result = _cli(app, "import", "ruarg2022", bad, "--project", "ru")
    assert result.exit_code == 1
    assert "train.tsv, line 4, column vaccines_argument: label '7'" in result.output
    assert "Nothing was imported" in result.output
    assert db.session.scalar(select(func.count()).select_from(Project)) == 0


@pytest.mark.parametrize("name", ["train_excerpt.tsv", "test_excerpt.tsv"])
def test_reference_export_gives_the_imported_file_back_byte_for_byte(app, tmp_path, name):
    _import(app, EXCERPTS / name)
    result = _cli(app, "export", "ruarg2022", "--project", "ru", "--out", tmp_path, "--labels", "reference")
    assert result.exit_code == 0, result.output
    assert (tmp_path / name).read_bytes() == (EXCERPTS / name).read_bytes()


@pytest.mark.shared_data
def test_the_full_files_round_trip_and_the_statistics_are_the_published_ones(app, tmp_path):
    for name, slug in (("train.tsv", "train"), ("test-no_labels.tsv", "test")):
        source = SHARED_DATA / "ruarg2022" / "data" / name
        _import(app, source, slug=slug)
        _cli(app, "export", "ruarg2022", "--project", slug, "--out", tmp_path / slug, "--labels", "reference")
        assert (tmp_path / slug / name).read_bytes() == source.read_bytes()
    statistics = {r["claim"]: r for r in csv.DictReader(open(tmp_path / "train" / "label_statistics.tsv",
                                                             encoding="utf-8", newline=""), delimiter="\t")}
    masks = statistics["masks"]  # formats-and-scorers.md §3.2: masks_stance -1 3587, 0 594, 1 1832, 2 704
    assert (masks["irrelevant"], masks["stance against"], masks["stance other"], masks["stance for"]) == \
        ("3587", "594", "1832", "704")
    assert (masks["premise against"], masks["premise no argument"], masks["premise for"]) == ("340", "2451", "339")


def _vote(project, user, item_id: str, answer: dict) -> None:  # type: ignore[type-arg]
    item = db.session.scalar(select(Item).where(Item.external_id == item_id))
    lease = Assignment(project_id=project.id, item_id=item.id, user_id=user.id,
                       expires_at=engine.utcnow() + engine.timedelta(minutes=5))
    db.session.add(lease)
    db.session.commit()
    engine.submit(lease.id, user, answer)


def _read(path: Path) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8")), delimiter="\t"))


def test_gold_export_has_the_decided_sentences_the_votes_of_the_rest_and_adjudications_win(app, make_user, tmp_path):
    _import(app, EXCERPTS / "val_excerpt.tsv")
    project = stored(Project, slug="ru")
    users = [make_user(f"a{n}") for n in range(3)]
    agreed = {"claims": {"masks": {"stance": 2, "premise": 1}, "quarantine": IRR, "vaccines": IRR}}
    split = [{"claims": {"masks": {"stance": code, "premise": 1}, "quarantine": IRR, "vaccines": IRR}}
             for code in (2, 0, 1)]
    for user, other in zip(users, split):
        _vote(project, user, "17041", agreed)
        _vote(project, user, "17057", other)
    result = _cli(app, "export", "ruarg2022", "--project", "ru", "--out", tmp_path / "a")
    assert result.exit_code == 0, result.output
    gold = (tmp_path / "a" / "val_excerpt.tsv").read_bytes()
    assert gold.startswith(b"text_id\ttext\tmasks_stance\tmasks_argument\tquarantine_stance") and b"\r\n" in gold
    rows = _read(tmp_path / "a" / "val_excerpt.tsv")
    assert [(r["text_id"], r["masks_stance"], r["masks_argument"], r["vaccines_stance"]) for r in rows] == \
        [("17041", "2", "1", "-1")]
    undecided = _read(tmp_path / "a" / "undecided.tsv")
    assert [(r["text_id"], r["annotator"], r["masks_stance"]) for r in undecided] == \
        [("17057", "a0", "2"), ("17057", "a1", "0"), ("17057", "a2", "1")]
    assert "4 of 5 sentences are not decided yet" in result.output
    item = db.session.scalar(select(Item).where(Item.external_id == "17057"))
    db.session.add(Adjudication(project_id=project.id, item_id=item.id, answer=split[1]))
    db.session.commit()
    _cli(app, "export", "ruarg2022", "--project", "ru", "--out", tmp_path / "b")
    assert [r["text_id"] for r in _read(tmp_path / "b" / "val_excerpt.tsv")] == ["17041", "17057"]
    assert _read(tmp_path / "b" / "val_excerpt.tsv")[1]["masks_stance"] == "0"
    assert _read(tmp_path / "b" / "undecided.tsv") == []


def test_a_projects_gold_becomes_a_ruarg2022_leaderboard_gold_set(app, make_user, tmp_path):
    from annotator.campaigns.leaderboard import gold_set_from_project
    _import(app, EXCERPTS / "train_excerpt.tsv", "--k", "2")  # two votes each: every sentence complete
    project = stored(Project, slug="ru")
    users = [make_user(f"a{n}") for n in range(2)]
    for item in db.session.scalars(select(Item)).all():
        for user in users:   # the known answer, in the definition's own answer shape
            _vote(project, user, item.external_id, item.reference)
    gold_set = gold_set_from_project(stored(Project, slug="ru"))
    assert gold_set.task == "ruarg2022"
    path = tmp_path / "gold.tsv"
    path.write_bytes(gold_set.content)
    report = score_files("ruarg2022", path, EXCERPTS / "train_excerpt.tsv")
    reference = score_files("ruarg2022", EXCERPTS / "train_excerpt.tsv", EXCERPTS / "train_excerpt.tsv")
    assert report.metrics == reference.metrics
