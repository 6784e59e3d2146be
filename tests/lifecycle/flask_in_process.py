"""`flask --app annotator ARGS` on a database, run in the test's own process: the same click command, on an app made
as the command line makes it (the environment's configuration, the database and key given), its output and exit
status returned as a finished process's would be.

Why not a process: a `flask` process paid about 1.3 s of CPU to start (the interpreter, the app's imports,
`create_app`) for a migration that takes a tenth of that; the downgrade and upgrade tests started some 30 of them a
run. What they check is what the migrations do to the rows, which is the same in either. What only a real process
shows stays one: the kept database's upgrade to head (`kept_upgraded`, built once a run by `flask db upgrade` in a
process of its own) and `make run`'s `flask db upgrade` on a new file (tests/cli/test_demo.py).

Alembic's env.py configures logging from alembic.ini on every run (a handler on the stderr of the moment, which here
is the runner's captured stream): the process's logging is put back as it was afterwards, so no later test's log
record goes to a closed stream.
"""
from __future__ import annotations

import logging
import traceback
from dataclasses import dataclass

from annotator import create_app
from annotator.core.extensions import db

# The loggers alembic.ini configures (migrations/alembic.ini, [loggers]), the root's included.
_CONFIGURED = ("", "sqlalchemy.engine", "alembic", "flask_migrate")


@dataclass(frozen=True)
class Finished:
    """What a finished `flask` process leaves: its exit status and its two streams (an uncaught exception's
    traceback on stderr, as the interpreter prints it)."""

    returncode: int
    stdout: str
    stderr: str


def flask(database_url: str, secret_key: str, *args: str) -> Finished:
    app = create_app(None, SQLALCHEMY_DATABASE_URI=database_url, SECRET_KEY=secret_key)
    saved = {name: _state(logging.getLogger(name)) for name in _CONFIGURED}
    try:
        # Its own app context: the command would otherwise run in the caller's, on the caller's database.
        with app.app_context():
            try:
                result = app.test_cli_runner().invoke(args=list(args))
            finally:
                db.session.remove()
                db.engine.dispose()
    finally:
        for name, state in saved.items():
            _restore(logging.getLogger(name), state)
    stderr = result.stderr
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        stderr += "".join(traceback.format_exception(result.exception))
    return Finished(result.exit_code, result.stdout, stderr)


def _state(logger: logging.Logger) -> tuple[list[logging.Handler], int, bool, bool]:
    return list(logger.handlers), logger.level, logger.propagate, logger.disabled


def _restore(logger: logging.Logger, state: tuple[list[logging.Handler], int, bool, bool]) -> None:
    handlers, level, propagate, disabled = state
    logger.handlers[:] = handlers
    logger.setLevel(level)
    logger.propagate, logger.disabled = propagate, disabled
