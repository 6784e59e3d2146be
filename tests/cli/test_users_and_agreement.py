"""`flask users add`, `flask agreement`, and `flask demo` (what `make run` calls)."""
from __future__ import annotations

import json
from datetime import timedelta

from sqlalchemy import func, select

from annotator.campaigns.demo_projects import demo_projects
from annotator.core.extensions import db
from annotator.core.models import ApiToken, Assignment, Item, Project, User, token_digest, utcnow
from annotator.engine import assignment as engine


def _cli(app, *args: str, env: dict | None = None):  # type: ignore[no-untyped-def]
    return app.test_cli_runner().invoke(args=list(args), env=env)


def test_users_add_creates_a_hashed_account(app):
    result = _cli(app, "users", "add", "ann", "--role", "annotator", "--password", "pw-123456")
    assert result.exit_code == 0, result.output
    user = db.session.scalar(select(User).where(User.username == "ann"))
    assert user.role == "annotator" and user.check_password("pw-123456")
    assert "pw-123456" not in result.output


def test_users_add_with_token_prints_the_token_last(app):
    result = _cli(app, "users", "add", "bot", "--role", "admin", "--token")
    token = result.output.strip().splitlines()[-1]
    assert db.session.scalar(select(ApiToken.digest)) == token_digest(token)
    assert db.session.scalar(select(User.role)) == "admin"


def test_users_add_generates_and_prints_a_password_when_none_is_given(app):
    output = _cli(app, "users", "add", "ann").output
    password = output.split("Password: ")[1].split()[0]
    assert db.session.scalar(select(User)).check_password(password)


def test_users_add_refuses_a_taken_name_and_an_unknown_role(app):
    _cli(app, "users", "add", "ann", "--password", "pw-123456")
    assert "already a user 'ann'" in _cli(app, "users", "add", "ann").output
    assert _cli(app, "users", "add", "x", "--role", "boss").exit_code != 0


def _vote_everywhere(project, users, matches_for):  # type: ignore[no-untyped-def]
    for item in db.session.scalars(select(Item)).all():
        for user in users:
            lease = Assignment(project_id=project.id, item_id=item.id, user_id=user.id,
                               expires_at=utcnow() + timedelta(minutes=5))
            db.session.add(lease)
            db.session.commit()
            engine.submit(lease.id, user, {"matches": matches_for(item, user)})


def test_agreement_json_states_inputs_and_coefficients(app, kpa_project, make_user):
    project = kpa_project(k=3)
    users = [make_user(f"ann{i}") for i in range(3)]
    _vote_everywhere(project, users, lambda item, user: [item.payload["key_points"][0]["id"]])
    report = json.loads(_cli(app, "agreement", "--project", "kpa", "--json").output)
    [match] = report["fields"]
    assert match["field"] == "matches" and match["coders"] == 3 and match["units"] == 26 * 5   # the question's id
    assert match["ratings"] == 3 * 26 * 5
    assert match["fleiss_kappa"]["value"] == 1.0 and match["krippendorff_alpha"]["value"] == 1.0
    assert report["gold"] == {"matches: 1": 26, "matches: 0": 104, "matches: undecided": 0}   # gold by value


def test_agreement_says_undefined_in_words_when_every_vote_is_none(app, kpa_project, make_user):
    project = kpa_project(k=2)
    _vote_everywhere(project, [make_user("a"), make_user("b")], lambda item, user: [])
    output = _cli(app, "agreement", "--project", "kpa").output
    assert "undefined: every rating is '0'" in output and "nan" not in output


def test_demo_creates_admin_annotators_and_the_demo_projects_once(app):
    first = _cli(app, "demo", env={"ANNOTATOR_ADMIN_PASSWORD": "admin-secret-1"})
    assert first.exit_code == 0, first.output
    assert db.session.scalar(select(User).where(User.username == "admin")).check_password("admin-secret-1")
    assert "admin-secret-1" not in first.output
    items = db.session.scalar(select(func.count()).select_from(Item))
    second = _cli(app, "demo")
    assert second.exit_code == 0 and "Admin account" not in second.output
    assert db.session.scalar(select(func.count()).select_from(Project)) == len(demo_projects())
    assert db.session.scalar(select(func.count()).select_from(Item)) == items > 0


def test_demo_prints_a_generated_admin_password_once(app):
    output = _cli(app, "demo").output
    password = output.split("Admin account: admin / ")[1].split()[0]
    assert db.session.scalar(select(User).where(User.username == "admin")).check_password(password)


def test_users_password_sets_a_new_password(app):
    _cli(app, "users", "add", "admin", "--role", "admin", "--password", "first-pass")
    _cli(app, "users", "password", "admin", "--password", "second-pass")
    assert db.session.scalar(select(User)).check_password("second-pass")


def test_users_password_revokes_the_tokens_and_ends_the_sessions(app):
    _cli(app, "users", "add", "ann", "--password", "first-pass", "--token")
    before = db.session.scalar(select(User)).session_version
    result = _cli(app, "users", "password", "ann", "--password", "second-pass")
    assert "1 API token(s) revoked" in result.output
    assert db.session.scalar(select(func.count()).select_from(ApiToken)) == 0
    assert db.session.scalar(select(User)).session_version == before + 1
