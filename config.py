"""Configuration, overridable by environment so the same code runs on SQLite and PostgreSQL.

`DATABASE_URL` picks the engine (default: an SQLite file under instance/); `SECRET_KEY` signs
sessions and CSRF tokens. When SECRET_KEY is not set a random key is generated once and kept in
instance/secret_key, so several gunicorn workers and restarts share it.
"""
from __future__ import annotations

import os
import secrets
from pathlib import Path

ROOT = Path(__file__).resolve().parent
INSTANCE = Path(os.environ.get("ANNOTATOR_INSTANCE", ROOT / "instance"))


def database_url(raw: str | None) -> str:
    """Normalise DATABASE_URL: plain postgres URLs get the psycopg 3 driver we ship."""
    if not raw:
        return f"sqlite:///{INSTANCE / 'annotator.db'}"
    for prefix in ("postgres://", "postgresql://"):
        if raw.startswith(prefix):
            return "postgresql+psycopg://" + raw[len(prefix):]
    return raw


def _secret_key() -> str:
    if os.environ.get("SECRET_KEY"):
        return os.environ["SECRET_KEY"]
    INSTANCE.mkdir(parents=True, exist_ok=True)
    path = INSTANCE / "secret_key"
    if not path.exists():
        path.write_text(secrets.token_hex(32))
        path.chmod(0o600)
    return path.read_text().strip()


class Config:
    SECRET_KEY = _secret_key()
    SQLALCHEMY_DATABASE_URI = database_url(os.environ.get("DATABASE_URL"))
    SQLALCHEMY_ENGINE_OPTIONS: dict = {"pool_pre_ping": True}
    EXPORT_DIR = Path(os.environ.get("ANNOTATOR_EXPORT_DIR", ROOT / "exports"))
    SQLITE_BUSY_TIMEOUT_MS = int(os.environ.get("SQLITE_BUSY_TIMEOUT_MS", "30000"))
    SESSION_COOKIE_HTTPONLY = True
    SESSION_COOKIE_SAMESITE = "Lax"
    MAX_CONTENT_LENGTH = 64 * 1024 * 1024


class TestConfig(Config):
    TESTING = True
    SECRET_KEY = "test-secret-key"
    SQLALCHEMY_DATABASE_URI = "sqlite://"
