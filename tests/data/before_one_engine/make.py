"""Build the database of today's code that the upgrade test keeps (see SOURCE.md beside this file).

    .venv/bin/python tests/data/before_one_engine/make.py [OUT_FOLDER]

(from the repository's root; OUT_FOLDER defaults to this file's folder). Steps, each through the project's own
commands or functions, as a user's server would run them:

1. `flask db upgrade` and `flask demo` on a new SQLite file (the `make run` of a new user): an admin, three demo
   annotators, one project per built-in HIT type and the declared campaign's demo, with their demo votes.
2. Quality control and crowd work on top, through the engine as the HIT pages use it:
   - kpa-demo: a qualification quiz of 2 control items (3 drawn with `flask controls draw`); `annotator4` passes
     it and votes on, `annotator5` fails it;
   - cloze-demo: blocking at an accuracy under 0.6 on control items (2 drawn); `annotator6` answers them wrong
     and is blocked, and the 0.1 control rate is set back afterwards, as an organiser would once the check ran;
   - emphasis-demo: a Prolific study link (`flask crowd-link`); a Prolific worker enters through it (an account
     made by the entry page) and answers 3 HITs.
3. Every output of every project (tests/support/before_one_engine.py, `steps_of`), written under exports/<slug>/<step>/
   (a file whole when it is small, else only in the manifest), the rows (rows.json) and the manifest
   (manifest.json: the Alembic revision, each step and each file's SHA-256 and size).

Only run it with today's code (before the HIT types become definitions of one engine): its output is what the
later code must give back.
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
from annotator.core.extensions import db  # noqa: E402
from annotator.core.models import (  # noqa: E402
    QUIZ_FAILED,
    QUIZ_PASSED,
    AnnotatorState,
    CrowdWorker,
    Item,
    Project,
    User,
)
from annotator.core.quality_settings import checked_quality  # noqa: E402
from annotator.engine import assignment as engine  # noqa: E402
from annotator.people.accounts import create_user  # noqa: E402
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

DEMO_PASSWORD = "demo-annotator-pass"
DATABASE = "annotator.db"
PROLIFIC_PID = "5f1a2b3c4d5e6f7a8b9c0d1e"
SEED = 20261128


def flask(database: Path, *args: str) -> str:
    """`flask --app annotator ARGS` as a user runs it, on `database`; its output."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}", "SECRET_KEY": "before-one-engine",
           "ANNOTATOR_INSTANCE": str(database.parent / "instance"),
           "ANNOTATOR_ADMIN_PASSWORD": ADMIN_PASSWORD, "ANNOTATOR_DEMO_PASSWORD": DEMO_PASSWORD}
    done = subprocess.run([sys.executable, "-m", "flask", "--app", "annotator", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SystemExit(f"flask {' '.join(args)} failed:\n{done.stdout}\n{done.stderr}")
    return done.stdout


def project(slug: str) -> Project:
    return db.session.scalars(select(Project).where(Project.slug == slug)).one()


def set_quality(slug: str, **values: Any) -> None:
    """The quality card's settings, checked as the admin page checks them."""
    chosen = project(slug)
    chosen.quality = checked_quality(chosen, values)
    db.session.commit()


def annotator(name: str) -> User:
    user = create_user(name, "annotator", DEMO_PASSWORD).user
    db.session.commit()
    return user


def answer_hits(user: User, slug: str, answer: Any, hits: int) -> int:
    """Up to `hits` HITs of `user` through the engine (next_for, then submit), `answer(item, shown)` each; stops
    when nothing is left or the annotator is screened out. The HITs answered."""
    chosen = project(slug)
    task = project_task(chosen)
    settings = task.settings_of(chosen)
    for done in range(hits):
        try:
            lease = engine.next_for(user, chosen)
        except engine.ScreenedOut:
            return done
        if lease is None:
            return done
        item = db.session.get_one(Item, lease.item.id)
        shown = task.public_item(lease.item, settings, lease.presentation)
        engine.submit(lease.id, user, answer(item, shown))
    return hits


def kpa_right(item: Item, shown: dict[str, Any]) -> dict[str, Any]:
    """The key points the imported labels match (a control's known answer), as an annotator who agrees."""
    return {"matches": [kp["id"] for kp in shown["key_points"] if (item.reference or {}).get(kp["id"]) == 1]}


def kpa_wrong(item: Item, shown: dict[str, Any]) -> dict[str, Any]:
    return {"matches": [kp["id"] for kp in shown["key_points"] if (item.reference or {}).get(kp["id"]) != 1]}


def cloze_wrong(item: Item, shown: dict[str, Any]) -> dict[str, Any]:
    known = (item.reference or {}).get("label", 0)
    return {"option": (known + 1) % len(shown["options"]), "passage_span": None, "question_span": None,
            "difficulty": "easy"}


def quality_and_crowd(app: Any, database: Path) -> None:
    """Step 2 of the module's docstring."""
    with app.app_context():
        print(flask(database, "controls", "draw", "3", "--project", "kpa-demo", "--seed", "1"), end="")
        set_quality("kpa-demo", quiz_items=2, quiz_pass_mark=0.8)
        passing, failing = annotator("annotator4"), annotator("annotator5")
        voted = answer_hits(passing, "kpa-demo", kpa_right, 8)
        failed = answer_hits(failing, "kpa-demo", kpa_wrong, 8)
        print(f"kpa-demo: annotator4 answered {voted} HITs, annotator5 {failed} (then screened out)")

        print(flask(database, "controls", "draw", "2", "--project", "cloze-demo", "--seed", "1"), end="")
        set_quality("cloze-demo", control_rate=1.0, block_min_controls=2, block_accuracy=0.6)
        careless = annotator("annotator6")
        blocked = answer_hits(careless, "cloze-demo", cloze_wrong, 4)
        set_quality("cloze-demo", control_rate=0.1)
        print(f"cloze-demo: annotator6 answered {blocked} HITs (then blocked)")

        link = flask(database, "crowd-link", "--project", "emphasis-demo", "--platform", "prolific", "--hits", "3",
                     "--completion-code", "C0MPL3TE", "--base-url", "https://annotate.example.org")
        url = link.strip().splitlines()[-1].removeprefix("https://annotate.example.org")
        db.session.remove()
    # Prolific fills in the link's placeholders with the worker's and the study's ids.
    visited = (url.replace("{{%PROLIFIC_PID%}}", PROLIFIC_PID).replace("{{%STUDY_ID%}}", "study1")
               .replace("{{%SESSION_ID%}}", "session1"))
    entered = app.test_client().get(visited)
    assert entered.status_code == 302, entered.get_data(as_text=True)[:500]
    with app.app_context():
        worker = db.session.scalars(select(User).where(User.username == f"prolific:{PROLIFIC_PID}")).one()
        rng = random.Random(SEED)
        task = project_task(project("emphasis-demo"))
        crowd = answer_hits(worker, "emphasis-demo", lambda item, shown: task.example_answer(shown, rng), 3)
        print(f"emphasis-demo: the Prolific worker answered {crowd} HITs")
        check_the_mix()
        db.session.remove()


def check_the_mix() -> None:
    """What the data must hold for the upgrade test to mean something; SystemExit naming what is missing."""
    states = {(s.user_id, s.project_id): s for s in db.session.scalars(select(AnnotatorState))}
    users = {u.username: u.id for u in db.session.scalars(select(User))}
    kpa, cloze = project("kpa-demo").id, project("cloze-demo").id
    wanted = {
        "annotator4 passed kpa-demo's quiz": states.get((users["annotator4"], kpa)) is not None
        and states[(users["annotator4"], kpa)].quiz_status == QUIZ_PASSED,
        "annotator5 failed kpa-demo's quiz": states.get((users["annotator5"], kpa)) is not None
        and states[(users["annotator5"], kpa)].quiz_status == QUIZ_FAILED,
        "annotator6 is blocked in cloze-demo": states.get((users["annotator6"], cloze)) is not None
        and states[(users["annotator6"], cloze)].blocked_at is not None,
        "a Prolific worker": db.session.scalar(select(CrowdWorker)) is not None,
    }
    missing = [what for what, there in wanted.items() if not there]
    if missing:
        raise SystemExit("the database lacks: " + "; ".join(missing))


def write_outputs(app: Any, out: Path) -> dict[str, Any]:
    """Step 3: every step of every project run, its files kept under exports/; the manifest's projects."""
    with app.app_context():
        steps = {p.slug: steps_of(p) for p in db.session.scalars(select(Project).order_by(Project.slug))}
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


def main(out: Path) -> None:
    with tempfile.TemporaryDirectory() as work:
        database = Path(work) / DATABASE
        flask(database, "db", "upgrade")
        print(flask(database, "demo"), end="")
        app = create_app("config.Config", SQLALCHEMY_DATABASE_URI=f"sqlite:///{database}",
                         SECRET_KEY="before-one-engine", INSTANCE_DIR=Path(work) / "instance",
                         EXPORT_DIR=Path(work) / "exports")
        quality_and_crowd(app, database)
        with app.app_context():
            revision = db.session.scalar(text("SELECT version_num FROM alembic_version"))
            rows = stored_rows()
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
