"""The audit trail: each admin action that changes data leaves one event saying who, when, what and where.

Web actions name the logged-in admin (account id and name); commands name the command line and the OS user;
the automatic quality rules name themselves. Annotators appear in details by account id only.
"""
from __future__ import annotations

import csv
import io
import re
from datetime import timedelta

from sqlalchemy import select

from annotator.core.audit import record
from annotator.core.extensions import db
from annotator.core.models import AuditEvent, Item, Project, User, utcnow
from annotator.quality.blocking import block
from tests.conftest import DATA, load_project, stored
from tests.people.conftest import events
from tests.quality.conftest import answer_next, make_controls, set_quality, wrong_answer
from tests.web.conftest import csrf_token

KPA = DATA / "kpa2021"


def _by_boss(event: AuditEvent, boss) -> None:  # type: ignore[no-untyped-def]
    assert (event.actor_id, event.actor) == (boss.user.id, "boss")
    assert abs(event.at - utcnow()) < timedelta(minutes=1)


def _form(client, url: str) -> str:  # type: ignore[no-untyped-def]
    return csrf_token(client.get(url).get_data(as_text=True))


def test_an_import_on_the_command_line_records_the_command_line_and_counts(app):
    result = app.test_cli_runner().invoke(args=["import", "kpa2021", str(KPA), "--split", "test", "--project", "kpa"])
    assert result.exit_code == 0, result.output
    [event] = events("import")
    assert event.actor_id is None and re.fullmatch(r"command line \(.+\)", event.actor)
    assert (event.project, event.detail) == ("kpa", {"format": "kpa2021", "created": True, "items": 26, "votes": 0})


def test_an_import_from_the_browser_records_the_admin(boss):
    files = [(io.BytesIO((KPA / name).read_bytes()), name)
             for name in ("arguments_test.csv", "key_points_test.csv", "labels_test.csv")]
    url = "/admin/projects/new/kpa2021"
    response = boss.post(url, content_type="multipart/form-data", data={
        "csrf_token": _form(boss, url), "name": "Mine", "slug": "mine", "k": "3", "lease_minutes": "20",
        "split": "test", "declared": "y", "files": files})
    assert response.status_code == 302
    [event] = events("import")
    _by_boss(event, boss)
    assert event.project == "mine" and event.detail["items"] == 26


def test_a_refused_import_records_nothing(app):
    result = app.test_cli_runner().invoke(args=["import", "kpa2021", str(KPA), "--split", "dev", "--project", "kpa"])
    assert result.exit_code != 0
    assert events("import") == []


def test_deleting_a_project_records_it_with_its_name(boss, kpa_project):
    kpa_project()
    url = "/admin/projects/kpa"
    assert boss.post(f"{url}/delete", data={"csrf_token": _form(boss, url), "confirm": "kpa"}).status_code == 302
    [event] = events("project.delete")
    _by_boss(event, boss)
    assert event.project == "kpa" and event.detail["task_type"] == "custom"
    assert stored(Project, slug="kpa") is None


def test_changing_a_projects_settings_records_it(boss, kpa_project):
    kpa_project()
    url = "/admin/projects/kpa"
    response = boss.post(url, data={"csrf_token": _form(boss, url), "name": "KPA", "k": "4", "lease_minutes": "15",
                                    "guidelines": "", "positive_threshold": "0.6", "negative_threshold": "0.15"})
    assert response.status_code == 302
    [event] = events("project.settings")
    _by_boss(event, boss)
    assert (event.project, event.detail["k"], event.detail["lease_minutes"]) == ("kpa", 4, 15)


def test_changing_the_quality_settings_records_them(boss, kpa_project):
    kpa_project()
    page = boss.get("/admin/projects/kpa").get_data(as_text=True)
    form = dict(re.findall(r'name="([a-z_]+)"[^>]*value="([^"]*)"', page[page.index('id="quality"'):]))
    form.update({"csrf_token": csrf_token(page), "control_rate": "0.25"})
    assert boss.post("/admin/projects/kpa/quality", data=form).status_code == 302
    [event] = events("quality.settings")
    _by_boss(event, boss)
    assert event.detail["control_rate"] == 0.25


def test_an_adjudication_records_the_item(boss, app):
    load_project("ruarg2022", DATA / "ruarg2022" / "train_excerpt.tsv", "ru", k=3)
    url = "/admin/projects/ru/review/17024"
    response = boss.post(url, data={"csrf_token": _form(boss, url), "q_claims__0__relevance": "relevant",
                                    "q_claims__0__stance": "0", "q_claims__0__premise": "1",
                                    "q_claims__1__relevance": "irrelevant", "q_claims__2__relevance": "irrelevant"})
    assert response.status_code == 302
    [event] = events("adjudicate")
    _by_boss(event, boss)
    assert (event.project, event.detail) == ("ru", {"item": "17024", "replaced": False})


def test_making_an_item_a_control_records_it(boss, kpa_project):
    project = kpa_project()
    item = db.session.scalar(select(Item).where(Item.project_id == project.id, Item.external_id == "arg_1_0"))
    url = f"/admin/projects/kpa/items/{item.id}/control"
    token = _form(boss, "/admin/projects/kpa/items/")
    assert boss.post(url, data={"csrf_token": token}).status_code == 302
    [event] = events("controls.change")
    _by_boss(event, boss)
    assert event.detail == {"item": "arg_1_0", "control": True}


def test_controls_from_the_command_line_record_the_count(app, kpa_project, tmp_path):
    kpa_project()
    (tmp_path / "controls.csv").write_text("item\narg_1_0\narg_1_1\n", encoding="utf-8")
    result = app.test_cli_runner().invoke(args=["controls", "add", str(tmp_path / "controls.csv"), "--project", "kpa"])
    assert result.exit_code == 0, result.output
    [event] = events("controls.change")
    assert event.actor.startswith("command line") and event.detail == {"action": "add", "items": 2}


def test_quality_control_blocking_and_excluding_records_the_rule_not_the_annotator(kpa_project, make_user):
    project = kpa_project(k=1)
    make_controls(project, "arg_1_0", "arg_1_1")
    set_quality(project, control_rate=0.0, block_min_controls=2, block_accuracy=0.6, blocked_votes="exclude")
    ann = make_user("ann")
    answer_next(ann, project, {"matches": []})
    set_quality(project, control_rate=1.0)
    results = [answer_next(ann, project, wrong_answer) for _ in range(2)]
    assert results[-1].blocked
    [blocked] = events("annotator.block")
    assert (blocked.actor_id, blocked.actor, blocked.detail["user_id"]) == (None, "quality control", ann.id)
    assert "ann" not in str(blocked.detail)
    [excluded] = events("annotator.exclude")
    assert excluded.detail == {"user_id": ann.id, "votes": 1}


def test_unblocking_an_annotator_records_it(boss, kpa_project, make_user):
    project = kpa_project()
    ann = make_user("ann")
    block(ann.id, project, "a test")
    db.session.commit()
    url = "/admin/projects/kpa/annotators"
    assert boss.post(f"{url}/{ann.id}/unblock", data={"csrf_token": _form(boss, url)}).status_code == 302
    [event] = events("annotator.unblock")
    _by_boss(event, boss)
    assert event.detail == {"user_id": ann.id}


def test_deactivating_an_account_records_it(boss, make_user):
    ann = make_user("ann")
    url = f"/admin/annotators/{ann.id}"
    assert boss.post(f"{url}/active", data={"csrf_token": _form(boss, url)}).status_code == 302
    [event] = events("account.deactivate")
    _by_boss(event, boss)
    assert event.detail == {"user_id": ann.id}


def test_the_audit_page_lists_newest_first_and_filters_by_project_and_action(boss, app):
    for n in range(3):
        record("import", f"p{n}", {"items": n})
    record("project.delete", "p1")
    db.session.commit()
    page = boss.get("/admin/audit").get_data(as_text=True)
    assert page.index("project.delete") < page.index('"items": 2') < page.index('"items": 0')
    only = boss.get("/admin/audit?project=p1&action=import").get_data(as_text=True)
    assert "1 event(s)" in only and '"items": 1' in only


def test_the_audit_page_is_paginated(boss, app):
    db.session.add_all(AuditEvent(at=utcnow() - timedelta(seconds=n), actor="test", action="import",
                                  project="p", detail={"n": n}) for n in range(120))
    db.session.commit()
    assert "Page 1 of 3" in boss.get("/admin/audit").get_data(as_text=True)
    last = boss.get("/admin/audit?page=3").get_data(as_text=True)
    assert "Page 3 of 3" in last and '"n": 119}' in last and '"n": 0}' not in last


def test_the_audit_trail_downloads_as_csv_with_current_names(boss, make_user):
    ann = make_user("ann")
    record("account.deactivate", detail={"user_id": ann.id})
    db.session.commit()
    response = boss.get("/admin/audit?format=csv")
    assert response.mimetype == "text/csv"
    rows = list(csv.DictReader(io.StringIO(response.get_data(as_text=True))))
    assert [(r["action"], r["annotator"], r["detail"]) for r in rows] == [
        ("account.deactivate", "ann", f'{{"user_id": {ann.id}}}')]


def test_archiving_a_project_records_it(boss, kpa_project):
    kpa_project()
    url = "/admin/projects/kpa"
    assert boss.post(f"{url}/archive", data={"csrf_token": _form(boss, url), "archived": "1"}).status_code == 302
    [event] = events("project.archive")
    _by_boss(event, boss)
    assert (event.project, event.detail) == ("kpa", {"archived": True})


def test_changing_who_may_annotate_records_the_account_ids(boss, kpa_project, make_user):
    kpa_project()
    ann = make_user("ann")
    url = "/admin/projects/kpa"
    response = boss.post(f"{url}/audience", data={"csrf_token": _form(boss, url), "audience": "listed",
                                                   "annotators": [str(ann.id)]})
    assert response.status_code == 302
    [event] = events("project.audience")
    _by_boss(event, boss)
    assert event.detail == {"audience": "listed", "user_ids": [ann.id]}


def test_letting_an_annotator_retry_the_quiz_records_it(boss, kpa_project, make_user):
    from annotator.core.models import QUIZ_FAILED
    from annotator.quality.state import state_for_update
    project = kpa_project()
    ann = make_user("ann")
    state_for_update(ann.id, project.id).quiz_status = QUIZ_FAILED
    db.session.commit()
    url = "/admin/projects/kpa/annotators"
    assert boss.post(f"{url}/{ann.id}/retry", data={"csrf_token": _form(boss, url)}).status_code == 302
    [event] = events("annotator.retry_quiz")
    _by_boss(event, boss)
    assert event.detail == {"user_id": ann.id}


def test_crowd_links_and_filters_from_the_command_line_are_recorded(app, kpa_project):
    kpa_project()
    runner = app.test_cli_runner()
    assert runner.invoke(args=["crowd-link", "--project", "kpa", "--platform", "prolific", "--hits", "3",
                               "--completion-code", "DONE1", "--base-url", "https://a.example"]).exit_code == 0
    assert runner.invoke(args=["crowd-filters", "--project", "kpa", "--approval-rate-above", "90"]).exit_code == 0
    [link] = events("crowd.link")
    assert (link.project, link.detail) == ("kpa", {"platform": "prolific", "hits": 3, "new_secret": False})
    [filters] = events("crowd.filters")
    assert filters.actor.startswith("command line") and filters.detail["approval_rate_above"] == 90


def test_accounts_tokens_and_passwords_from_the_command_line_are_recorded(app):
    runner = app.test_cli_runner()
    assert runner.invoke(args=["users", "add", "ann", "--role", "annotator", "--token"]).exit_code == 0
    assert runner.invoke(args=["users", "revoke-tokens", "ann"]).exit_code == 0
    assert runner.invoke(args=["users", "password", "ann"]).exit_code == 0
    ann = stored(User, username="ann")
    for action, detail in (("account.create", {"user_id": ann.id, "role": "annotator"}),
                           ("account.token", {"user_id": ann.id}),
                           ("account.revoke_tokens", {"user_id": ann.id, "tokens": 1}),
                           ("account.password", {"user_id": ann.id})):
        [event] = events(action)
        assert event.detail == detail and event.actor.startswith("command line"), action


def test_a_new_one_time_password_from_the_admin_page_is_recorded(boss, make_user):
    ann = make_user("ann")
    url = f"/admin/annotators/{ann.id}"
    assert boss.post(f"{url}/password", data={"csrf_token": _form(boss, url)}).status_code == 200
    [event] = events("account.password")
    _by_boss(event, boss)
    assert event.detail == {"user_id": ann.id}
