"""The CSV files an admin downloads quote the cells a spreadsheet would run (the bytes read back); the export's
zip keeps the shared task's own files byte for byte, lists their formula cells and tells the page which they are;
a controls file downloaded and uploaded again reads back as it was."""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from urllib.parse import unquote

from sqlalchemy import select

from annotator.core.audit import record
from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.engine import assignment as engine
from annotator.quality.bulk_controls import mark_controls, read_control_file
from tests.conftest import DATA, load_project
from tests.support.declared_projects import EVERY_KIND, make_declared_project, read_jsonl
from tests.support.formula_data import hostile_kpa_folder
from tests.web.conftest import csrf_token


def admin(make_user, login):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    return login("boss")


def hostile_quotes(slug: str = "quotes") -> Project:
    """The three quotes of tests/data/declared with the first one's id "@SUM(1+1)"."""
    rows = read_jsonl(DATA / "declared" / "items.jsonl")
    rows[0]["id"] = "@SUM(1+1)"
    return make_declared_project(slug, EVERY_KIND, rows, k=2)


def hostile_kpa(tmp_path: Path) -> Path:
    """Project `kpa` from the KPA excerpt with a formula as argument arg_1_1 (line 3); its folder."""
    folder = hostile_kpa_folder(tmp_path)
    load_project("kpa2021", folder, "kpa", split="test", k=3)
    return folder


def test_the_zip_keeps_the_shared_tasks_file_byte_for_byte(make_user, login, tmp_path):
    folder = hostile_kpa(tmp_path)
    data = admin(make_user, login).get("/admin/projects/kpa/export.zip").data
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.read("arguments_test.csv") == (folder / "arguments_test.csv").read_bytes()


def test_the_zip_lists_the_formula_cells_of_the_shared_tasks_files(make_user, login, tmp_path):
    hostile_kpa(tmp_path)
    data = admin(make_user, login).get("/admin/projects/kpa/export.zip").data
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        listing = archive.read("FORMULA-CELLS.txt").decode("utf-8")
    assert listing.startswith("1 cell of the shared task's own files starts with a character a spreadsheet runs "
                              "as a formula")
    assert listing.splitlines()[-1].startswith("arguments_test.csv, line 3, column argument: \"=HYPERLINK(")


def test_the_download_tells_the_project_page_where_the_formula_cells_are(make_user, login, tmp_path):
    hostile_kpa(tmp_path)
    response = admin(make_user, login).get("/admin/projects/kpa/export.zip?ticket=l3x9q2abcd")
    cookie = next(c for c in response.headers.getlist("Set-Cookie") if c.startswith("export-formula-cells="))
    value = cookie.split(";", 1)[0].split("=", 1)[1]
    assert json.loads(unquote(value)) == {"count": 1, "cells": ["arguments_test.csv, line 3, column argument"],
                                          "listing": "FORMULA-CELLS.txt"}
    assert "Path=/admin/projects/kpa" in cookie and "Max-Age=60" in cookie


def test_an_export_without_formula_cells_clears_the_pages_message(make_user, login, kpa_project):
    kpa_project()   # stance -1 on the con arguments: numbers, no formula
    client = admin(make_user, login)
    client.set_cookie("export-formula-cells", "%7B%7D", path="/admin/projects/kpa")   # from an earlier export
    response = client.get("/admin/projects/kpa/export.zip")
    with zipfile.ZipFile(io.BytesIO(response.data)) as archive:
        assert "FORMULA-CELLS.txt" not in archive.namelist()
    cookie = next(c for c in response.headers.getlist("Set-Cookie") if c.startswith("export-formula-cells="))
    assert "Max-Age=0" in cookie and "Path=/admin/projects/kpa" in cookie


def test_the_project_page_has_the_place_the_script_shows_them_in(make_user, login, kpa_project):
    kpa_project()
    html = admin(make_user, login).get("/admin/projects/kpa").get_data(as_text=True)
    assert '<div id="export-formula-cells" class="flash error" role="alert" hidden></div>' in html


def test_split_csv_quotes_an_item_id_with_a_formula(make_user, login):
    hostile_quotes()
    client = admin(make_user, login)
    page = client.get("/admin/projects/quotes/stats").get_data(as_text=True)
    drawn = client.post("/admin/projects/quotes/split", data={"sizes": "2,1", "seed": "3", "names": "train,test",
                                                               "csrf_token": csrf_token(page)})
    assert drawn.status_code == 302
    data = client.get("/admin/projects/quotes/split.csv").data
    assert data.startswith(b"item,split\n'@SUM(1+1),") and b"\n@SUM" not in data


def test_the_annotators_csv_quotes_a_username_with_a_formula(make_user, login):
    project = hostile_quotes()
    voter = make_user("@ann")
    lease = engine.next_for(voter, project)
    engine.submit(lease.id, voter, {"sentiment": "neutral", "sarcastic": "no", "themes": [], "intensity": 2,
                                    "better": "A"})
    text = admin(make_user, login).get("/admin/projects/quotes/annotators?format=csv").get_data(as_text=True)
    assert text.splitlines()[1].split(",")[:2] == ["1", "'@ann"]


def test_the_audit_csv_quotes_a_formula_after_a_semicolon_in_a_detail(make_user, login):
    record("goldset.create", detail={"name": "round 2;=HYPERLINK(\"http://evil.example\")"})
    db.session.commit()
    text = admin(make_user, login).get("/admin/audit?format=csv").get_data(as_text=True)
    assert '""name"": ""round 2;\'=HYPERLINK(\\""http://evil.example\\"")""' in text


def test_a_downloaded_controls_file_uploads_back_as_it_was(app, make_user, login, tmp_path):
    project = hostile_quotes()
    text = 'item,answer\n"@SUM(1+1)","{""intensity"": 2, ""sentiment"": ""neutral""}"\n'
    mark_controls(project, read_control_file(text, "controls.csv"), "controls.csv")
    db.session.commit()
    client = admin(make_user, login)
    downloaded = client.get("/admin/projects/quotes/controls.csv").data
    assert downloaded == b'item,answer\n\'@SUM(1+1),"{""intensity"": 2, ""sentiment"": ""neutral""}"\n'
    runner = app.test_cli_runner()
    assert runner.invoke(args=["controls", "remove", "--all", "--project", "quotes"]).exit_code == 0
    (tmp_path / "controls.csv").write_bytes(downloaded)
    result = runner.invoke(args=["controls", "add", str(tmp_path / "controls.csv"), "--project", "quotes"])
    assert result.exit_code == 0, result.output
    db.session.remove()
    controls = db.session.execute(select(Item.external_id, Item.reference).where(Item.is_control.is_(True))).all()
    assert controls == [("@SUM(1+1)", {"intensity": 2, "sentiment": "neutral"})]
