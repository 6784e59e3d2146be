"""A project archive is checked as what it will become here: account names, project fields, its tables.
Each test edits a real export (checksums made to match, so only these checks can refuse it), imports it with
`flask project import-all`, and reads the counts back: a refused archive changes nothing."""
from __future__ import annotations

import json
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
