"""A backup taken while annotators keep voting holds one moment of the database: the votes committed while it
runs are not in it, none is half in it, its counts are its files', and it restores."""
from __future__ import annotations

import json
import threading
import zipfile

from flask import Flask
from sqlalchemy import select

from annotator.core.database import write_transaction
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Item, Label, Project, User, utcnow
from annotator.lifecycle import archive as archive_module
from tests.lifecycle.conftest import counts, other_engine

VOTES_DURING = 5


def vote_on_a_new_item(app: Flask, number: int) -> None:
    """One transaction: an item, a submitted vote on it and the vote's label (rows of three tables)."""
    with app.app_context(), write_transaction():
        project = db.session.scalars(select(Project).where(Project.slug == "kpa-demo")).one()
        user = db.session.scalars(select(User).order_by(User.id)).first()
        item = Item(project_id=project.id, external_id=f"during-{number}", position=10_000 + number,
                    payload={}, done_count=1)
        db.session.add(item)
        db.session.flush()
        vote = Assignment(project_id=project.id, item_id=item.id, user_id=user.id, status=SUBMITTED,
                          expires_at=utcnow(), submitted_at=utcnow(), answer={})
        db.session.add(vote)
        db.session.flush()
        db.session.add(Label(assignment_id=vote.id, project_id=project.id, item_id=item.id, user_id=user.id,
                             unit="u", field="f", value="1"))


def test_votes_committed_during_a_backup_are_not_in_it_and_it_restores(app, demo, other_app, tmp_path, monkeypatch):
    before = counts()
    written = threading.Event()
    write_table = archive_module.ArchiveWriter.write_table

    def slow_write_table(self, name, columns, rows):  # type: ignore[no-untyped-def]
        entry = write_table(self, name, columns, rows)
        if not written.is_set():  # after the first table: annotators vote, and commit, in another thread
            written.set()
            voter = threading.Thread(target=lambda: [vote_on_a_new_item(app, n) for n in range(VOTES_DURING)])
            voter.start()
            voter.join(timeout=60)
            assert not voter.is_alive()
        return entry
    monkeypatch.setattr(archive_module.ArchiveWriter, "write_table", slow_write_table)
    result = app.test_cli_runner().invoke(args=["backup", str(tmp_path / "b.zip")])
    assert result.exit_code == 0, result.output
    assert counts()["labels"] == before["labels"] + VOTES_DURING  # the votes were committed meanwhile
    with zipfile.ZipFile(tmp_path / "b.zip") as archive:
        manifest = json.loads(archive.read("manifest.json"))
        for table in manifest["tables"]:
            assert table["rows"] == before[table["name"]] == len(archive.read(table["file"]).splitlines())
    target = other_app(other_engine(app))
    with target.app_context():
        restored = target.test_cli_runner().invoke(args=["restore", str(tmp_path / "b.zip")])
        assert restored.exit_code == 0, restored.output
        restored_counts = {t: n for t, n in counts().items() if t in before}
        restored_counts["audit_events"] -= 1  # the restore's own event
        assert restored_counts == {t: (0 if t in archive_module.NOT_CARRIED else n) for t, n in before.items()}
