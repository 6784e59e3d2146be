"""An erased crowd worker is in no backup made afterwards: not in any table of the backup restored on the other
engine (binary columns searched as bytes), nor anywhere in the archive's raw members."""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, ControlAnswer, CrowdWorker, Item, Project, User
from annotator.people.crowd import link_token, save_link
from tests.conftest import stored
from tests.lifecycle.conftest import other_app, other_engine  # noqa: F401 - other_app is a fixture
from tests.quality.conftest import make_controls, set_quality
from tests.support.crowd_visits import answer_hit

PROLIFIC = {"PROLIFIC_PID": "5f1a2b3c4d5e6f7a8b9c0d1e", "STUDY_ID": "STUDYab12cd34", "SESSION_ID": "SESSc0ffee42"}
MTURK = {"workerId": "A1B2C3D4E5F6WKR", "assignmentId": "ASG9f8e7d6c5b4a", "hitId": "HIT7q6w5e4r",
         "turkSubmitTo": "https://workersandbox.mturk.com"}
IDENTITY = {"prolific": PROLIFIC, "mturk": MTURK}
WORKER_ID = {"prolific": PROLIFIC["PROLIFIC_PID"], "mturk": MTURK["workerId"]}


def enter_and_answer(app, project: Project, platform: str, hits: int = 2) -> int:  # type: ignore[no-untyped-def]
    """The worker comes in by the study link and answers `hits` HITs ("none of these"); their account id."""
    link = save_link(project, platform, 5, "DONE123")
    db.session.commit()
    client = app.test_client()
    query = "&".join(f"{key}={value}" for key, value in IDENTITY[platform].items())
    assert client.get(f"/crowd/{project.slug}/{platform}/{link_token(link)}?{query}").status_code == 302
    for _ in range(hits):
        answer_hit(client, project.slug)
    db.session.remove()
    return db.session.scalars(select(User.id).where(User.username == f"{platform}:{WORKER_ID[platform]}")).one()


@pytest.fixture
def worker_with_figures(app, kpa_project):  # type: ignore[no-untyped-def]
    """Project kpa (k=2, every HIT a control while controls last) with kept figures; a worker of the platform
    answered 2 HITs, one a control at least. Returns a function of the platform: the worker's account id."""
    def make(platform: str) -> int:
        project = kpa_project(k=2)
        references = db.session.scalars(select(Item.external_id).where(
            Item.project_id == project.id, Item.reference.is_not(None)).order_by(Item.position).limit(2)).all()
        make_controls(project, *references)
        set_quality(db.session.get_one(Project, project.id), control_rate=1.0)
        worker = enter_and_answer(app, db.session.get_one(Project, project.id), platform)
        assert db.session.scalar(select(ControlAnswer.assignment_id).where(ControlAnswer.user_id == worker)) is not None
        app.config["KEPT_RESULTS_FROM_VOTES"] = 1
        result = app.test_cli_runner().invoke(args=["refresh-figures", "--project", "kpa"])
        assert result.exit_code == 0, result.output
        return worker
    return make


def needles(platform: str) -> list[str]:
    """What identifies the worker: the worker id, the account's former name, the study's and session's ids."""
    return [value for key, value in IDENTITY[platform].items() if key != "turkSubmitTo"] \
        + [f"{platform}:{WORKER_ID[platform]}"]


def in_tables(found: list[str]) -> list[str]:
    """Every table.column of the current database holding one of `found`: text as text, bytes as bytes, JSON as
    its text."""
    db.session.remove()
    hits = []
    for table in db.metadata.sorted_tables:
        for row in db.session.execute(table.select()).mappings():
            for column, value in row.items():
                if value is None:
                    continue
                if isinstance(value, (bytes, bytearray, memoryview)):
                    data = bytes(value)
                    if any(n.encode() in data for n in found):
                        hits.append(f"{table.name}.{column}")
                    continue
                text = value if isinstance(value, str) else json.dumps(value, default=str)
                if any(n in text for n in found):
                    hits.append(f"{table.name}.{column}")
    db.session.remove()
    return sorted(set(hits))


def in_archive(path: Path, found: list[str]) -> list[str]:
    """The archive's members holding one of `found` as raw bytes (or as the JSON escape of them)."""
    with zipfile.ZipFile(path) as archive:
        return [name for name in archive.namelist() for data in [archive.read(name)]
                if any(n.encode() in data or json.dumps(n).encode() in data for n in found)]


@pytest.mark.parametrize("delete_votes", [False, True], ids=["votes-kept", "votes-deleted"])
@pytest.mark.parametrize("platform", ["prolific", "mturk"])
def test_a_backup_made_after_the_erasure_holds_nothing_of_the_worker(app, worker_with_figures, other_app,  # noqa: F811
                                                                       tmp_path, platform, delete_votes):
    worker_with_figures(platform)
    found = needles(platform)
    assert in_tables(found)  # the search finds the worker before
    option = f"--{platform}"
    args = ["erase", option, WORKER_ID[platform], "--yes", *(["--delete-votes"] if delete_votes else [])]
    result = app.test_cli_runner().invoke(args=args)
    assert result.exit_code == 0, result.output
    backup = tmp_path / "after-erasure.zip"
    result = app.test_cli_runner().invoke(args=["backup", str(backup)])
    assert result.exit_code == 0, result.output
    assert in_archive(backup, found) == []
    target = other_app(other_engine(app))
    with target.app_context():
        restored = target.test_cli_runner().invoke(args=["restore", str(backup)])
        assert restored.exit_code == 0, restored.output
        assert in_tables(found) == []


@pytest.mark.parametrize("delete_votes", [False, True], ids=["votes-kept", "votes-deleted"])
def test_an_erased_worker_who_comes_back_is_a_new_account_and_the_erasure_stays_done(
        app, kpa_project, delete_votes):
    project = kpa_project(k=3)
    set_quality(project, control_rate=0.0)
    erased = enter_and_answer(app, db.session.get_one(Project, project.id), "prolific", hits=2)
    args = ["erase", "--prolific", WORKER_ID["prolific"], "--yes", *(["--delete-votes"] if delete_votes else [])]
    assert app.test_cli_runner().invoke(args=args).exit_code == 0
    db.session.remove()
    kept = set(db.session.scalars(select(Assignment.id).where(Assignment.user_id == erased)))
    again = enter_and_answer(app, db.session.get_one(Project, project.id), "prolific", hits=1)
    assert again != erased
    db.session.remove()
    pseudonym = stored(User, id=erased)
    assert pseudonym.username.startswith("erased-") and not pseudonym.active
    assert stored(CrowdWorker, user_id=erased).worker_id is None
    assert set(db.session.scalars(select(Assignment.id).where(Assignment.user_id == erased))) == kept
    assert len(db.session.scalars(select(Assignment.id).where(Assignment.user_id == again,
                                                              Assignment.status == SUBMITTED)).all()) == 1
