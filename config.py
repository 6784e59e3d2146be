"""Configuration, overridable by environment so the same code runs on SQLite and PostgreSQL.

`DATABASE_URL` picks the engine (default: an SQLite file under instance/); `SECRET_KEY` signs
sessions and CSRF tokens. When SECRET_KEY is not set, annotator/core/secret_key.py decides: on SQLite a
random key is generated once into instance/secret_key (atomically, so workers starting together
agree); on PostgreSQL the app refuses to start, since several hosts would each make their own.
"""
from __future__ import annotations

import os
from datetime import timedelta
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


def prepare_threshold(raw: str) -> int | None:
    """DATABASE_PREPARE_THRESHOLD: a count of uses, or none/off for never."""
    return None if raw.strip().lower() in ("none", "off", "") else int(raw)


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")


class Config:
    # Unset: decided in create_app by annotator/core/secret_key.py (a key file under instance/ on SQLite;
    # with PostgreSQL the app refuses to start without one, since several hosts may serve it).
    SECRET_KEY = os.environ.get("SECRET_KEY") or None
    INSTANCE_DIR = INSTANCE
    SQLALCHEMY_DATABASE_URI = database_url(os.environ.get("DATABASE_URL"))
    SQLALCHEMY_ENGINE_OPTIONS: dict = {}
    # A pooled PostgreSQL connection unused for this long is tested before use (annotator/core/database.py).
    DATABASE_PING_AFTER_IDLE_SECONDS = float(os.environ.get("DATABASE_PING_AFTER_IDLE_SECONDS", "1.0"))
    # PostgreSQL: psycopg prepares a statement on the server from this many uses on a connection on
    # (annotator/core/database.py); "none" turns it off.
    DATABASE_PREPARE_THRESHOLD = prepare_threshold(os.environ.get("DATABASE_PREPARE_THRESHOLD", "1"))
    EXPORT_DIR = Path(os.environ.get("ANNOTATOR_EXPORT_DIR", ROOT / "exports"))
    # An import form's files, kept between its tries (annotator/campaigns/kept_uploads.py).
    KEPT_UPLOADS_DIR = INSTANCE / "kept-uploads"
    SQLITE_BUSY_TIMEOUT_MS = int(os.environ.get("SQLITE_BUSY_TIMEOUT_MS", "30000"))
    # How long an erasure or a purge waits for readers of an older state before it leaves SQLite's write-ahead
    # log for `flask scrub-files` (which waits the whole busy timeout): the admin's page does not hang behind them.
    SQLITE_CHECKPOINT_WAIT_MS = int(os.environ.get("SQLITE_CHECKPOINT_WAIT_MS", "2000"))
    # How much reading a backup or project archive may unpack (annotator/lifecycle/archive.py, ArchiveLimits):
    # a backup may be large, so the default is generous; the upload page holds archives to UPLOAD_MAX_* first.
    ARCHIVE_MAX_UNPACKED_BYTES = int(os.environ.get("ARCHIVE_MAX_UNPACKED_BYTES", str(20 * 1024 ** 3)))
    SESSION_COOKIE_HTTPONLY = True
    SESSION_COOKIE_SAMESITE = "Lax"
    # "Remember me" lasts two weeks, not Flask-Login's year; logging out or a new password ends it
    # sooner (User.session_version).
    REMEMBER_COOKIE_DURATION = timedelta(days=14)
    REMEMBER_COOKIE_HTTPONLY = True
    REMEMBER_COOKIE_SAMESITE = "Lax"
    # ANNOTATOR_HTTPS=1 when the site is served over HTTPS (directly or behind a TLS proxy): the
    # browser then sends the session and remember-me cookies over HTTPS only, and every answer carries
    # Strict-Transport-Security (HSTS_MAX_AGE), so the browser does not try plain HTTP to this host again.
    # (create_app sets SESSION_COOKIE_SECURE, REMEMBER_COOKIE_SECURE and PREFERRED_URL_SCHEME from it.)
    HTTPS = _flag("ANNOTATOR_HTTPS")
    HSTS_MAX_AGE = int(os.environ.get("ANNOTATOR_HSTS_MAX_AGE", str(365 * 24 * 3600)))  # seconds: a year
    # ANNOTATOR_PROXIES=N: the app runs behind N reverse proxies that set X-Forwarded-For/-Proto/-Host
    # (werkzeug ProxyFix); the client address (login throttling) and scheme are then read from them.
    # Leave it at 0 when clients reach the app directly, or they could forge their address; behind a proxy, set it,
    # or every client has the proxy's address and one guesser gets them all refused.
    PROXIES = int(os.environ.get("ANNOTATOR_PROXIES", "0"))
    MAX_CONTENT_LENGTH = 64 * 1024 * 1024  # uploads (project files, gold sets, submissions)
    API_MAX_BODY_BYTES = 1024 * 1024  # a JSON API body; larger ones get 413
    # A declared campaign's definition file, and the guidelines file it names: larger ones are refused unread
    # (annotator/declared/definition.py; YAML is parsed in Python, and 20 MB took 30 s).
    DEFINITION_MAX_BYTES = int(os.environ.get("DEFINITION_MAX_BYTES", str(256 * 1024)))
    # How long a worker keeps an API token's holder and projects (annotator/web/token_holders.py): another
    # process's revocation, deactivation or project change counts here within this time; 0: read every request
    API_HOLDER_SECONDS = float(os.environ.get("API_HOLDER_SECONDS", "2"))  # token_holders.DEFAULT_SECONDS
    # A project with this many submitted votes or more has its admin pages' figures kept in the database
    # (annotator/figures/kept.py): computed in the background when votes come, shown with their age meanwhile,
    # never older than KEPT_RESULTS_MAX_AGE seconds (an older one: a page that waits for the new figures).
    KEPT_RESULTS_FROM_VOTES = int(os.environ.get("KEPT_RESULTS_FROM_VOTES", "20000"))
    KEPT_RESULTS_MAX_AGE = int(os.environ.get("KEPT_RESULTS_MAX_AGE", "120"))
    # "process": a page finding stale figures starts their computation in a process of its own
    # (`flask refresh-figures`); "thread": in a thread of the server's process; "request": before answering.
    KEPT_RESULTS_REFRESH = os.environ.get("KEPT_RESULTS_REFRESH", "process")
    # Under a steady stream of votes: the next computation starts this many seconds after the last one ended
    # (sooner if the figures shown would reach KEPT_RESULTS_MAX_AGE), at this lower CPU priority (0-19).
    KEPT_RESULTS_INTERVAL = int(os.environ.get("KEPT_RESULTS_INTERVAL", "30"))
    KEPT_RESULTS_NICE = int(os.environ.get("KEPT_RESULTS_NICE", "10"))
    # Bytes of kept figures' payloads a server process keeps read (annotator/figures/kept_memory.py): the next page
    # of the same figures reads no payload; 0: read them on every page.
    KEPT_RESULTS_MEMORY = int(os.environ.get("KEPT_RESULTS_MEMORY", str(64 * 1024 * 1024)))
    API_MAX_JSON_DEPTH = 32  # deeper nesting gets 400 (no answer nests more than a few levels)
    # Failed logins allowed per (account, client address) and per client address (web/throttle.py), counted in the
    # database (people/login_counters.py), so every worker and host counts together; "N per [M] second|minute|
    # hour|day", several separated by ";". The client address: see PROXIES.
    LOGIN_THROTTLE_ENABLED = True
    LOGIN_LIMIT_PER_ACCOUNT_AT_ADDRESS = os.environ.get("LOGIN_LIMIT_PER_ACCOUNT_AT_ADDRESS",
                                                        "5 per minute;20 per hour")
    LOGIN_LIMIT_PER_ADDRESS = os.environ.get("LOGIN_LIMIT_PER_ADDRESS", "30 per minute;200 per hour")
    # New crowd accounts (people/crowd_limits.py): at most this many per client address in the window, and per
    # study link at most FACTOR times the workers its project needs (at least MIN). Counted in the database.
    CROWD_NEW_ACCOUNTS_PER_ADDRESS = int(os.environ.get("CROWD_NEW_ACCOUNTS_PER_ADDRESS", "10"))
    CROWD_NEW_ACCOUNTS_WINDOW_MINUTES = int(os.environ.get("CROWD_NEW_ACCOUNTS_WINDOW_MINUTES", "60"))
    CROWD_ACCOUNTS_PER_LINK_FACTOR = float(os.environ.get("CROWD_ACCOUNTS_PER_LINK_FACTOR", "2"))
    CROWD_ACCOUNTS_PER_LINK_MIN = int(os.environ.get("CROWD_ACCOUNTS_PER_LINK_MIN", "20"))
    # Where the server is reached from outside (https://...): crowd study links and MTurk's ExternalURL.
    PUBLIC_BASE_URL = os.environ.get("ANNOTATOR_BASE_URL", "")
    # Retention (annotator/people/retention.py, `flask purge`): days a kind of personal record is kept; 0 or
    # empty keeps it forever. Crowd study sessions (when a worker came, with the platform's study and session
    # ids): half a year, long past any payment dispute. The audit trail: forever unless set.
    RETENTION_CROWD_SESSIONS_DAYS = os.environ.get("RETENTION_CROWD_SESSIONS_DAYS", "180")
    RETENTION_AUDIT_EVENTS_DAYS = os.environ.get("RETENTION_AUDIT_EVENTS_DAYS", "0")
    # Crowd workers not seen for this long (no visit, no HIT) are erased, their votes kept under a pseudonym.
    RETENTION_CROWD_WORKERS_DAYS = os.environ.get("RETENTION_CROWD_WORKERS_DAYS", "365")


class TestConfig(Config):
    TESTING = True
    SECRET_KEY = "test-secret-key"
    SQLALCHEMY_DATABASE_URI = "sqlite://"
    KEPT_RESULTS_INTERVAL = 0  # each stale view starts a computation (tests/unit/test_kept_results.py sets one)
    # The suite keeps every core busy, and a computation at the servers' lower priority waited behind all of it
    # (half a minute for a second of work); what the tests check of it does not depend on its priority.
    KEPT_RESULTS_NICE = 0
    LOGIN_THROTTLE_ENABLED = False  # tests log in often from one address; tests/web/test_throttle.py enables it
    # Tests make and check thousands of passwords: one PBKDF2 round instead of scrypt's ~0.1 s each. What a
    # hash is checked against does not change (the stored hash names its method); the strong default of
    # every other configuration is tested in tests/web/test_auth.py.
    PASSWORD_HASH_METHOD = "pbkdf2:sha256:1"
