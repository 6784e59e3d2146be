"""`flask project export-all` / `import-all`: one project carried to another server, with new ids there.

What belongs to a project is found from the schema, not from a list, so that tables added later come along:
the project's row, every row of a table with a `project_id` pointing at it, and then every row whose foreign
key points at a row already carried (a leaderboard's submissions through its gold sets). Not carried:
  * API tokens, crowd workers (the platform's worker ids) and crowd sessions (the platform's session ids):
    they identify people or grant access, and belong to the source server;
  * kept figures (archive.NOT_CARRIED), recomputed on the target.
The accounts the carried rows point at (voters, adjudicators, listed annotators) are carried as their id,
username and creation time only: no role, password hash or token. A crowd account's name holds its worker id
("prolific:<id>"), so it is carried as a pseudonym of the same platform ("prolific:moved-<hex>"), the same
for the same worker in every export of the source server (see _pseudonym).

On import, accounts are created as annotators, disabled and without a password (an admin enables them and
sets a password if those people are to log in there). A name that exists on the target is refused, with the
names, unless `reuse_accounts` says that the accounts of those names are the same people: then their votes go
to the existing accounts. Every id is new on the target and every foreign key is rewritten; the whole import is
one transaction, and a slug that exists is refused (import under another with `slug`). Since an archive's
checksums only say its files are as written, what its rows become here is checked too: every table an export
writes is there, account names are valid and unique (and a name with ':' is an export's pseudonym, not a
worker id of the archive's choosing), and project rows and item payloads pass project_checks.py.
"""
from __future__ import annotations

import hashlib
import hmac
import re
import time
from dataclasses import dataclass, field
from itertools import islice
from pathlib import Path
from typing import Any

from flask import current_app
from sqlalchemy import Column, ColumnElement, Table, select, union
from sqlalchemy.engine import Connection

from annotator.campaigns.projects import SLUG, reserved_slug_problem
from annotator.core.audit import record_on
from annotator.core.extensions import db
from annotator.core.models import CROWD_PLATFORMS, CROWD_SEPARATOR
from annotator.lifecycle.archive import (
    Archive,
    ArchiveError,
    ArchiveWriter,
    TableEntry,
    carried_tables,
    check_columns,
    open_archive,
    schema_revision,
    table_columns,
    utc_now_text,
)
from annotator.lifecycle.backup import Written, read_expression, snapshot, table_rows
from annotator.lifecycle.project_checks import check_item, check_project
from annotator.lifecycle.restore import check_revision, insert_located, refused_by_database, writing
from annotator.people.accounts import USERNAME

NOT_MOVED = ("api_tokens", "crowd_workers", "crowd_sessions")
ACCOUNT_COLUMNS = ("id", "username", "created_at")
BATCH = 1000
NAMES_PER_QUERY = 1000
PSEUDONYM_HEX = 16  # 64 bits of the HMAC: no two workers of one server share a pseudonym in practice
# The name of a crowd account an export writes: the platform, then "moved-" and hex (see _pseudonym).
PSEUDONYM = re.compile(rf"^({'|'.join(CROWD_PLATFORMS)}){CROWD_SEPARATOR}moved-[0-9a-f]{{8,40}}$")


def scoped_tables() -> list[Table]:
    return [t for t in carried_tables(db.metadata.sorted_tables) if t.name not in NOT_MOVED]


def project_filters(project_id: int) -> dict[str, ColumnElement[bool]]:
    """Per table (users aside), which of its rows belong to the project, as a WHERE clause."""
    filters: dict[str, ColumnElement[bool]] = {}
    for table in scoped_tables():
        if table.name == "projects":
            filters[table.name] = table.c.id == project_id
        elif table.name == "users":
            continue
        elif "project_id" in table.c and _points_to(table, "project_id") == "projects":
            filters[table.name] = table.c.project_id == project_id
        else:
            for column in table.columns:
                key = _referred_id(column)
                if key is not None and key.table.name in filters and key.table.name != "projects":
                    filters[table.name] = column.in_(select(key).where(filters[key.table.name]))
                    break
    return filters


def _points_to(table: Table, column: str) -> str | None:
    """The table whose id the column holds, or None. A column of a composite key (a label's `project_id`, part of
    its key to the assignment's (id, project_id, item_id, user_id)) holds the id its referred column holds: the
    key is followed to a column that is an id."""
    referred = _referred_id(table.c[column])
    return referred.table.name if referred is not None else None


def _referred_id(column: Column[Any]) -> Column[Any] | None:
    while column.foreign_keys:
        column = next(iter(column.foreign_keys)).column
        if column.primary_key:
            return column
    return None


def account_columns(users: Table) -> list[dict[str, Any]]:
    return [c for c in table_columns(users) if c["name"] in ACCOUNT_COLUMNS]


def export_project(slug: str, out: Path) -> Written:
    """Write project `slug` and what belongs to it (see the module docstring) to the archive `out`."""
    started = time.perf_counter()
    engine = db.engine
    projects, users = db.metadata.tables["projects"], db.metadata.tables["users"]
    writer = ArchiveWriter(out)
    try:
        with snapshot(engine) as connection:
            revision = schema_revision(connection)
            project_id = connection.execute(select(projects.c.id).where(projects.c.slug == slug)).scalar()
            if project_id is None:
                raise ArchiveError(f"there is no project {slug!r}")
            filters = project_filters(project_id)
            for table in scoped_tables():
                if table.name == "users":
                    _write_accounts(connection, writer, users, filters)
                elif table.name in filters:
                    writer.write_table(table.name, table_columns(table),
                                       table_rows(connection, table, filters[table.name]))
        writer.finish(scope="project", project=slug, schema_revision=revision, created_at=utc_now_text(),
                      source_engine=engine.dialect.name, accounts="id, username and created_at only; crowd "
                      "accounts under a pseudonym; no password, role, token or worker id")
    except BaseException:
        writer.abort()
        raise
    return Written(Path(out), writer.tables, time.perf_counter() - started)


def _write_accounts(connection: Connection, writer: ArchiveWriter, users: Table,
                    filters: dict[str, ColumnElement[bool]]) -> None:
    """The accounts any carried row points at: id, username (crowd names pseudonymised), created_at."""
    referring = [select(table.c[column.name]).where(filters[table.name])
                 for table in scoped_tables() if table.name in filters
                 for column in table.columns if _points_to(table, column.name) == "users"]
    columns = account_columns(users)
    query = (select(*(read_expression(users.c[c["name"]]) for c in columns))
             .where(users.c.id.in_(union(*referring))).order_by(users.c.id))
    rows = ([_pseudonym(r[1]) if name == "username" else value for name, value in zip(ACCOUNT_COLUMNS, r)]
            for r in connection.execute(query))
    writer.write_table("users", columns, rows)


def _pseudonym(username: str) -> str:
    """A crowd account's name with the worker id replaced: the same for the same worker in every export of this
    server (an HMAC of the name under SECRET_KEY), so that two exports (two projects, or one project twice) name
    a worker alike and can be joined, while the worker id cannot be read back without the key."""
    if CROWD_SEPARATOR not in username:
        return username
    key = str(current_app.config["SECRET_KEY"]).encode()
    digest = hmac.new(key, b"project-move:" + username.encode(), hashlib.sha256).hexdigest()[:PSEUDONYM_HEX]
    return f"{username.split(CROWD_SEPARATOR, 1)[0]}{CROWD_SEPARATOR}moved-{digest}"


@dataclass
class Imported:
    slug: str
    rows: dict[str, int] = field(default_factory=dict)
    accounts_created: int = 0
    accounts_reused: int = 0


def import_project(path: Path, slug: str | None = None, reuse_accounts: bool = False) -> Imported:
    """Load a project archive into this server with new ids; ArchiveError (nothing changed) if it cannot be."""
    with open_archive(path) as archive:
        return _import(archive, slug, reuse_accounts)


def _import(archive: Archive, slug: str | None, reuse_accounts: bool) -> Imported:
    path = archive.path
    if archive.scope != "project":
        raise ArchiveError("this is a whole database's backup: load it with `flask restore`", file=path.name)
    tables = _check_tables(archive)
    imported = Imported(slug or str(archive.manifest.get("project")))
    if not SLUG.match(imported.slug):
        raise ArchiveError(f"project slug {imported.slug!r} must be lower-case letters, digits, '-' or '_'")
    if problem := reserved_slug_problem(imported.slug):
        raise ArchiveError(f"{problem} (--slug NEW)")
    with writing(db.engine) as connection:
        _check_project_revision(connection, archive)
        _check_slug(connection, archive, imported.slug)
        ids: dict[str, dict[int, int]] = {}
        for table in tables:
            entry = archive.entry(table.name)
            assert entry is not None
            if table.name == "users":
                ids["users"] = _accounts(connection, archive, entry, reuse_accounts, imported)
                continue
            ids[table.name] = {}
            with refused_by_database(archive, entry.file):
                imported.rows[table.name] = _insert(connection, table, archive, entry, ids, imported.slug)
        record_on(connection, "import", imported.slug, {"archive": archive.path.name, "kind": "project archive",
                                                         "rows": sum(imported.rows.values())})
    return imported


def _check_project_revision(connection: Connection, archive: Archive) -> None:
    """A project archive of another schema revision is refused, saying how to carry it over.

    Why not "migrate this database to the archive's revision", as a restore says: this server holds other projects,
    and a later revision may have changed what the archive's rows mean (a migration that moved a removed HIT type's
    projects to their definition, docs/one-engine.md), which only the migrations apply. The server that wrote the
    archive, upgraded to this code, maps its projects as this database's were mapped; its new archive imports here."""
    try:
        check_revision(connection, archive)
    except ArchiveError:
        raise ArchiveError(f"the archive is of schema revision {archive.revision}, this database is at "
                           f"{schema_revision(connection) or 'no revision (not migrated)'}: a project archive is "
                           "imported at its own revision only. Upgrade the server that wrote it to this version "
                           "(flask db upgrade, which maps its projects as it mapped this database's) and export the "
                           "project again there", file=archive.path.name) from None


def _check_tables(archive: Archive) -> list[Table]:
    """The target's tables the archive holds, parents first; refuses a table or columns this server lacks."""
    known = {t.name: t for t in scoped_tables()}
    if unknown := sorted(t.name for t in archive.tables if t.name not in known):
        raise ArchiveError(f"tables this server does not have: {', '.join(unknown)}", file=archive.path.name)
    # Every table an export writes, as a restore wants every table of a backup: a project without its votes
    # (a table left out of the archive, manifest and all) would otherwise be imported as if it had none.
    if absent := sorted({"users", *project_filters(0)} - {t.name for t in archive.tables}):
        raise ArchiveError(f"tables a project archive holds are missing: {', '.join(absent)}",
                           file=archive.path.name)
    for entry in archive.tables:
        table = known[entry.name]
        check_columns(archive.path, entry, account_columns(table) if entry.name == "users" else table_columns(table))
    return [t for t in known.values() if archive.entry(t.name) is not None]


def _check_slug(connection: Connection, archive: Archive, slug: str) -> None:
    projects = db.metadata.tables["projects"]
    entry = archive.entry("projects")
    if entry is None or entry.rows != 1:
        raise ArchiveError("a project archive holds exactly one project", file=archive.path.name)
    if connection.execute(select(projects.c.id).where(projects.c.slug == slug)).first() is not None:
        raise ArchiveError(f"project {slug!r} exists here: import it under another slug (--slug NEW)",
                           file=archive.path.name)


def _accounts(connection: Connection, archive: Archive, entry: TableEntry, reuse: bool,
              imported: Imported) -> dict[int, int]:
    """Old account id -> id here: existing accounts of the same name when `reuse`, else new disabled ones."""
    users = db.metadata.tables["users"]
    rows = [dict(zip(ACCOUNT_COLUMNS, r)) for r in archive.rows(entry)]
    _check_names(archive, entry, [r["username"] for r in rows])
    existing = _existing(connection, users, [r["username"] for r in rows])
    if existing and not reuse:
        shown = ", ".join(sorted(existing)[:10]) + (" ..." if len(existing) > 10 else "")
        raise ArchiveError(f"{len(existing)} account names of the archive exist here ({shown}): import with "
                           "--reuse-accounts if they are the same people", file=archive.path.name)
    ids = {r["id"]: existing[r["username"]] for r in rows if r["username"] in existing}
    new = [r for r in rows if r["username"] not in existing]
    if new:
        numbered = [(number, r) for number, r in enumerate(rows, start=1) if r["username"] not in existing]
        statement = users.insert().returning(users.c.id, sort_by_parameter_order=True)
        with refused_by_database(archive, entry.file):
            for start in range(0, len(numbered), BATCH):
                chunk = numbered[start:start + BATCH]
                made = insert_located(connection, statement, [_account(r) for _, r in chunk],
                                      f"{archive.path.name}: {entry.file}", [number for number, _ in chunk])
                ids.update((r["id"], made_id) for (_, r), (made_id,) in zip(chunk, made))
    imported.accounts_created, imported.accounts_reused = len(new), len(rows) - len(new)
    imported.rows["users"] = len(rows)
    return ids


def _account(row: dict[str, Any]) -> dict[str, Any]:
    """A carried account as created here: an annotator, disabled, without password."""
    return {"username": row["username"], "created_at": row["created_at"], "role": "annotator",
            "password_hash": None, "active": False, "must_change_password": False, "session_version": 0}


def _check_names(archive: Archive, entry: TableEntry, names: list[str]) -> None:
    """Refuse a name given twice, or one no account here could have: the rules of accounts.USERNAME, or for a
    crowd account the pseudonym an export writes. A name with ':' would otherwise make a crowd account (of a
    platform of the archive's choosing) out of a file."""
    seen: set[str] = set()
    where = f"{archive.path.name}: {entry.file}"
    for number, name in enumerate(names, start=1):
        if name in seen:
            raise ArchiveError(f"the account name {name!r} is in the archive twice", file=where, line=number,
                               column="username")
        seen.add(name)
        if not (PSEUDONYM.match(name) if CROWD_SEPARATOR in name else USERNAME.match(name)):
            raise ArchiveError(f"{name[:80]!r} is not an account name: 1 to 80 letters, digits and _ . @ -, or a "
                               "crowd pseudonym as an export writes it (<platform>:moved-<hex>)", file=where,
                               line=number, column="username")


def _existing(connection: Connection, users: Table, names: list[str]) -> dict[str, int]:
    """The accounts here of these names, asked in chunks (one bind per name: drivers and engines cap them)."""
    found: dict[str, int] = {}
    for start in range(0, len(names), NAMES_PER_QUERY):
        chunk = names[start:start + NAMES_PER_QUERY]
        found.update(connection.execute(select(users.c.username, users.c.id).where(users.c.username.in_(chunk))).all())
    return found


def _insert(connection: Connection, table: Table, archive: Archive, entry: TableEntry,
            ids: dict[str, dict[int, int]], slug: str) -> int:
    """Insert the table's rows with their foreign keys rewritten; new ids recorded in ids[table]."""
    names = [c["name"] for c in entry.columns]
    own_id = "id" in table.c and table.c.id.primary_key and len(table.primary_key.columns) == 1
    keys = {c.name: parent for c in table.columns if (parent := _points_to(table, c.name)) is not None}
    count, iterator = 0, iter(enumerate(archive.rows(entry), start=1))
    where = f"{archive.path.name}: {entry.file}"
    while batch := list(islice(iterator, BATCH)):
        rows = [_rewritten(archive, entry, number, dict(zip(names, values)), keys, ids) for number, values in batch]
        for (number, _), row in zip(batch, rows):
            if table.name == "projects":
                row["slug"] = slug
                check_project(row, where, number)
            elif table.name == "items":
                check_item(row, where, number)
        if own_id:
            old = [row.pop("id") for row in rows]
            new = insert_located(connection, table.insert().returning(table.c.id, sort_by_parameter_order=True),
                                 rows, where, [number for number, _ in batch])
            ids[table.name].update(zip(old, (r[0] for r in new)))
        else:
            insert_located(connection, table.insert(), rows, where, [number for number, _ in batch])
        count += len(rows)
    return count


def _rewritten(archive: Archive, entry: TableEntry, number: int, row: dict[str, Any], keys: dict[str, str],
               ids: dict[str, dict[int, int]]) -> dict[str, Any]:
    for column, parent in keys.items():
        value = row.get(column)
        if value is None or not isinstance(value, int):
            continue
        if parent not in ids or value not in ids[parent]:
            raise ArchiveError(f"points to {parent} id {value}, which the archive does not hold",
                               file=f"{archive.path.name}: {entry.file}", line=number, column=column)
        row[column] = ids[parent][value]
    return row

