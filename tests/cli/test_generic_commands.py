"""The generic `import`, `export` and `users` commands: built from declarations, all or nothing."""
from __future__ import annotations

from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import EXPIRED, ApiToken, Assignment, Item, Project, User
from annotator.engine import assignment as engine
from annotator.lookups.formats import FORMATS, import_settings
from tests.conftest import DATA, stored


def _cli(app, *args: str):  # type: ignore[no-untyped-def]
    return app.test_cli_runner().invoke(args=[str(a) for a in args])


def test_every_format_has_an_import_and_an_export_command_with_its_options(app):
    for name, fmt in FORMATS.items():
        help_text = _cli(app, "import", name, "--help").output
        for option in (*fmt.import_options, *import_settings(fmt)):
            assert option.flag in help_text, (name, option.flag)
        export_help = _cli(app, "export", name, "--help").output
        assert all(option.flag in export_help for option in fmt.export_options)


def test_an_import_sets_the_projects_settings_given_on_the_command_line(app):
    # a KPA check's mAP variant: a project setting (its rules, such as the tie, go into its definition instead:
    # test_kpa2021_declared_settings)
    result = _cli(app, "import", "kpa2021-check", DATA / "kpa2021_track2", "--split", "test", "--project", "kpa",
                  "--map-variant", "plain-ap")
    assert result.exit_code == 0, result.output
    assert "Created project 'kpa'" in result.output
    assert stored(Project, slug="kpa").settings == {"map_variant": "plain-ap"}


def test_settings_that_do_not_fit_together_import_nothing(app):
    result = _cli(app, "import", "kpa2021", DATA / "kpa2021", "--split", "test", "--project", "kpa",
                  "--positive-threshold", "0.2", "--negative-threshold", "0.5")
    assert result.exit_code == 1
    assert "negative_threshold 0.5 must be below positive_threshold 0.2" in result.output
    assert "Nothing was imported" in result.output
    assert db.session.scalar(select(func.count()).select_from(Project)) == 0


def test_an_option_value_is_checked_by_the_options_own_rule(app):
    result = _cli(app, "import", "kpa2021", DATA / "kpa2021", "--split", "../../etc", "--project", "kpa")
    assert result.exit_code == 2 and "must be 1 to 40 letters, digits, - or _" in result.output


def test_a_project_is_exported_only_in_a_format_of_its_hit_type(app, kpa_project, tmp_path):
    kpa_project()
    result = _cli(app, "export", "emphasis2020", "--project", "kpa", "--out", tmp_path / "out")
    assert result.exit_code == 1 and "formats for it: custom, kpa2021" in result.output   # those that export it
    assert not (tmp_path / "out").exists()


def test_users_deactivate_releases_open_hits_and_activate_undoes_it(app, kpa_project, make_user):
    project = kpa_project()
    user = make_user("ann")
    lease = engine.next_for(user, project)
    result = _cli(app, "users", "deactivate", "ann")
    assert result.exit_code == 0 and "1 open HIT(s) released" in result.output
    assert not stored(User, username="ann").active and stored(Assignment, id=lease.id).status == EXPIRED
    _cli(app, "users", "activate", "ann")
    assert stored(User, username="ann").active


def test_users_revoke_tokens_removes_every_token_of_the_user(app, make_user):
    make_user("bot")
    _cli(app, "users", "token", "bot", "--note", "script")
    _cli(app, "users", "token", "bot")
    assert db.session.scalar(select(func.count()).select_from(ApiToken)) == 2
    assert "Revoked 2 API token(s)" in _cli(app, "users", "revoke-tokens", "bot").output
    db.session.remove()
    assert db.session.scalar(select(func.count()).select_from(ApiToken)) == 0


def test_the_demo_loads_the_projects_of_its_manifest_through_the_generic_import(app):
    from annotator.cli.demo import demo_projects
    result = _cli(app, "demo")
    assert result.exit_code == 0, result.output
    for spec in demo_projects():
        project = stored(Project, slug=spec["slug"])
        assert project.source["format"] == spec["format"] and project.guidelines
        assert db.session.scalar(select(func.count()).select_from(Item).where(Item.project_id == project.id)) > 0
