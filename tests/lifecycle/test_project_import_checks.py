"""A project archive is checked as what it will become here: account names, project fields, its tables.
Each test edits a real export (checksums made to match, so only these checks can refuse it), imports it with
`flask project import-all`, and reads the counts back: a refused archive changes nothing."""
from __future__ import annotations

import json
import zipfile
from collections.abc import Callable
from pathlib import Path

from flask import Flask

from tests.lifecycle.conftest import Files, counts, resealed


def exported(app: Flask, tmp_path: Path, slug: str = "kpa-demo") -> Path:
    out = tmp_path / f"{slug}.zip"
    result = app.test_cli_runner().invoke(args=["project", "export-all", slug, str(out)])
    assert result.exit_code == 0, result.output
    return out


def lines_changed(file: str, change: Callable[[list[list]], None]) -> Callable[[Files], Files]:
    """Files with table `file`'s rows (JSON arrays) changed in place by `change`."""
    def apply(files: Files) -> Files:
        rows = [json.loads(line) for line in files[file].splitlines()]
        change(rows)
        return {**files, file: b"".join(json.dumps(r).encode() + b"\n" for r in rows)}
    return apply


def import_refused(app: Flask, path: Path, *options: str) -> str:
    before = counts()
    result = app.test_cli_runner().invoke(args=["project", "import-all", str(path), "--slug", "copy",
                                                "--reuse-accounts", *options])
    assert result.exit_code == 1, result.output
    assert "Nothing was changed." in result.output
    assert counts() == before
    return result.output


def test_an_account_name_given_twice_is_refused_naming_its_line(app, demo, tmp_path):
    def twice(rows: list[list]) -> None:
        rows[1][1] = rows[0][1]
    message = import_refused(app, resealed(exported(app, tmp_path), lines_changed("tables/users.jsonl", twice)))
    assert "tables/users.jsonl, line 2, column username: the account name" in message and "twice" in message


def test_an_account_name_no_account_could_have_is_refused(app, demo, tmp_path):
    def bad(rows: list[list]) -> None:
        rows[0][1] = "two words"
    message = import_refused(app, resealed(exported(app, tmp_path), lines_changed("tables/users.jsonl", bad)))
    assert "tables/users.jsonl, line 1, column username: 'two words' is not an account name" in message


def test_a_crowd_name_that_is_not_an_export_pseudonym_is_refused(app, demo, tmp_path):
    def worker(rows: list[list]) -> None:
        rows[0][1] = "prolific:5f1e0c0ffee0c0ffee0c0ffe"
    message = import_refused(app, resealed(exported(app, tmp_path), lines_changed("tables/users.jsonl", worker)))
    assert "line 1, column username: 'prolific:5f1e0c0ffee0c0ffee0c0ffe' is not an account name" in message


def field_set(table: str, column: str, value: object, line: int = 1) -> Callable[[Files], Files]:
    """Files with `column` of table's row at `line` set to `value` (JSON)."""
    def apply(files: Files) -> Files:
        columns = next(t["columns"] for t in json.loads(files["manifest.json"])["tables"] if t["name"] == table)
        at = [c["name"] for c in columns].index(column)

        def change(rows: list[list]) -> None:
            rows[line - 1][at] = value
        return lines_changed(f"tables/{table}.jsonl", change)(files)
    return apply


def test_a_project_of_a_task_type_not_registered_here_is_refused(app, demo, tmp_path):
    archive = resealed(exported(app, tmp_path), field_set("projects", "task_type", "no-such-type"))
    assert "tables/projects.jsonl, line 1, column task_type: unknown task type 'no-such-type'" in import_refused(
        app, archive)


def test_project_settings_the_task_type_does_not_accept_are_refused(app, demo, tmp_path):
    archive = resealed(exported(app, tmp_path), field_set("projects", "settings", {"no_such_setting": 1}))
    message = import_refused(app, archive)
    assert "tables/projects.jsonl, line 1, column settings:" in message and "no_such_setting" in message


def test_quality_settings_out_of_their_range_are_refused(app, demo, tmp_path):
    archive = resealed(exported(app, tmp_path), field_set("projects", "quality", {"max_k": 1}))
    assert "tables/projects.jsonl, line 1, column quality: max_k (1) must be at least" in import_refused(app, archive)


def test_a_declared_definition_that_is_not_one_is_refused(app, demo, tmp_path):
    archive = resealed(exported(app, tmp_path), field_set("projects", "definition", {"name": "x"}))
    message = import_refused(app, archive)
    assert "tables/projects.jsonl, line 1, column definition: show: is required" in message


def test_an_item_payload_no_database_keeps_is_refused_naming_its_line(app, demo, tmp_path):
    archive = resealed(exported(app, tmp_path), field_set("items", "payload", {"text": "a\u0000b"}, line=2))
    assert "tables/items.jsonl, line 2, column payload: its payload" in import_refused(app, archive)


def test_a_project_archive_without_one_of_its_tables_is_refused(app, demo, tmp_path):
    def drop(files: Files) -> Files:
        manifest = json.loads(files["manifest.json"])
        manifest["tables"] = [t for t in manifest["tables"] if t["name"] != "labels"]
        return {**{n: c for n, c in files.items() if n != "tables/labels.jsonl"},
                "manifest.json": json.dumps(manifest).encode()}
    message = import_refused(app, resealed(exported(app, tmp_path), drop))
    assert "spoiled.zip: tables a project archive holds are missing: labels" in message


def test_account_names_are_looked_up_in_chunks(app, demo, tmp_path, monkeypatch):
    from annotator.lifecycle import project_move
    monkeypatch.setattr(project_move, "NAMES_PER_QUERY", 1)
    archive = exported(app, tmp_path)
    before = counts()
    result = app.test_cli_runner().invoke(args=["project", "import-all", str(archive), "--slug", "copy"])
    with zipfile.ZipFile(archive) as opened:
        accounts = opened.read("tables/users.jsonl").count(b"\n")
    assert result.exit_code == 1 and f"{accounts} account names of the archive exist here" in result.output
    assert counts() == before


def test_a_project_cannot_be_imported_under_the_slug_of_an_admin_page(app, demo, tmp_path):
    archive = exported(app, tmp_path)
    before = counts()
    result = app.test_cli_runner().invoke(args=["project", "import-all", str(archive), "--slug", "import-archive",
                                                "--reuse-accounts"])
    assert result.exit_code == 1 and "'import-archive' is the address of an admin page" in result.output
    assert counts() == before


def test_no_new_project_takes_the_slug_of_an_admin_page(app, demo):
    import pytest

    from annotator.campaigns.projects import get_or_create_project
    from annotator.core.errors import FormatError
    before = counts()
    with pytest.raises(FormatError, match="address of an admin page"):
        get_or_create_project("import-archive", "custom")
    assert counts() == before


def test_an_item_row_the_database_refuses_is_named_by_its_line(app, demo, tmp_path):
    def same_id(files: Files) -> Files:
        columns = next(t["columns"] for t in json.loads(files["manifest.json"])["tables"] if t["name"] == "items")
        at = [c["name"] for c in columns].index("external_id")

        def change(rows: list[list]) -> None:
            rows[2][at] = rows[0][at]  # two items of one project with one id
        return lines_changed("tables/items.jsonl", change)(files)
    message = import_refused(app, resealed(exported(app, tmp_path), same_id))
    assert "tables/items.jsonl, line 3: the database refused the row:" in message


def test_crowd_filters_that_are_not_valid_are_refused(app, demo, tmp_path):
    archive = resealed(exported(app, tmp_path), field_set("projects", "quality", {"crowd": {"countries": ["ZZ"]}}))
    message = import_refused(app, archive)
    assert "tables/projects.jsonl, line 1, column quality: option countries: 'ZZ' is not an ISO" in message


def test_an_account_the_database_refuses_is_a_refusal_naming_its_line(app, demo, tmp_path, monkeypatch):
    """Behind the name checks (switched off here), the database's own refusal is still a located refusal."""
    from annotator.lifecycle import project_move
    monkeypatch.setattr(project_move, "_check_names", lambda archive, entry, names: None)

    def twice(rows: list[list]) -> None:
        rows[0][1] = rows[1][1] = "nobody-here-yet"
    message = import_refused(app, resealed(exported(app, tmp_path), lines_changed("tables/users.jsonl", twice)))
    assert "tables/users.jsonl, line 2: the database refused the row:" in message
