"""Which changes of state the audit trail records: every route and every `flask` command, from one table.

Built like the access matrix (tests/web/test_access_matrix.py): every POST route of the app's URL map, the GET
routes that change state, and every command of `flask` (the app's own, walked through their groups) is either
AUDITED, naming the audit action it writes and the test that checks the event (by running the route or the
command and reading the event back in a fresh session), or NOT_AUDITED with the reason. A route or a command added
without a decision fails `test_every_route_and_command_has_an_audit_decision`; a named test that stops reading
its action back fails `test_each_audited_change_names_a_test_that_reads_its_action_back`.

Every route and command changes state through a domain action (annotator/actions), which refuses to commit without
its event (tests/actions/test_base.py): `test_views_and_commands_record_no_event_and_drop_no_kept_figure_themselves`
keeps the pages and commands from writing events of their own again, and
`test_every_actions_event_is_read_back_through_a_route_or_command` keeps each action's event under the table.

The tests further down check the changes that no other module's test checked.
"""
from __future__ import annotations

import ast
import importlib
import inspect
import io
import pkgutil
from collections.abc import Callable, Iterator
from pathlib import Path

import click
import pytest
from flask import Flask
from sqlalchemy import select

import annotator.actions
from annotator.actions.base import REGISTRY
from annotator.core.extensions import db
from annotator.core.models import Project, User
from annotator.people.crowd import save_link
from annotator.plugins.registry import SHARED_TASKS
from tests.cli import test_users_unlock
from tests.conftest import DATA, DEMO_PASSWORDS, load_project, stored
from tests.lifecycle import test_project_move, test_project_move_pages
from tests.people import (
    test_audit,
    test_audit_campaigns,
    test_audit_web_accounts,
    test_erasure,
    test_erasure_pages,
    test_retention,
)
from tests.people.conftest import events
from tests.support.type_data import EVERY_FORMAT
from tests.web import test_declared_project_page as declared_page
from tests.web import test_project_setup
from tests.web import test_ruarg2022_declared_stages_admin as stages_admin
from tests.web.conftest import csrf_token

# Read-only commands (gold, agreement, tables, files written from the votes) and the reason they record nothing.
READS = "reads the votes and prints or writes files; changes nothing in the database"


def _this(name: str) -> Callable[..., object]:
    """A test of this module, looked up when the table is read (the tests are defined below it)."""
    return lambda: globals()[name]


# key: "POST endpoint", "GET endpoint" (routes that change state on GET) or "flask <command>".
AUDITED: dict[str, tuple[str, Callable[..., object]]] = {
    "POST accounts.index": ("account.create",
                            test_audit_web_accounts.test_an_account_made_on_the_page_records_its_id_and_role),
    "POST accounts.bulk": ("account.create",
                           test_audit_web_accounts.test_accounts_made_from_a_pasted_list_record_one_event_each),
    "POST accounts.new_password": ("account.password",
                                   test_audit.test_a_new_one_time_password_from_the_admin_page_is_recorded),
    "POST accounts.new_token": ("account.token",
                                test_audit_web_accounts.test_a_token_issued_and_revoked_on_the_page_records_both),
    "POST accounts.revoke_token": ("account.revoke_tokens",
                                   test_audit_web_accounts.test_a_token_issued_and_revoked_on_the_page_records_both),
    "POST accounts.toggle_active": ("account.deactivate",
                                    test_audit_web_accounts.test_deactivating_and_activating_again_record_both),
    "POST admin.project": ("project.settings", test_audit.test_changing_a_projects_settings_records_it),
    "POST crowd_admin.filters": ("crowd.filters", _this("test_crowd_filters_saved_on_the_page_are_recorded")),
    "POST crowd_admin.links": ("crowd.link", _this("test_a_crowd_link_made_on_the_page_is_recorded")),
    "POST dataset_stats.draw_split": ("split.draw",
                                      test_audit_campaigns.test_drawing_a_split_on_the_page_records_seed_names_and_sizes),
    "POST declared.create": ("import", _this("test_a_declared_project_created_on_the_page_is_recorded")),
    "POST declared.more": ("import", _this("test_more_items_of_a_declared_project_on_the_page_are_recorded")),
    "POST erasure.confirm": ("erase", test_erasure_pages.test_confirming_erases_and_deletes_the_votes),
    "POST leaderboards.from_project": ("goldset.create",
                                       test_audit_campaigns.test_a_gold_set_from_a_projects_gold_records_the_project),
    "POST leaderboards.new": ("goldset.create",
                              test_audit_campaigns.test_uploading_a_gold_set_records_it_and_the_admin),
    "POST leaderboards.show": ("leaderboard.submit",
                               test_audit_campaigns.test_a_scored_submission_records_the_board_team_and_system),
    "POST premise_stage.show": ("import", _this("test_a_premise_stage_made_on_the_page_is_recorded")),
    "POST project_move.upload": ("import", _this("test_a_project_archive_imported_on_the_page_is_recorded")),
    "POST quality.control": ("controls.change", test_audit.test_making_an_item_a_control_records_it),
    "POST quality.controls": ("controls.change", _this("test_controls_from_a_file_on_the_page_are_recorded")),
    "POST quality.retry": ("annotator.retry_quiz", test_audit.test_letting_an_annotator_retry_the_quiz_records_it),
    "POST quality.settings": ("quality.settings", test_audit.test_changing_the_quality_settings_records_them),
    "POST quality.unblock_annotator": ("annotator.unblock", test_audit.test_unblocking_an_annotator_records_it),
    "POST review.item": ("adjudicate", test_audit.test_an_adjudication_records_the_item),
    "POST setup.archive": ("project.archive", test_audit.test_archiving_a_project_records_it),
    "POST setup.audience": ("project.audience", test_audit.test_changing_who_may_annotate_records_the_account_ids),
    "POST setup.delete": ("project.delete", test_audit.test_deleting_a_project_records_it_with_its_name),
    "POST setup.more_items": ("import", _this("test_more_items_loaded_on_the_page_are_recorded")),
    "POST setup.new_project": ("import", test_audit.test_an_import_from_the_browser_records_the_admin),
    "flask controls add": ("controls.change", test_audit.test_controls_from_the_command_line_record_the_count),
    "flask controls draw": ("controls.change",
                            _this("test_controls_drawn_and_removed_on_the_command_line_are_recorded")),
    "flask controls remove": ("controls.change",
                              _this("test_controls_drawn_and_removed_on_the_command_line_are_recorded")),
    "flask crowd-filters": ("crowd.filters",
                            test_audit.test_crowd_links_and_filters_from_the_command_line_are_recorded),
    "flask crowd-link": ("crowd.link", test_audit.test_crowd_links_and_filters_from_the_command_line_are_recorded),
    "flask demo": ("import", _this("test_the_demo_records_its_accounts_and_imports")),
    "flask erase": ("erase", test_erasure.test_the_audit_event_names_only_the_pseudonym_and_counts),
    "flask premise-stage": ("import", _this("test_a_premise_stage_made_on_the_command_line_is_recorded")),
    "flask project import-all": ("import",
                                 test_project_move.test_an_imported_project_archive_is_recorded_in_the_audit_trail),
    "flask purge": ("purge", test_retention.test_the_purge_records_what_it_deleted),
    "flask stats": ("split.draw", test_audit_campaigns.test_drawing_a_split_with_flask_stats_records_the_command_line),
    "flask users activate": ("account.activate",
                             _this("test_activating_and_deactivating_on_the_command_line_are_recorded")),
    "flask users deactivate": ("account.deactivate",
                               _this("test_activating_and_deactivating_on_the_command_line_are_recorded")),
    "flask users add": ("account.create",
                        test_audit.test_accounts_tokens_and_passwords_from_the_command_line_are_recorded),
    "flask users password": ("account.password",
                             test_audit.test_accounts_tokens_and_passwords_from_the_command_line_are_recorded),
    "flask users revoke-tokens": ("account.revoke_tokens",
                                  test_audit.test_accounts_tokens_and_passwords_from_the_command_line_are_recorded),
    "flask users token": ("account.token", _this("test_a_token_issued_on_the_command_line_is_recorded")),
    "flask users unlock": ("account.unlock",
                           test_users_unlock.test_unlocking_a_name_lets_its_owner_log_in_at_once_and_is_audited),
    **{f"flask import {data.format}": ("import", _this("test_every_formats_import_command_is_recorded"))
       for data in EVERY_FORMAT.values()},
}

NOT_AUDITED: dict[str, str] = {
    "POST annotate.start": "an annotator's own lease: its row keeps who and when, and it is no admin action",
    "POST annotate.submit": "an annotator's own vote: its row keeps who and when (the votes are the record)",
    "POST api.next_hit": "an annotator's own lease through the API (as annotate.start)",
    "POST api.submit": "an annotator's own vote through the API (as annotate.submit)",
    "POST auth.login": "opens a session; failed logins are counted by the login limits, not data anyone changed",
    "POST auth.logout": "ends a session",
    "POST auth.password": "a person's own password; the trail records admins' actions on others' accounts",
    "POST declared.new": "checks a definition and previews its HIT; stores nothing (declared.create does)",
    "POST erasure.index": "the preview of an erasure; changes nothing (erasure.confirm does)",
    "GET crowd.enter": "a crowd worker's own entry to a study: their pseudonymous account and study session rows",
    "POST crowd.enter": "a signed-in visitor's own choice to sign out and enter the study (as GET crowd.enter)",
    "GET crowd.step": "a crowd worker's own progress through the study (its session row records it)",
    "flask aggregate": READS, "flask agreement": READS, "flask annotators": READS, "flask check": READS,
    "flask controls list": READS, "flask dashboard": READS, "flask mturk-hit": READS, "flask mturk-question": READS,
    "flask rank": READS, "flask replay": READS, "flask project export-all": READS,
    "flask backup": "reads the whole database into an archive; changes nothing",
    "flask scrub-files": "rewrites the database's files so that rows already deleted leave no trace (SQLite's "
                         "checkpoint, PostgreSQL's VACUUM); no row changes",
    "flask refresh-figures": "recomputes kept figures, a cache of what the votes give (flask check compares them)",
    "flask restore": "writes its event into the restored trail itself (tested in tests/lifecycle: "
                     "test_a_restore_is_recorded_in_the_audit_trail_it_carries), on an empty database only",
    **{f"flask export {name}": READS for name in ("custom", "emphasis2020", "kpa2021", "kpa2021-check",
                                                  "kpa2021-compare", "recam2021", "ruarg2022")},
    **{f"flask score {name}": READS for name in ("emphasis2020", "kpa2021", "recam2021", "ruarg2022")},
}
STATE_CHANGING_GETS = {"crowd.enter", "crowd.step"}


def _commands(command: click.Command, prefix: list[str]) -> Iterator[str]:
    if isinstance(command, click.Group):
        for name, sub in sorted(command.commands.items()):
            yield from _commands(sub, [*prefix, name])
    else:
        yield " ".join(["flask", *prefix])


def _changes(app: Flask) -> set[str]:
    routes = {f"{method} {rule.endpoint}" for rule in app.url_map.iter_rules()
              for method in (rule.methods or set()) if method == "POST" or
              (method == "GET" and rule.endpoint in STATE_CHANGING_GETS)}
    return routes | set(_commands(app.cli, []))


def test_every_route_and_command_has_an_audit_decision(app):
    changes = _changes(app)
    assert changes - set(AUDITED) - set(NOT_AUDITED) == set(), "changes of state with no audit decision"
    assert (set(AUDITED) | set(NOT_AUDITED)) - changes == set(), "decisions for routes or commands that are gone"
    assert set(AUDITED) & set(NOT_AUDITED) == set()


@pytest.mark.parametrize("change", sorted(AUDITED))
def test_each_audited_change_names_a_test_that_reads_its_action_back(change):
    action, test = AUDITED[change]
    function = test() if test.__name__ == "<lambda>" else test
    source = inspect.getsource(function)
    assert function.__name__.startswith("test_"), change
    assert f'events("{action}")' in source or f'"{action}"' in source, f"{function.__name__} never reads {action}"


ROOT = Path(__file__).resolve().parents[2]
# What only the domain layer does: record an event (core/audit.py), drop a project's kept figures (results_changed),
# and import files into a project (campaigns/imports.import_files, which the import actions call and commit).
DOMAIN_ONLY = {"record", "record_on", "results_changed", "import_files"}


def _front_ends() -> list[Path]:
    """The pages and commands: web/, cli/, and the modules of the shared tasks' own pages and commands."""
    shared = {f"{task.package}.{reference.partition(':')[0]}" for task in SHARED_TASKS.values()
              for reference in (*task.commands, *task.blueprints)}
    return sorted([*(ROOT / "annotator" / "web").glob("*.py"), *(ROOT / "annotator" / "cli").glob("*.py"),
                   *(Path(inspect.getfile(importlib.import_module(name))) for name in shared)])


def test_views_and_commands_record_no_event_and_drop_no_kept_figure_themselves():
    """A page and a command that each wrote their own event had drifted (the page's draw of control items lacked
    the seed); they parse, call an action and show, so neither writes an event, drops kept figures or imports
    files itself. Also a shared task's page and command (RuArg-2022's premise stage)."""
    paths = _front_ends()
    assert ROOT / "annotator" / "shared_tasks" / "ruarg2022" / "stage_page.py" in paths
    found = []
    for path in paths:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ({alias.name for alias in node.names} if isinstance(node, ast.ImportFrom) else
                     {node.attr} if isinstance(node, ast.Attribute) else set())
            found += [f"{path.relative_to(ROOT)}:{node.lineno} {name}" for name in sorted(names & DOMAIN_ONLY)]
    assert found == []


def test_every_actions_event_is_read_back_through_a_route_or_command():
    """Each event a domain action records is one that a route or a command of the table writes, with the test that
    reads it back: an action added for a new kind of change comes with its row in AUDITED."""
    for module in pkgutil.iter_modules(annotator.actions.__path__):
        importlib.import_module(f"annotator.actions.{module.name}")
    declared = {event for name, events in REGISTRY.items() if name.startswith("annotator.") for event in events}
    assert declared and declared - {action for action, _ in AUDITED.values()} == set()


# --- the changes that no other module's test checked ---------------------------------------------------

def _by_boss(event, boss) -> bool:  # type: ignore[no-untyped-def]
    return (event.actor_id, event.actor) == (boss.user.id, "boss")


def _form(client, url: str) -> str:  # type: ignore[no-untyped-def]
    return csrf_token(client.get(url).get_data(as_text=True))


def test_a_crowd_link_made_on_the_page_is_recorded(boss, kpa_project):
    kpa_project()
    url = "/admin/projects/kpa/crowd"
    response = boss.post(url, data={"mturk-csrf_token": _form(boss, url), "mturk-platform": "mturk", "mturk-hits": "4",
                                    "mturk-completion_code": "DONE1", "mturk-screen_out_code": ""})
    assert response.status_code == 302
    [event] = events("crowd.link")
    assert _by_boss(event, boss) and event.project == "kpa" and event.detail["platform"] == "mturk"


def test_crowd_filters_saved_on_the_page_are_recorded(app, boss, kpa_project):
    app.config["PUBLIC_BASE_URL"] = "https://annotate.example.org"
    save_link(kpa_project(), "mturk", 4, "DONE1")
    db.session.commit()
    url = "/admin/projects/kpa/crowd"
    fields = {"approval_rate_above": "90", "min_approved": "", "countries": "US", "hit_title": "",
              "hit_description": "", "reward": "", "max_assignments": "", "assignment_minutes": "",
              "lifetime_hours": "168", "frame_height": "800"}
    assert boss.post(f"{url}/filters", data={**fields, "csrf_token": _form(boss, url)}).status_code == 302
    [event] = events("crowd.filters")
    assert _by_boss(event, boss) and event.detail["approval_rate_above"] == 90


def test_controls_from_a_file_on_the_page_are_recorded(boss, kpa_project):
    kpa_project()
    url = "/admin/projects/kpa"
    response = boss.post(f"{url}/controls", content_type="multipart/form-data", data={
        "csrf_token": _form(boss, url), "action": "add", "file": (io.BytesIO(b"item\narg_1_0\n"), "controls.csv")})
    assert response.status_code == 302
    [event] = events("controls.change")
    assert _by_boss(event, boss) and event.detail == {"action": "add", "items": 1}


def test_a_declared_project_created_on_the_page_is_recorded(boss):
    page = declared_page._post(boss).get_data(as_text=True)
    form = page[page.index('id="create-form"'):]
    response = boss.post("/admin/projects/declared/create", data={"csrf_token": csrf_token(form),
                                                                  "token": declared_page._token(form)})
    assert response.status_code == 302
    [event] = events("import")
    assert _by_boss(event, boss) and event.project == "quotes" and event.detail["items"] == 3


def test_more_items_of_a_declared_project_on_the_page_are_recorded(boss):
    assert declared_page._post(boss, action="create").status_code == 302
    assert declared_page._more(boss, declared_page.NEW).status_code == 302
    created, added = events("import")
    assert _by_boss(added, boss) and added.project == "quotes" and added.detail["items"] == 1
    assert added.detail["created"] is False and created.detail["created"] is True


def test_more_items_loaded_on_the_page_are_recorded(boss):
    files = [test_project_setup._upload(test_project_setup.EMPHASIS / "dev_excerpt.txt", "data.txt")]
    assert test_project_setup._new_project(boss, "emphasis2020", files).status_code == 302
    extra = (test_project_setup.EMPHASIS / "train_excerpt.txt").read_bytes()
    assert test_project_setup._more(boss, "mine", [(io.BytesIO(extra), "data.txt")],
                                    **test_project_setup._ticked("emphasis2020")).status_code == 302
    created, added = events("import")
    assert _by_boss(added, boss) and added.project == "mine" and added.detail["created"] is False


def test_a_premise_stage_made_on_the_page_is_recorded(boss, make_user):
    stance = load_project("ruarg2022", stages_admin.TRAIN, "st", k=2, stage="stance")
    stages_admin._decide(stance, make_user, "17024", "17037")
    response = stages_admin._post_stage(boss, slug="pr", name="Premises", k="4", agree="3")
    assert response.status_code == 302
    [event] = [e for e in events("import") if e.project == "pr"]
    assert _by_boss(event, boss) and event.detail["format"] == "premise-stage" and event.detail["from"] == "st"


def test_a_premise_stage_made_on_the_command_line_is_recorded(app, make_user):
    stance = load_project("ruarg2022", stages_admin.TRAIN, "st", k=2, stage="stance")
    stages_admin._decide(stance, make_user, "17024")
    result = app.test_cli_runner().invoke(args=["premise-stage", "--from", "st", "--project", "pr"])
    assert result.exit_code == 0, result.output
    [event] = [e for e in events("import") if e.project == "pr"]
    assert event.actor.startswith("command line") and event.detail["format"] == "premise-stage"


def test_a_project_archive_imported_on_the_page_is_recorded(app, demo, login):
    admin = login("admin", DEMO_PASSWORDS["ANNOTATOR_ADMIN_PASSWORD"])
    archive = admin.get("/admin/projects/kpa-demo/archive.zip")
    assert archive.status_code == 200
    response = test_project_move_pages.upload(admin, archive.data, slug="kpa-moved", reuse_accounts="y")
    assert response.status_code == 302
    [event] = [e for e in events("import") if e.project == "kpa-moved"]
    assert event.actor == "admin" and event.detail["kind"] == "project archive"


def test_controls_drawn_and_removed_on_the_command_line_are_recorded(app, kpa_project, tmp_path):
    kpa_project()
    runner = app.test_cli_runner()
    drawn = runner.invoke(args=["controls", "draw", "2", "--project", "kpa", "--seed", "7"])
    assert drawn.exit_code == 0, drawn.output
    (tmp_path / "remove.csv").write_text("item\narg_1_0\n", encoding="utf-8")
    removed = runner.invoke(args=["controls", "remove", str(tmp_path / "remove.csv"), "--project", "kpa"])
    assert removed.exit_code == 0, removed.output
    draw, remove = events("controls.change")
    assert draw.detail == {"action": "draw", "items": 2, "seed": 7} and draw.actor.startswith("command line")
    assert remove.detail["action"] == "remove" and remove.actor.startswith("command line")


def test_activating_and_deactivating_on_the_command_line_are_recorded(app, make_user):
    ann = make_user("ann")
    runner = app.test_cli_runner()
    assert runner.invoke(args=["users", "deactivate", "ann"]).exit_code == 0
    assert runner.invoke(args=["users", "activate", "ann"]).exit_code == 0
    [off], [on] = events("account.deactivate"), events("account.activate")
    assert off.detail == on.detail == {"user_id": ann.id} and on.actor.startswith("command line")


def test_a_token_issued_on_the_command_line_is_recorded(app, make_user):
    ann = make_user("ann")
    assert app.test_cli_runner().invoke(args=["users", "token", "ann"]).exit_code == 0
    [event] = events("account.token")
    assert event.detail == {"user_id": ann.id} and event.actor.startswith("command line")


def test_the_demo_records_its_accounts_and_imports(app):
    result = app.test_cli_runner().invoke(args=["demo"], env=DEMO_PASSWORDS)
    assert result.exit_code == 0, result.output
    made = {e.project for e in events("import")}
    assert made == {p.slug for p in db.session.scalars(select(Project))}
    accounts = {e.detail["user_id"] for e in events("account.create")}
    assert accounts == {u.id for u in db.session.scalars(select(User))}


@pytest.mark.parametrize("name", sorted(EVERY_FORMAT))
def test_every_formats_import_command_is_recorded(app, name):
    data = EVERY_FORMAT[name]
    options = [part for name, value in data.options.items()   # a flag (bool) is --name or --no-name alone
               for part in ((f"--{'' if value else 'no-'}{name.replace('_', '-')}",) if isinstance(value, bool)
                            else (f"--{name.replace('_', '-')}", str(value)))]
    result = app.test_cli_runner().invoke(args=["import", data.format, str(data.path), "--project", "p", *options])
    assert result.exit_code == 0, result.output
    [event] = events("import")
    assert event.actor.startswith("command line") and event.project == "p" and event.detail["format"] == data.format
    assert stored(Project, slug="p") is not None and DATA.exists()
