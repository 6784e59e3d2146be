"""annotator: crowd annotation campaigns for NLP shared tasks, from raw material to scored gold.

`create_app` is the app factory (`flask --app annotator ...` finds it by name).
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from flask import Flask
from flask.json.provider import DefaultJSONProvider

ROOT = Path(__file__).resolve().parent.parent


def create_app(config: object | str | None = None, **overrides: Any) -> Flask:
    app = Flask(__name__, template_folder=str(ROOT / "templates"),
                static_folder=str(ROOT / "static"), instance_path=str(ROOT / "instance"))
    app.config.from_object(config or os.environ.get("ANNOTATOR_CONFIG", "config.Config"))
    app.config.update(overrides)
    from annotator.core.secret_key import decide_secret_key
    app.config["SECRET_KEY"] = decide_secret_key(app.config.get("SECRET_KEY"), app.config["SQLALCHEMY_DATABASE_URI"],
                                                 Path(app.config.get("INSTANCE_DIR") or ROOT / "instance"))
    if isinstance(app.json, DefaultJSONProvider):  # Flask's own, unless an extension swapped it
        app.json.sort_keys = False  # keep JSON in the documented field order (id, topic, stance, ...)
    if app.config.get("HTTPS"):
        app.config.update(SESSION_COOKIE_SECURE=True, REMEMBER_COOKIE_SECURE=True, PREFERRED_URL_SCHEME="https")
    if app.config.get("PROXIES"):
        from werkzeug.middleware.proxy_fix import ProxyFix
        proxies = int(app.config["PROXIES"])
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=proxies, x_proto=proxies, x_host=proxies)  # type: ignore[method-assign]

    from annotator.core.database import init_database
    from annotator.core.extensions import csrf, login_manager
    from annotator.core.schema import init_app as init_schema_migrations
    init_database(app)
    init_schema_migrations(app)  # `flask db ...`; Flask-Migrate is imported only when it runs
    login_manager.init_app(app)
    csrf.init_app(app)

    from annotator import cli, web
    web.init_app(app)
    cli.init_app(app)
    from annotator.people.crowd import warn_without_base_url
    warn_without_base_url(app)
    return app
