"""Shared fixtures: the app on SQLite and on PostgreSQL, users, and a project with real KPA data.

Every test that takes `app` runs twice, once per engine ([sqlite] and [postgresql] in its id).
The schema always comes from the Alembic migrations, so the migrations are tested too. A test
that needs a missing server, browser or `../shared/data` is skipped with the reason, except under
CI (CI=true), where all must be present and the absence is a failure.

Each run (each pytest-xdist worker) has one SQLite database and one PostgreSQL schema, migrated once and
emptied before every test, and one app for each of them (see `app`); so tests run in parallel
(`make test` runs `pytest -n 3`), each worker on databases of its own.

Requests and CLI commands see the database as a user's would: every test-client request and every
`test_cli_runner().invoke` runs in an app context of its own (so a view or command that forgets to
commit loses its work when that context ends, exactly as on a real server), and afterwards the
test's own session is thrown away, so what the test reads next comes from a fresh session.
"""
from __future__ import annotations

import contextvars
import gc
import os

# OpenBLAS picks its kernels by CPU; LAPACK's covariance (statsmodels' Bradley-Terry standard errors) then differs
# in the last digit between an AVX-512 kernel and the Haswell one that made tests/data/before_one_engine's exports,
# and the upgrade test compares those bytes. The tests use the Haswell kernel (any x86-64 CPU with AVX2 runs it),
# read when numpy first loads: before this module imports the app. An explicit setting wins.
os.environ.setdefault("OPENBLAS_CORETYPE", "Haswell")
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path

import pytest
from flask import Flask
from flask.testing import FlaskClient, FlaskCliRunner
from psycopg.conninfo import make_conninfo
from sqlalchemy import or_, select
from sqlalchemy.engine import make_url

from annotator import create_app
from annotator.campaigns.projects import refresh_statistics
from annotator.core.extensions import db
from annotator.core.models import Project, utcnow
from annotator.figures import kept_memory
from annotator.web import token_holders
from bench.common import with_search_path  # also the benchmark's: one way to make a schema's URL

TESTS = Path(__file__).resolve().parent
DATA = TESTS / "data"
SHARED_DATA = Path(os.environ.get("ANNOTATOR_SHARED_DATA", TESTS.parent.parent / "shared" / "data"))


def without_waiting_for_the_disk(url: str) -> str:
    """`url` with `synchronous_commit=off` for its sessions (unless its options set it already).

    A COMMIT then returns once its WAL record is written, without waiting for the disk to flush it (PostgreSQL's
    walwriter flushes within 3 x wal_writer_delay): on this VM's disk a commit took 5.3-5.7 ms against 0.2-0.4 ms
    (500 one-row inserts, each committed), and a test on PostgreSQL commits some 40 times. What every other
    connection sees does not change: the commit is atomic and visible at once, locks and constraints are the same;
    only a crash of the PostgreSQL server itself could lose the last commits, which a test database can afford
    (the test that restarts PostgreSQL runs its own cluster, and a clean restart flushes everything first)."""
    parsed = make_url(url)
    given = parsed.query.get("options")
    given = " ".join(given) if isinstance(given, tuple) else given
    if given and "synchronous_commit" in given:
        return url
    options = " ".join(filter(None, [given, "-csynchronous_commit=off"]))
    return parsed.update_query_dict({"options": options}).render_as_string(hide_password=False)


def libpq(url: str) -> str:
    """The libpq connection string of a SQLAlchemy PostgreSQL URL, for psycopg.connect: the URL itself, less
    `+psycopg`, is not one once its options hold two settings (SQLAlchemy writes their space as `+`, which libpq
    does not read as a space)."""
    parsed = make_url(url)
    query = {key: " ".join(value) if isinstance(value, tuple) else value for key, value in parsed.query.items()}
    return make_conninfo("", host=parsed.host, port=parsed.port, user=parsed.username, password=parsed.password,
                         dbname=parsed.database, **query)


POSTGRES_URL = without_waiting_for_the_disk(os.environ.get("ANNOTATOR_TEST_POSTGRES_URL",
                                                           "postgresql+psycopg://postgres@127.0.0.1:5432/test"))
PASSWORD = "correct horse battery"
# The engines every `app` test runs on; `make test-fast` sets sqlite alone (the inner loop while editing).
ENGINES = [e.strip() for e in os.environ.get("ANNOTATOR_TEST_ENGINES", "sqlite,postgresql").split(",") if e.strip()]


def missing(reason: str) -> None:
    """Skip, or fail under CI, where every server and browser the suite needs is installed."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI must provide it)")
    pytest.skip(reason)


def pytest_configure(config: pytest.Config) -> None:
    if os.environ.get("CI") and sorted(ENGINES) != ["postgresql", "sqlite"]:
        raise pytest.UsageError(f"ANNOTATOR_TEST_ENGINES={','.join(ENGINES)}: CI runs every test on both engines")
    config.addinivalue_line("markers", "shared_data: reads the public data in ../shared/data (skipped when it "
                                       "is absent, a failure under CI)")


GC_THRESHOLDS = (700, 10, 100)  # Python's defaults are (700, 10, 10)


@pytest.hookimpl(trylast=True)
def pytest_collection_finish(session: pytest.Session) -> None:
    """The cyclic garbage collector told to leave alone what a test process holds once its tests are collected, and
    to walk the rest less often: a full collection walked every object of the process (the app's libraries, the
    collected tests) some 26 times in 2,600 web tests, 7 s of a process's 120 s of CPU
    (bench/results/2026-11-29-test-gc.md).

    Frozen after a collection, so only live objects are frozen: the modules, test items and fixtures' definitions,
    which live until the process ends. A frozen object that dies sooner in a reference cycle is not freed (the
    largest resident size did not move). The oldest generation is then collected after 100 collections of the middle
    one instead of 10 (it still waits for its own growth rule as well): garbage in cycles made later is freed as
    before, only later; reference counting, which frees everything else, is untouched."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


@pytest.fixture
def tmp_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new empty folder for the test, under the run's base folder as pytest's own `tmp_path` makes them.

    pytest's numbers each test's folder by listing the base folder and re-points a `<name>current` symlink at it
    (an unlink and a symlink per test): on this suite's 7,600 tests that cost the processes some 6 s, where one
    mkdtemp does (bench/results/2026-11-29-test-gc.md). Kept, like pytest's, for the last three runs."""
    return Path(tempfile.mkdtemp(prefix="t", dir=tmp_path_factory.getbasetemp()))


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("shared_data") and not SHARED_DATA.is_dir():
        missing(f"the shared task data is not present at {SHARED_DATA}")


def _postgres_problem() -> str | None:
    import psycopg
    try:
        psycopg.connect(libpq(POSTGRES_URL), connect_timeout=3).close()
    except psycopg.Error as error:
        return f"PostgreSQL does not answer at {POSTGRES_URL}: {str(error).strip()}"
    return None


def _migrate(url: str) -> None:
    from flask_migrate import upgrade

    from annotator.core.schema import init_migrations  # as `flask db` does: Flask-Migrate is bound on use
    app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=url)
    init_migrations(app)
    with app.app_context():
        upgrade()
        db.engine.dispose()


@pytest.fixture(scope="session")
def sqlite_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One migrated SQLite file, copied for each test (migrating takes longer than copying)."""
    path = tmp_path_factory.mktemp("template") / "annotator.db"
    _migrate(f"sqlite:///{path}")
    return path


@pytest.fixture(scope="session")
def postgres_schema() -> Iterator[str]:
    """A private schema in the `test` database for this run, migrated once and dropped at the end."""
    problem = _postgres_problem()
    if problem:
        missing(problem)
    import psycopg
    schema = f"annotator_test_{uuid.uuid4().hex[:10]}"
    plain = libpq(POSTGRES_URL)
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f"CREATE SCHEMA {schema}")
    url = with_search_path(POSTGRES_URL, schema)
    _migrate(url)
    yield url
    with psycopg.connect(plain, autocommit=True) as conn:
        conn.execute(f"DROP SCHEMA {schema} CASCADE")


class RequestClient(FlaskClient):
    """A test client whose every request runs in a new app context, as on a real server.

    Flask reuses an app context that is already pushed (the test's own), and with it the test's
    database session: then a view that never commits still "saves", because the test reads its
    uncommitted rows back through the same session. An empty `contextvars.Context` has no app context,
    so the request pushes its own and ends it (Flask-SQLAlchemy removes its session, rolling back
    anything uncommitted). The test's session is then dropped, so the next read starts afresh.
    """

    def open(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        response = contextvars.Context().run(super().open, *args, **kwargs)
        db.session.remove()
        return response


class CommandRunner(FlaskCliRunner):
    """`flask` commands in an app context of their own (pushed and ended by the command), like a shell.

    The test's own session is ended before the command too, as no command run from a shell finds the caller's
    transaction open: a test that had just read something kept its snapshot (SQLite) or its tables' locks
    (PostgreSQL) through the command, and an erasure's checkpoint or VACUUM then waited for it (2 s on SQLite, 5 s a
    table on PostgreSQL). Nothing the test had not committed could reach the command anyway."""

    def invoke(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        db.session.remove()
        result = contextvars.Context().run(super().invoke, *args, **kwargs)
        db.session.remove()
        return result


def stored(model, **by):  # type: ignore[no-untyped-def]
    """The one row of `model` with these column values, as a fresh session reads it (None if absent)."""
    from sqlalchemy import select
    db.session.remove()
    return db.session.scalars(select(model).filter_by(**by)).one_or_none()


def _empty_postgres() -> None:
    """Every table emptied and every id sequence restarted at 1, as a freshly migrated schema has them.

    DELETE, children first, rather than TRUNCATE (but for a table grown past 1 MB: `_TRUNCATE_GROWN`): a test
    leaves a few rows, and TRUNCATE of 18 tables costs PostgreSQL a new file per table and a commit of the
    catalog (0.13 s against 0.003 s here).
    `setval(..., 1, false)` rather than `ALTER SEQUENCE ... RESTART`: the same next value, without a change of
    the catalog that every other connection then has to take in (bench/results/2026-11-28-test-suite-times.md).
    """
    url = db.engine.url.render_as_string(hide_password=False)
    if url not in _SEQUENCES:
        _SEQUENCES[url] = list(db.session.scalars(db.text(
            "SELECT sequence_name FROM information_schema.sequences WHERE sequence_schema = current_schema()")))
    deletes = [f"DELETE FROM {table.name}" for table in reversed(db.metadata.sorted_tables)]
    restarts = [f"SELECT setval('{name}', 1, false)" for name in _SEQUENCES[url]]
    db.session.execute(db.text("; ".join([_TRUNCATE_GROWN, *deletes, *restarts])))
    db.session.commit()


# The tables that a test grew past 1 MB (an official file's 291,600 votes), emptied by TRUNCATE: DELETE leaves a
# table's pages as they were (the server here does not autovacuum), so every later test of the process scanned the
# emptied pages of the biggest table it ever held, in each DELETE and in every query that reads the whole table.
# A table another session still holds a lock on (a server a test started, not yet gone) is left to the DELETE after
# one second's wait rather than waited for: TRUNCATE needs the table to itself.
_TRUNCATE_GROWN = """DO $$
DECLARE grown regclass;
BEGIN
  PERFORM set_config('lock_timeout', '1s', true);
  FOR grown IN SELECT CAST(c.oid AS regclass) FROM pg_class c
               WHERE c.relnamespace = CAST(current_schema() AS regnamespace) AND c.relkind = 'r'
                 AND pg_relation_size(c.oid) > 1048576 LOOP
    BEGIN
      EXECUTE 'TRUNCATE ' || CAST(grown AS text) || ' CASCADE';
    EXCEPTION WHEN lock_not_available THEN NULL;
    END;
  END LOOP;
  PERFORM set_config('lock_timeout', '0', true);
END $$"""


_SEQUENCES: dict[str, list[str]] = {}  # a migrated schema's id sequences, read at its first emptying


def _empty_sqlite() -> None:
    """Every table emptied: with no AUTOINCREMENT table, SQLite hands out ids from 1 again.

    The DELETEs go to the session's connection as plain SQL, children first, in the session's transaction: the
    same statements as `table.delete()` through the session, without the ORM's execution of each (0.8 ms of
    CPU a test instead of 1.7, on some 3,000 tests a run)."""
    connection = db.session.connection()
    for table in reversed(db.metadata.sorted_tables):
        connection.exec_driver_sql(f"DELETE FROM {table.name}")
    db.session.commit()


@pytest.fixture(scope="session")
def sqlite_database(sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """This run's (or xdist worker's) SQLite database: a copy of the template, emptied before each test."""
    path = tmp_path_factory.mktemp("sqlite") / "annotator.db"
    shutil.copy(sqlite_template, path)
    return f"sqlite:///{path}"


@pytest.fixture(params=ENGINES)
def database_url(request: pytest.FixtureRequest) -> str:
    if request.param == "sqlite":
        return request.getfixturevalue("sqlite_database")
    return request.getfixturevalue("postgres_schema")


@pytest.fixture(scope="session")
def kept_apps() -> Iterator[dict[str, Flask]]:
    """One app per database this run shares between tests (see `app`), closed at the end of the run."""
    apps: dict[str, Flask] = {}
    yield apps
    for app in apps.values():
        with app.app_context():
            db.session.remove()
            db.engine.dispose()


def _test_app(database_url: str) -> Flask:
    app = create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=database_url)
    app.test_client_class = RequestClient
    app.test_cli_runner_class = CommandRunner
    return app


def _kept_app(database_url: str, kept: dict[str, Flask]) -> Flask:
    """The run's app of one of its databases, made at its first use: create_app compiles werkzeug's URL rules
    (0.11 s a call), which every test paid before."""
    if database_url not in kept:
        kept[database_url] = _test_app(database_url)
    return kept[database_url]


@pytest.fixture
def app(request: pytest.FixtureRequest, database_url: str, tmp_path: Path,
        kept_apps: dict[str, Flask]) -> Iterator[Flask]:
    """The app on the test's database, which starts empty, as a freshly migrated one.

    The run's app of each database is made once and kept: a test gets it with its configuration as made
    (what a test changes in `app.config` is put back afterwards), the database emptied, what the app
    keeps between requests emptied too (the API token holders; failed logins are rows of the database), and its
    own EXPORT_DIR and KEPT_UPLOADS_DIR. Requests run in app contexts of their own (RequestClient), so nothing
    of a request outlives it. A database of the test's own (the browser tests' private copies, served from a thread)
    gets an app of its own, disposed of afterwards.
    """
    own = not database_url.startswith("postgresql") and database_url != request.getfixturevalue("sqlite_database")
    app = _test_app(database_url) if own else _kept_app(database_url, kept_apps)
    config = dict(app.config)
    app.config["EXPORT_DIR"] = tmp_path / "exports"
    app.config["KEPT_UPLOADS_DIR"] = tmp_path / "kept-uploads"
    with app.app_context():
        if database_url.startswith("postgresql"):
            _empty_postgres()
        elif not own:
            _empty_sqlite()
        token_holders.init_app(app)  # nothing kept of another test's tokens
        app.extensions.pop(kept_memory.EXTENSION, None)  # nor of its kept figures
        try:
            yield app
        finally:
            db.session.remove()
            app.config.clear()
            app.config.update(config)
            if own:
                db.engine.dispose()


@pytest.fixture
def make_user(app: Flask):  # type: ignore[no-untyped-def]
    from annotator.core.models import User

    def make(name: str, role: str = "annotator", password: str = PASSWORD) -> User:
        user = User(username=name, role=role)
        user.set_password(password)
        db.session.add(user)
        db.session.commit()
        return user
    return make


@pytest.fixture
def api_client(app: Flask, make_user):  # type: ignore[no-untyped-def]
    """An API client of an annotator: `api_client(name, role="annotator")`.

    Makes the account unless a user of that name exists (then `role` is not looked at), issues it an API
    token (committed) and returns a test client that sends `Authorization: Bearer <token>` on every request.
    The raw token is the client's `token`, for a test that sends it some other way.
    """
    from sqlalchemy import select

    from annotator.core.models import User
    from annotator.people.accounts import issue_token

    def client_for(name: str, role: str = "annotator") -> FlaskClient:
        user = db.session.scalar(select(User).where(User.username == name)) or make_user(name, role=role)
        token = issue_token(user)
        db.session.commit()
        client = app.test_client()
        client.environ_base["HTTP_AUTHORIZATION"] = f"Bearer {token}"
        client.token = token  # type: ignore[attr-defined]
        return client
    return client_for


def load_project(format_name: str, path: Path, slug: str, **options):  # type: ignore[no-untyped-def]
    """Import `path` with the format into project `slug` as `flask import` does, committed.

    Project fields (name, k, lease_minutes) and the HIT type's settings may be given with the format's
    options; returns the project.
    """
    from annotator.actions.imports import import_project
    from annotator.core.audit import who
    from annotator.lookups.formats import file_format, import_settings
    fmt = file_format(format_name)
    project = {key: options.pop(key) for key in ("name", "k", "lease_minutes") if key in options}
    settings = {s.name: options.pop(s.name) for s in import_settings(fmt) if s.name in options}
    return import_project(fmt, path, slug=slug, options=options, settings=settings, by=who(), **project).project


@pytest.fixture
def kpa_project(app: Flask):  # type: ignore[no-untyped-def]
    """The KPA excerpt (tests/data/kpa2021: 26 arguments of one test topic) as project `kpa`, k=3.

    A declared project of match.yaml, as every KPA import makes since the switch to one engine (the built-in kp_match
    type is gone: docs/one-engine.md, KPA step 6): its votes' rows are (key point, "matches", 1 / 0), its gold the
    declared rows read in the built-in columns by the format (declared_gold.py).

    Into an empty database, the import runs once per process, database and arguments, and later tests get the rows it
    stored put back (`_imported_before`), as `demo` does: hundreds of tests load the project on each engine, and the
    import (reading the files, checking and storing them) took 27-34 ms of the test process's CPU per call against
    5-11 ms to put its rows back (tests/web, each call timed). Into a database that holds anything already, the import
    runs as written."""
    def load(k: int = 3, lease_minutes: int = 30, slug: str = "kpa"):  # type: ignore[no-untyped-def]
        key = f"{db.engine.url!r} {k} {lease_minutes} {slug}"
        empty = _holds_nothing()
        if empty and key in _IMPORTED:
            return _imported_before(*_IMPORTED[key], slug)
        project = load_project("kpa2021", DATA / "kpa2021", slug, split="test", k=k, lease_minutes=lease_minutes)
        if not empty:
            return project
        _IMPORTED[key] = (utcnow(), all_rows())
        return db.session.scalars(select(Project).where(Project.slug == slug)).one()
    return load


# What an import into an empty database stored, by database and arguments (kpa_project): when, and every row.
_IMPORTED: dict[str, tuple[datetime, dict[str, list[dict]]]] = {}


def _imported_before(made: datetime, rows: dict[str, list[dict]], slug: str) -> Project:
    """The rows put back with every time moved on by the time since they were made, so that they read as made now
    (a project created, an import recorded a moment ago); PostgreSQL's planner then given their statistics, as the
    import gives them (refresh_statistics)."""
    later = utcnow() - made
    put_back({table: [{column: value + later if isinstance(value, datetime) else value
                       for column, value in row.items()} for row in table_rows]
              for table, table_rows in rows.items()})
    refresh_statistics()
    db.session.remove()
    return db.session.scalars(select(Project).where(Project.slug == slug)).one()


def _holds_nothing() -> bool:
    """Whether every table of the schema is empty (one statement)."""
    exists = [select(table).exists() for table in db.metadata.sorted_tables]
    return not db.session.scalar(select(or_(*exists)))


@pytest.fixture
def login(app):  # type: ignore[no-untyped-def]
    """Log in through the real form; returns a test client holding that session."""
    from tests.web.conftest import csrf_token

    def log_in(username: str, password: str = PASSWORD):  # type: ignore[no-untyped-def]
        client = app.test_client()
        page = client.get("/login").get_data(as_text=True)
        response = client.post("/login", data={"username": username, "password": password,
                                               "csrf_token": csrf_token(page)})
        assert response.status_code == 302, response.get_data(as_text=True)
        return client
    return log_in


DEMO_PASSWORDS = {"ANNOTATOR_ADMIN_PASSWORD": "demo-admin-pass", "ANNOTATOR_DEMO_PASSWORD": "demo-annotator-pass"}


@pytest.fixture(scope="session")
def demo_rows(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[str, dict[str, list[dict]]]]:
    """Per engine: the output of the run's one real `flask demo` run, and every row it stored (filled by `demo`).

    The run's pytest-xdist workers share it through a file per engine in their common temporary folder, named
    with the run's id (a folder given by --basetemp may outlive a run): the first worker to need it runs the
    command and writes the file, under a lock that the others wait on.
    """
    return _run_shared(tmp_path_factory, "demo")


@pytest.fixture(scope="session")
def run_shared(tmp_path_factory: pytest.TempPathFactory) -> _SharedRows:
    """What one process of the run makes once for all of them, by name (`get_or_make`): e.g. the accessibility
    scan's filled site, which each xdist worker that scanned used to build."""
    return _run_shared(tmp_path_factory, "shared")


def _run_shared(tmp_path_factory: pytest.TempPathFactory, prefix: str) -> _SharedRows:
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    return _SharedRows(tmp_path_factory.getbasetemp().parent if run else tmp_path_factory.getbasetemp(),
                       run or uuid.uuid4().hex, prefix)


class _SharedRows(dict):  # type: ignore[type-arg]
    """{key: value} kept in this process, and in files of `folder` for the run's other processes."""

    def __init__(self, folder: Path, run: str, prefix: str) -> None:
        super().__init__()
        self.folder, self.run, self.prefix = folder, run, prefix

    def get_or_make(self, key: str, make):  # type: ignore[no-untyped-def]
        """(the key's value, whether this call made it): from this process, else from the run's file, else made
        by `make()` (and written for the others), under a lock that the others wait on."""
        import fcntl
        import pickle
        if key not in self:
            path = self.folder / f"{self.prefix}-{self.run}-{key}.pickle"
            with open(path.with_suffix(".lock"), "w") as lock:
                fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
                if not path.exists():
                    made = make()
                    path.with_suffix(".part").write_bytes(pickle.dumps(made))
                    path.with_suffix(".part").rename(path)
                    self[key] = made
                    return made, True
                self[key] = pickle.loads(path.read_bytes())
        return self[key], False


@pytest.fixture
def demo(app: Flask, demo_rows: _SharedRows) -> str:
    """The test's (empty) database holding what `flask demo` loads with DEMO_PASSWORDS; the command's output.

    The command runs once per engine and test run (shared by the xdist workers, see `demo_rows`): loading seven
    projects and their votes took 3-10 s, which each demo test paid, then each worker. Later tests get the rows
    it stored put back as they were (ids included), which is what the command would store again: its votes are
    the same at every run (tests/cli/test_demo.py checks that, and the command itself, on a run of their own).
    """
    engine = db.engine.dialect.name

    def run_the_command() -> tuple[str, dict[str, list[dict]]]:
        result = app.test_cli_runner().invoke(args=["demo"], env=DEMO_PASSWORDS)
        assert result.exit_code == 0, result.output
        return result.output, all_rows()

    (output, rows), ran = demo_rows.get_or_make(engine, run_the_command)
    if not ran:
        put_back(rows)
    return output


def all_rows() -> dict[str, list[dict]]:
    """Every row of every table, as a fresh session reads them: what `put_back` stores again."""
    db.session.remove()
    rows = {table.name: [dict(row) for row in db.session.execute(table.select()).mappings()]
            for table in db.metadata.sorted_tables}
    db.session.remove()
    return rows


def put_back(rows: dict[str, list[dict]]) -> None:
    """Store rows read by `all_rows` into the test's empty database as they were, ids included, committed."""
    for table in db.metadata.sorted_tables:
        if rows[table.name]:
            db.session.execute(table.insert(), rows[table.name])
    if db.engine.dialect.name == "postgresql":  # the id sequences past the ids put back, as inserts leave them
        for table in db.metadata.sorted_tables:
            if rows[table.name] and "id" in table.c and table.c.id.autoincrement is not False:
                db.session.execute(db.text(f"SELECT setval(pg_get_serial_sequence('{table.name}', 'id'), "
                                           f"(SELECT max(id) FROM {table.name}))"))
    db.session.commit()
    db.session.remove()
