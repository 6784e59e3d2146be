"""0017_login_failures: an installation upgraded from 0016 keeps its data and gets the failed-logins table; the
downgrade drops the table alone."""
from __future__ import annotations

from flask_migrate import downgrade, upgrade
from sqlalchemy import inspect, text

from annotator import create_app
from annotator.core.extensions import db
from annotator.core.schema import init_migrations
from tests.cli.test_migrations import blank_url  # noqa: F401 - the fixture


def test_0017_adds_the_failed_logins_table_and_its_downgrade_drops_it(blank_url: str) -> None:  # noqa: F811
    app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=blank_url)
    init_migrations(app)
    with app.app_context():
        upgrade(revision="0016_crowd_entry_limits")
        db.session.execute(text("INSERT INTO users (id, username, role, password_hash, active, must_change_password, "
                                "session_version, created_at) VALUES (1, 'ann', 'admin', 'h', true, false, 3, "
                                "CURRENT_TIMESTAMP)"))
        db.session.commit()
        upgrade()
        db.session.execute(text("INSERT INTO login_failures (account, address, at) VALUES ('a', 'b', "
                                "CURRENT_TIMESTAMP)"))
        db.session.commit()
        assert db.session.execute(text("SELECT username, session_version FROM users")).one() == ("ann", 3)
        assert {"ix_login_failures_address_at", "ix_login_failures_at", "ix_login_failures_account"} <= {
            index["name"] for index in inspect(db.engine).get_indexes("login_failures")}

        downgrade(revision="0016_crowd_entry_limits")
        db.session.commit()
        assert "login_failures" not in inspect(db.engine).get_table_names()
        assert db.session.execute(text("SELECT username, session_version FROM users")).one() == ("ann", 3)
