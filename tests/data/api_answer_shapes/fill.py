"""Fill in what today's API does with each answer of the files beside this one (see README.md).

    .venv/bin/python tests/data/api_answer_shapes/fill.py [TYPE...]

(from the repository's root). For each case of each file it takes a fresh copy of an SQLite database migrated to
head, posts the case through the JSON API to a new project of its set-up (tests/support/api_answer_shapes.py,
`run_case`) and writes, beside the case's input (`why`, `annotator`, `answer` or `body`), what happened: `status`,
`stored_answer`, `labels`, `presentation` for an accepted answer, `status` and `error` for a refused one. It
refuses to write a case whose outcome changed kind (an answer meant as accepted that was refused, or the other way
round), so the files keep saying what they claim.

Only run it with today's code, before the HIT types become definitions of one engine: run afterwards it would
make the files say whatever the new code does, and the test would check nothing.
"""
from __future__ import annotations

import contextvars
import json
import re
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[2]))

from flask import Flask  # noqa: E402
from flask.testing import FlaskClient  # noqa: E402
from flask_migrate import upgrade  # noqa: E402

from annotator import create_app  # noqa: E402
from annotator.core.extensions import db  # noqa: E402
from annotator.core.models import User  # noqa: E402
from annotator.core.schema import init_migrations  # noqa: E402
from annotator.people.accounts import issue_token  # noqa: E402
from tests.conftest import RequestClient  # noqa: E402
from tests.support.api_answer_shapes import TYPES, run_case, setup_path, shapes_of  # noqa: E402

# A list of numbers, text or nulls, written on one line (a label row, a span, the tags): the files stay readable.
FLAT_LIST = re.compile(r'\[\n\s*((?:(?:-?[0-9.]+|"(?:[^"\\]|\\.)*"|null|true|false),\n\s*)*'
                       r'(?:-?[0-9.]+|"(?:[^"\\]|\\.)*"|null|true|false))\n\s*\]')


def client_maker(app: Flask) -> Any:
    def client_for(name: str) -> FlaskClient:
        user = User(username=name, role="annotator")
        user.set_password("correct horse battery")
        db.session.add(user)
        token = issue_token(user)
        db.session.commit()
        client = app.test_client()
        client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {token}"
        return client
    return client_for


def fill_case(template: Path, setup: dict[str, Any], kind: str, case: dict[str, Any]) -> None:
    """Run the case on a copy of the migrated template and write its outcome into it."""
    with tempfile.TemporaryDirectory() as folder:
        shutil.copy(template, Path(folder) / "shapes.db")
        app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=f"sqlite:///{folder}/shapes.db",
                         EXPORT_DIR=Path(folder) / "exports")
        app.test_client_class = RequestClient
        with app.app_context():
            got = run_case(setup, kind, case, client_maker(app))
            db.session.remove()
            db.engine.dispose()
    if (kind == "accepted") != (got["status"] in (200, 201)):
        raise SystemExit(f"{case['why']}: meant as {kind}, answered {got['status']}")
    case.update({key: value for key, value in got.items() if key != "presentation" or value is not None})


def migrated(folder: Path) -> Path:
    path = folder / "template.db"
    app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=f"sqlite:///{path}")
    init_migrations(app)
    with app.app_context():
        upgrade()
        db.engine.dispose()
    return path


def main(types: list[str]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        template = migrated(Path(folder))
        for task in types:
            fill_type(template, task)


def fill_type(template: Path, task: str) -> None:
    shapes = shapes_of(task)
    for setup in shapes["projects"]:
        for kind in ("accepted", "refused"):
            for case in setup[kind]:
                contextvars.Context().run(fill_case, template, setup, kind, case)
    text = FLAT_LIST.sub(lambda m: "[" + ", ".join(part.strip() for part in m.group(1).split(",\n")) + "]",
                         json.dumps(shapes, indent=1, ensure_ascii=False))
    setup_path(task).write_text(text + "\n", encoding="utf-8")
    print(f"{task}: {sum(len(s['accepted']) + len(s['refused']) for s in shapes['projects'])} cases")


if __name__ == "__main__":
    main(sys.argv[1:] or list(TYPES))
