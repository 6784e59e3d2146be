"""Build the database of RuArg-2022 projects of the built-in stance_premise type that the upgrade test keeps (see
SOURCE.md beside this file).

    .venv/bin/python tests/data/before_one_engine_ruarg/make.py [OUT_FOLDER]

(from the repository's root; OUT_FOLDER defaults to this file's folder). The kept demo database
(tests/data/before_one_engine) holds one RuArg project, at stage "both" with the defaults; this one holds what it
lacks, each made through the project's own functions as a user's server would run them, with the code before the
built-in type's projects were migrated (migration 0022_stance_premise_declared):

1. `flask db upgrade 0021_cloze_declared` on a new SQLite file (the revision before that migration); an admin and
   four annotators.
2. Built-in projects (`flask import ruarg2022 ... --no-declared`, the import's function) and their votes through the
   engine (next_for, then submit), each annotator giving a sentence's file labels or a seeded truth three times in
   four and a seeded random code otherwise:
   - `ru-m3`: train_excerpt.tsv, stage both, k 4 and agree 3 (the test set's rule), an admin's decision of its first
     undecided sentence, a control item drawn from the file's labels (`flask controls draw`);
   - `ru-stance`: val_excerpt.tsv (no labels), stage stance, the HIT in Russian, k 2, a control item drawn from its
     gold; then `ru-premise`, its premise stage (`flask premise-stage`), k 2, voted, with an admin's decision of its
     first undecided sentence;
   - `ru-claims`: train_excerpt.tsv about other claims (`--claims`: masks and school), k 2.
3. Every output of every project (tests/support/before_one_engine.py, `steps_of`), the rows and the manifest, as
   tests/data/before_one_engine/make.py writes them.

Only run it with the code before migration 0022_stance_premise_declared (the built-in type still there): its output
is what the later code must give back.
"""
from __future__ import annotations

import json
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import tempfile
from contextlib import closing
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(ROOT))

from sqlalchemy import select, text  # noqa: E402

from annotator import create_app  # noqa: E402
from annotator.actions.adjudication import adjudicate  # noqa: E402
from annotator.actions.imports import import_project  # noqa: E402
from annotator.core.audit import who  # noqa: E402
from annotator.core.extensions import db  # noqa: E402
from annotator.core.models import Assignment, Item, Project, User  # noqa: E402
from annotator.engine import assignment as engine  # noqa: E402
from annotator.figures.kept_gold import gold_frame  # noqa: E402
from annotator.lookups.formats import file_format  # noqa: E402
from annotator.people.accounts import create_user  # noqa: E402
from annotator.shared_tasks.ruarg2022.stages import create_premise_stage  # noqa: E402
from annotator.tasks import project_task  # noqa: E402
from tests.support.before_one_engine import (  # noqa: E402
    ADMIN_PASSWORD,
    MANIFEST,
    ROWS,
    admin_client,
    file_entry,
    run_step,
    steps_of,
    stored_rows,
)

DATABASE = "annotator.db"
REVISION = "0021_cloze_declared"
DATA = ROOT / "tests" / "data" / "ruarg2022"
PASSWORD = "ruarg-annotator-pass"
SEED = 20261128
CODES = (2, 0, 1)


def flask(database: Path, *args: str) -> str:
    """`flask --app annotator ARGS` as a user runs it, on `database`; its output."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}", "SECRET_KEY": "before-one-engine",
           "ANNOTATOR_INSTANCE": str(database.parent / "instance")}
    done = subprocess.run([sys.executable, "-m", "flask", "--app", "annotator", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"flask {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def project(slug: str) -> Project:
    return db.session.scalars(select(Project).where(Project.slug == slug)).one()


def imported(path: Path, slug: str, k: int, **settings: Any) -> None:
    """`flask import ruarg2022 PATH --project SLUG --k K --no-declared` with the built-in type's settings."""
    import_project(file_format("ruarg2022"), path, slug=slug, k=k, options={"declared": False}, settings=settings,
                   by=who())


def truth(item: Item, claims: list[str], rng: random.Random) -> dict[str, dict[str, int]]:
    """The sentence's file labels of these claims, or a seeded truth for a claim the file does not label."""
    known = item.reference or {}
    out = {}
    for claim in claims:
        if claim in known and "stance" in known[claim] and "premise" in known[claim]:
            out[claim] = dict(known[claim])
        else:
            relevant = rng.random() < 0.4
            out[claim] = {"stance": rng.choice(CODES), "premise": rng.choice(CODES)} if relevant else \
                {"stance": -1, "premise": -1}
    return out


def answer_for(item: Item, shown: dict[str, Any], rng: random.Random, truths: dict[str, Any]) -> dict[str, Any]:
    """Each claim asked as its truth three times in four, else a random code (or irrelevant), for the labels the
    stage asks (`labels` in the item, else both)."""
    fields = tuple(shown.get("labels", ("stance", "premise")))
    claims = list(shown["claims"])
    base = truths.setdefault(item.external_id, truth(item, claims, random.Random(f"{SEED}:{item.external_id}")))
    given = {}
    for claim in claims:
        codes = base.get(claim) or {"stance": 2, "premise": 1}
        if "stance" not in fields and codes["premise"] == -1:   # the premise stage: the claim is relevant
            codes = {**codes, "premise": 1}
        if rng.random() < 0.25:
            if "stance" in fields and rng.random() < 0.5:
                codes = {"stance": -1, "premise": -1}
            else:
                codes = {"stance": rng.choice(CODES), "premise": rng.choice(CODES)}
        given[claim] = {field: codes[field] for field in fields}
    return {"claims": given}


def vote_all(slug: str, users: list[User], rng: random.Random, truths: dict[str, Any]) -> int:
    """Every HIT each annotator gets, through the engine as the HIT pages use it; the votes given."""
    chosen = project(slug)
    task = project_task(chosen)
    settings = task.settings_of(chosen)
    done = 0
    for user in users:
        while (lease := engine.next_for(user, chosen)) is not None:
            item = db.session.get_one(Item, lease.item.id)
            shown = task.public_item(lease.item, settings, lease.presentation)
            engine.submit(lease.id, user, answer_for(item, shown, rng, truths))
            done += 1
    return done


def decide_first_undecided(slug: str, admin: User) -> str | None:
    """An admin's decision of the project's first undecided sentence (its first vote's answer), as the review page
    takes it; the sentence's id."""
    chosen = project(slug)
    task = project_task(chosen)
    undecided = task.undecided(gold_frame(chosen))
    if not undecided:
        return None
    item = db.session.scalars(select(Item).where(Item.project_id == chosen.id,
                                                 Item.external_id == undecided[0])).one()
    first = db.session.scalars(select(Assignment.answer).where(Assignment.item_id == item.id,
                                                              Assignment.answer.is_not(None))
                               .order_by(Assignment.id)).first()
    adjudicate(chosen, item, first, (admin.id, admin.username))
    db.session.commit()
    return item.external_id


def make_projects(app: Any, database: Path) -> None:
    """Step 2 of the module's docstring."""
    rng = random.Random(SEED)
    truths: dict[str, Any] = {}
    with app.app_context():
        admin = create_user("admin", "admin", ADMIN_PASSWORD).user
        users = [create_user(f"annotator{n}", "annotator", PASSWORD).user for n in range(1, 5)]
        db.session.commit()

        imported(DATA / "train_excerpt.tsv", "ru-m3", 4, agree=3)
        print("ru-m3:", vote_all("ru-m3", users, rng, truths), "votes; decided", decide_first_undecided("ru-m3", admin))

        imported(DATA / "val_excerpt.tsv", "ru-stance", 2, stage="stance", language="ru")
        print("ru-stance:", vote_all("ru-stance", users[:2], rng, truths), "votes")
        db.session.remove()
    print(flask(database, "controls", "draw", "1", "--project", "ru-m3", "--seed", "1"), end="")
    print(flask(database, "controls", "draw", "1", "--project", "ru-stance", "--seed", "1"), end="")
    with app.app_context():
        admin = db.session.scalars(select(User).where(User.username == "admin")).one()
        users = list(db.session.scalars(select(User).where(User.role == "annotator").order_by(User.id)))
        create_premise_stage("ru-stance", "ru-premise", k=2, by=who())
        print("ru-premise:", vote_all("ru-premise", users[2:], rng, truths), "votes; decided",
              decide_first_undecided("ru-premise", admin))
        imported(DATA / "train_excerpt.tsv", "ru-claims", 2, claims="masks | Masks help | Маски помогают\n"
                 "school | Schools should stay open | Школы должны работать")
        print("ru-claims:", vote_all("ru-claims", users[:2], rng, truths), "votes")
        db.session.remove()


def write_outputs(app: Any, out: Path) -> dict[str, Any]:
    """Step 3: every step of every project run, its files kept under exports/; the manifest's projects."""
    with app.app_context():
        # ru-claims has no scoring gold: the scorer reads the data set's claims, and refuses others (a FormatError
        # the leaderboard page words; tests/cli/test_ruarg2022_declared_claims.py)
        steps = {p.slug: [s for s in steps_of(p) if not (p.slug == "ru-claims" and s.name == "scoring")]
                 for p in db.session.scalars(select(Project).order_by(Project.slug))}
        db.session.remove()
    admin = admin_client(app)
    kept: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for slug, listed in steps.items():
            kept[slug] = []
            for step in listed:
                result = run_step(app, admin, slug, step, Path(scratch) / slug / step.name)
                files = result.pop("files")
                entries = {}
                for path, content in files.items():
                    entries[path] = file_entry(content)
                    if entries[path]["kept"]:
                        target = out / "exports" / slug / step.name / path
                        target.parent.mkdir(parents=True, exist_ok=True)
                        target.write_bytes(content)
                kept[slug].append({**step.to_json(), **result, "files": entries})
                print(f"{slug} {step.name}: {len(files)} files")
    return kept


def adjudication_rows() -> list[dict[str, Any]]:
    """The admins' decisions (not among stored_rows' tables), by project and sentence."""
    rows = db.session.execute(text(
        "SELECT p.slug, i.external_id, a.answer FROM adjudications a JOIN items i ON i.id = a.item_id "
        "JOIN projects p ON p.id = a.project_id ORDER BY p.slug, i.external_id")).all()
    return [{"item": [slug, item], "answer": answer if isinstance(answer, dict) else json.loads(answer)}
            for slug, item, answer in rows]


def main(out: Path) -> None:
    with tempfile.TemporaryDirectory() as work:
        database = Path(work) / DATABASE
        flask(database, "db", "upgrade", REVISION)
        app = create_app("config.Config", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}",
                         SECRET_KEY="before-one-engine", INSTANCE_DIR=Path(work) / "instance",
                         EXPORT_DIR=Path(work) / "exports")
        make_projects(app, database)
        with app.app_context():
            revision = db.session.scalar(text("SELECT version_num FROM alembic_version"))
            rows = {**stored_rows(), "adjudications": adjudication_rows()}
        for old in (out / "exports", out / DATABASE, out / MANIFEST, out / ROWS):
            if old.is_dir():
                shutil.rmtree(old)
            elif old.exists():
                old.unlink()
        projects = write_outputs(app, out)
        with app.app_context():
            db.engine.dispose()
        # Through SQLite's backup: a plain copy of the file could miss what is still in its write-ahead log.
        with closing(sqlite3.connect(database)) as source, closing(sqlite3.connect(out / DATABASE)) as target:
            source.backup(target)
        os.chmod(out / DATABASE, 0o644)
    (out / ROWS).write_text(json.dumps(rows, indent=1, ensure_ascii=False, sort_keys=True) + "\n", encoding="utf-8")
    manifest = {"revision": revision, "database": DATABASE, "admin": "admin", "admin_password": ADMIN_PASSWORD,
                "counts": {table: len(values) for table, values in rows.items()}, "projects": projects}
    (out / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"{out / DATABASE}: revision {revision}, {manifest['counts']}")


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else HERE)
