"""`flask demo` (what `make run` calls): one project per HIT type, with votes, and the admin's demo page."""
from __future__ import annotations

import os
import random
import re
import subprocess
import sys
from pathlib import Path

from sqlalchemy import func, select

from annotator.analysis.results import labels_frame, project_agreement
from annotator.campaigns.demo_projects import DEMO, DEMO_ANNOTATORS, demo_projects
from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Label, Project, User
from annotator.engine import assignment as engine
from annotator.figures.kept_gold import gold_frame
from annotator.tasks import TASK_TYPES, project_task
from tests.conftest import DEMO_PASSWORDS, stored

ROOT = Path(__file__).resolve().parents[2]
PASSWORDS = DEMO_PASSWORDS


def _demo(app, env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    result = app.test_cli_runner().invoke(args=["demo"], env=env or PASSWORDS)
    assert result.exit_code == 0, result.output
    return result


def _count(model) -> int:  # type: ignore[no-untyped-def]
    return db.session.scalar(select(func.count()).select_from(model))


# Built-in types whose demo project is a declared project of their shared task's definition since the switch to one
# engine (docs/one-engine.md); they go with the type.
SERVED_DECLARED = {"emphasis", "cloze", "stance_premise", "kp_match", "kp_match_check", "kp_set_compare"}


def test_the_demo_holds_a_project_of_every_registered_hit_type(demo):
    assert {p.task_type for p in db.session.scalars(select(Project))} == set(TASK_TYPES) - SERVED_DECLARED


def test_the_demos_ruarg_project_is_a_declared_project_of_the_definition_with_the_three_claims(demo):
    project = stored(Project, slug="stance-demo")
    assert (project.task_type, project.source["format"]) == ("custom", "ruarg2022")
    group = project.definition["questions"][0]
    assert (group["repeat"], [e["id"] for e in group["elements"]]) == ("claims", ["masks", "quarantine", "vaccines"])


def test_the_demos_emphasis_project_is_a_declared_project_of_the_definition(demo):
    project = stored(Project, slug="emphasis-demo")
    assert (project.task_type, project.source["format"]) == ("custom", "emphasis2020")
    assert project.definition["questions"][0]["boundaries"] is True


def test_the_demos_recam_project_is_a_declared_project_of_the_definition_with_the_selection_rule(demo):
    project = stored(Project, slug="cloze-demo")
    assert (project.task_type, project.source["format"]) == ("custom", "recam2021")
    assert project.definition["questions"][0]["gold"]["rule"] == "recam_selection"


def test_the_demos_kpa_projects_are_declared_projects_of_the_three_definitions(demo):
    found = {slug: stored(Project, slug=slug) for slug in ("kpa-demo", "kpa-check-demo", "kpa-compare-demo")}
    assert {slug: (p.task_type, p.source["format"], p.definition["name"]) for slug, p in found.items()} == {
        "kpa-demo": ("custom", "kpa2021", "Argument / key-point match (KPA-2021)"),
        "kpa-check-demo": ("custom", "kpa2021-check", "Key-point match check (KPA-2021 Track 2)"),
        "kpa-compare-demo": ("custom", "kpa2021-compare", "Key-point set comparison (KPA-2021 Track 2)")}
    assert found["kpa-compare-demo"].settings["check_project"] == "kpa-check-demo"   # the generation ranking's link


def test_every_demo_project_has_items_votes_and_guidelines(demo):
    for spec in demo_projects():
        project = stored(Project, slug=spec["slug"])
        votes = db.session.scalar(select(func.count()).select_from(Assignment).where(
            Assignment.project_id == project.id, Assignment.status == "submitted"))
        items = db.session.scalar(select(func.count()).select_from(Item).where(Item.project_id == project.id))
        assert items > 0 and votes > 0 and project.guidelines, spec["slug"]


def test_gold_and_agreement_are_computed_for_every_demo_project(demo):
    for spec in demo_projects():
        project = stored(Project, slug=spec["slug"])
        labels = labels_frame(project)
        assert len(gold_frame(project, labels)) > 0, spec["slug"]
        assert any(a.fleiss_kappa.value is not None for a in project_agreement(project, labels)), spec["slug"]


def _items_with(project: Project, votes: int) -> int:
    return db.session.scalar(select(func.count()).select_from(Item).where(Item.project_id == project.id,
                                                                          Item.done_count == votes))


def _do_every_hit(user: User, project: Project) -> int:
    """The user answers every HIT the engine deals them in the project; how many that was."""
    task = project_task(project)
    settings, rng, done = task.settings_of(project), random.Random(7), 0
    while (lease := engine.next_for(user, project)) is not None:
        engine.submit(lease.id, user, task.example_answer(task.public_item(lease.item, settings, lease.presentation),
                                                          rng))
        done += 1
    return done


def test_every_demo_project_has_its_complete_items_and_its_open_items_without_a_vote(demo):
    for spec in demo_projects():
        project = stored(Project, slug=spec["slug"])
        assert _items_with(project, project.k) == spec["complete"], spec["slug"]
        assert _items_with(project, 0) == spec["open"] >= 3, spec["slug"]


def test_every_demo_annotator_and_a_new_one_get_a_hit_in_every_demo_campaign(demo, make_user):
    newcomer = make_user("newcomer")
    for spec in demo_projects():
        project = stored(Project, slug=spec["slug"])
        for user in [*(stored(User, username=name) for name in DEMO_ANNOTATORS), newcomer]:
            assert engine.next_for(user, project) is not None, (spec["slug"], user.username)


def test_a_new_annotator_still_gets_the_open_items_once_the_first_demo_annotator_did_all_theirs(demo, make_user):
    newcomer = make_user("newcomer")
    for spec in demo_projects():
        project = stored(Project, slug=spec["slug"])
        assert _do_every_hit(stored(User, username=DEMO_ANNOTATORS[0]), project) >= spec["open"], spec["slug"]
        assert _do_every_hit(newcomer, stored(Project, slug=spec["slug"])) == spec["open"], spec["slug"]


def test_a_second_demo_run_adds_nothing(app, demo):
    before = [_count(m) for m in (User, Project, Item, Assignment, Label)]
    second = _demo(app)
    assert [_count(m) for m in (User, Project, Item, Assignment, Label)] == before
    assert "Demo project" not in second.output and "Admin account" not in second.output


def test_a_second_demo_run_names_the_accounts_and_how_to_set_a_new_password(app, demo):
    second = _demo(app).output
    assert "Log in as admin, annotator1, annotator2, annotator3" in second
    assert "`.venv/bin/flask --app annotator users password NAME`" in second
    assert PASSWORDS["ANNOTATOR_DEMO_PASSWORD"] not in second and PASSWORDS["ANNOTATOR_ADMIN_PASSWORD"] not in second


def test_the_command_the_second_run_names_sets_a_password_that_logs_in(app, demo):
    result = app.test_cli_runner().invoke(args=["users", "password", "annotator1"])
    assert result.exit_code == 0, result.output
    password = re.search(r"Password: (\S+)", result.output).group(1)
    assert stored(User, username="annotator1").check_password(password)


def test_the_readmes_quick_start_says_how_to_serve_on_another_port():
    quick_start = (ROOT / "README.md").read_text(encoding="utf-8").split("## Quick start", 1)[1].split("\n## ", 1)[0]
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert "PORT=8000 make run" in quick_start
    assert "PORT ?= 5000" in makefile and "--bind $(HOST):$(PORT)" in makefile


def test_the_demo_votes_are_the_same_at_every_run(app, demo):
    def answers() -> list[tuple[str, str, str, str, str]]:
        rows = db.session.execute(select(Project.slug, Item.external_id, User.username, Assignment.answer,
                                         Assignment.presentation)
                                  .join(Item, Assignment.item_id == Item.id).join(Project).join(User)).all()
        return sorted((slug, item, user, repr(answer), repr(shown)) for slug, item, user, answer, shown in rows)
    first = answers()  # of the run that the `demo` fixture holds
    for project in db.session.scalars(select(Project)):
        db.session.delete(project)
    db.session.commit()
    _demo(app)
    assert answers() == first and first


def test_the_demo_prints_the_demo_annotators_password_which_logs_them_in(app):
    output = _demo(app, env={"ANNOTATOR_ADMIN_PASSWORD": "demo-admin-pass"}).output
    password = re.search(r"Demo annotators: annotator1, annotator2, annotator3 / (\S+)", output).group(1)
    assert all(stored(User, username=name).check_password(password) for name in DEMO_ANNOTATORS)


def test_the_demo_says_what_each_project_is_for(demo):
    assert all(f"Demo project {spec['slug']!r} ({spec['purpose']})" in demo for spec in demo_projects())


def test_the_demo_says_how_many_items_each_project_leaves_without_a_vote(demo):
    lines = {line.split("'")[1]: line for line in demo.splitlines() if line.startswith("Demo project ")}
    assert all(f" {spec['open']} items left without a vote, for everyone." in lines[spec["slug"]]
               for spec in demo_projects())


def test_every_demo_file_has_a_source_note_beside_it(app):
    for spec in demo_projects():
        folder = DEMO / spec["path"] if (DEMO / spec["path"]).is_dir() else (DEMO / spec["path"]).parent
        assert (folder / "SOURCE.md").is_file() or (folder / "LICENCE.md").is_file(), spec["path"]


def test_make_runs_steps_on_a_new_database_load_every_demo_project(tmp_path):
    """`make run` as on a fresh clone: `flask db upgrade` then `flask demo`, as processes, on a new SQLite file."""
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{tmp_path / 'demo.db'}", "SECRET_KEY": "demo-test"}
    env.pop("ANNOTATOR_ADMIN_PASSWORD", None)
    flask = [sys.executable, "-m", "flask", "--app", "annotator"]
    upgrade = subprocess.run([*flask, "db", "upgrade"], env=env, cwd=ROOT, capture_output=True, text=True)
    assert upgrade.returncode == 0, upgrade.stderr
    demo = subprocess.run([*flask, "demo"], env=env, cwd=ROOT, capture_output=True, text=True)
    assert demo.returncode == 0, demo.stderr
    assert "Admin account: admin / " in demo.stdout and "Demo annotators: " in demo.stdout
    assert all(f"Demo project {spec['slug']!r}" in demo.stdout for spec in demo_projects())
