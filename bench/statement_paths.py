"""The CPU of one hot-path statement run two ways: on the driver's cursor (annotator/engine/driver_statements.py)
and through SQLAlchemy's `Connection.execute`, interleaved in one process.

Not a test and not a throughput figure: it answers what the driver path saves per statement, which
the load benchmark cannot show through the VM's drift (bench/README.md, "The hot path, fourth round").
The two ways alternate in rounds of 100 executions, so a change in the machine's speed hits both alike.
The statements are read-only (an item row and the pick) on the KPA-2021 demo split in a fresh database.

    .venv/bin/python -m bench.statement_paths --engine postgresql
"""
from __future__ import annotations

import argparse
import os
import resource
import secrets
import tempfile
from datetime import datetime
from pathlib import Path

from .database import fresh_database


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", choices=("sqlite", "postgresql"), default="postgresql")
    parser.add_argument("--rounds", type=int, default=40, help="rounds of 100 executions each way")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, fresh_database(args.engine, Path(tmp)) as url:
        os.environ.update({"DATABASE_URL": url, "SECRET_KEY": secrets.token_hex(16),
                           "ANNOTATOR_INSTANCE": str(Path(tmp) / "instance")})
        _run(args.engine, args.rounds)


def _run(engine: str, rounds: int) -> None:
    from flask_migrate import upgrade
    from sqlalchemy import bindparam, select

    from annotator import create_app
    from annotator.campaigns.imports import import_files
    from annotator.core.extensions import db
    from annotator.core.schema import init_migrations
    from annotator.engine.picking import pick_statement
    from annotator.engine.rows import ITEM_COLUMNS, ITEMS, execute
    from annotator.people.accounts import create_user
    from annotator.shared_tasks.formats import file_format

    app = create_app()
    init_migrations(app)
    with app.app_context():
        upgrade()
        project = import_files(file_format("kpa2021"), Path("annotator/campaigns/demo/kpa2021"), slug="bench", k=4,
                               options={"split": "dev"}).project
        user = create_user("ann1", "annotator", "bench-password").user
        db.session.commit()
        item_id = db.session.scalar(select(ITEMS.c.id).where(ITEMS.c.project_id == project.id).limit(1))
        statements = {
            "an item row (8 columns, JSON payload)": (select(*ITEM_COLUMNS).where(ITEMS.c.id == bindparam("item_id")),
                                                      {"item_id": item_id}),
            "the pick": (pick_statement(False), {"project_id": project.id, "user_id": user.id,
                                                 "now": datetime(2026, 1, 1), "k": 4}),
        }
        print(f"{engine}: CPU µs per execution, {rounds} x 100 each way, interleaved")
        for name, (statement, params) in statements.items():
            connection = db.session.connection()
            spent = {"driver": 0.0, "Connection.execute": 0.0}
            for _ in range(rounds):
                for way in spent:
                    start = _cpu()
                    for _ in range(100):
                        if way == "driver":
                            execute(statement, params).all()
                        else:
                            connection.execute(statement, params).all()
                    spent[way] += _cpu() - start
            db.session.rollback()
            per = {way: 1e6 * seconds / (rounds * 100) for way, seconds in spent.items()}
            print(f"  {name}: driver {per['driver']:.1f}, Connection.execute {per['Connection.execute']:.1f}")


if __name__ == "__main__":
    main()
