"""What a user gets out of a database today, as data that a later version must give back unchanged.

Used by tests/data/before_one_engine/make.py (which writes what today's code gives) and by
tests/lifecycle/test_upgrade_keeps_exports.py (which asks an upgraded copy of that database for the same
things and compares). Two kinds of thing are kept:

- `stored_rows`: every project, item, user, assignment and label row, and what quality control and crowd work
  keep (control answers, annotators' quiz and blocking states, quiz results, crowd links, workers and study
  sessions), without database ids (an upgrade may number rows anew; it may not lose or change one), each
  referring to the others by slug, external id and username;
- the outputs, each one user-visible command or download: every `flask export` of every project (each format
  of its HIT type, with and without --include-incomplete, each choice of a format's export options), the
  admin page's export zip, `flask stats --json` (the dataset table), `flask agreement --json`, `flask rank
  --json` where the format ranks something, and the gold
  file a leaderboard scores against (`FileFormat.scoring_gold`). `OUTPUTS` lists them as steps; make.py runs
  them and keeps what they wrote (MANIFEST), the test runs the manifest's steps again.

Each file is kept by its SHA-256 and size, and whole when it is small (`KEEP_WHOLE_BYTES`), so that a
difference can be read, not only seen.
"""
from __future__ import annotations

import hashlib
import io
import json
import re
import zipfile
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient
from sqlalchemy import select
from sqlalchemy.orm import defer

from annotator.core.extensions import db
from annotator.core.models import (
    AnnotatorState,
    Assignment,
    ControlAnswer,
    CrowdLink,
    CrowdSession,
    CrowdWorker,
    Item,
    Label,
    Project,
    QuizResult,
    User,
)
from annotator.lookups.formats import formats_for, project_format

KEEP_WHOLE_BYTES = 64 * 1024
MANIFEST = "manifest.json"
ROWS = "rows.json"
ADMIN = "admin"
ADMIN_PASSWORD = "demo-admin-pass"
CSRF = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')


@dataclass(frozen=True)
class Step:
    """One user-visible output: `kind` "cli" (a flask command; its --out folder, or its stdout), "zip" (the
    admin page's download) or "scoring" (the gold file a leaderboard scores against)."""

    name: str  # the folder its files are kept in, below exports/<slug>/
    kind: str
    args: tuple[str, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "kind": self.kind, "args": list(self.args)}

    @staticmethod
    def from_json(data: dict[str, Any]) -> Step:
        return Step(data["name"], data["kind"], tuple(data["args"]))


def steps_of(project: Project) -> list[Step]:
    """Every output of the project today: what make.py runs (the test replays the manifest's list, not this)."""
    steps = []
    for fmt in formats_for(project.task_type):
        base = ("export", fmt.name, "--project", project.slug)
        steps += [Step(fmt.name, "cli", base), Step(f"{fmt.name}--include-incomplete", "cli",
                                                     (*base, "--include-incomplete"))]
        for option in fmt.export_options:
            for choice in option.choices or ():
                if choice != option.default:
                    flag = "--" + option.name.replace("_", "-")
                    steps.append(Step(f"{fmt.name}--{option.name}={choice}", "cli", (*base, flag, choice)))
    steps += [Step("zip", "zip", (f"/admin/projects/{project.slug}/export.zip",)),
              Step("zip--include-incomplete", "zip",
                   (f"/admin/projects/{project.slug}/export.zip?include_incomplete=1",)),
              Step("stats", "cli", ("stats", project.slug, "--json")),
              Step("agreement", "cli", ("agreement", "--project", project.slug, "--json"))]
    if project_format(project).ranks(project):
        steps.append(Step("rank", "cli", ("rank", "--project", project.slug, "--json")))
    if project_format(project).scoring_gold is not None:
        steps.append(Step("scoring", "scoring"))
    return steps


def run_step(app: Flask, admin: FlaskClient, slug: str, step: Step, out: Path) -> dict[str, Any]:
    """Run `step` on project `slug`, writing its files into the fresh folder `out`; what it gave: its exit code
    (cli) or status (zip) and its files (path below `out` -> bytes), read back from `out`."""
    out.mkdir(parents=True)
    result: dict[str, Any]
    if step.kind == "cli":
        exporting = step.args[0] == "export"
        args = [*step.args, "--out", str(out)] if exporting else list(step.args)
        ran = app.test_cli_runner().invoke(args=args)
        result = {"exit_code": ran.exit_code}
        if not exporting:
            (out / "stdout.txt").write_text(ran.stdout, encoding="utf-8")
        if ran.exit_code != 0:
            (out / "stderr.txt").write_text(ran.stderr, encoding="utf-8")
    elif step.kind == "zip":
        response = admin.get(step.args[0])
        result = {"status": response.status_code, "content_type": response.mimetype}
        if response.status_code == 200:
            with zipfile.ZipFile(io.BytesIO(response.data)) as archive:
                for member in archive.namelist():
                    target = out / member
                    target.parent.mkdir(parents=True, exist_ok=True)
                    target.write_bytes(archive.read(member))
    else:
        with app.app_context():
            project = db.session.scalars(select(Project).where(Project.slug == slug)).one()
            gold, options = project_format(project).scoring_gold(project, out)  # type: ignore[misc]
            result = {"gold": Path(gold).relative_to(out).as_posix(), "options": options}
            db.session.remove()
    result["files"] = {p.relative_to(out).as_posix(): p.read_bytes()
                       for p in sorted(out.rglob("*")) if p.is_file()}
    return result


def file_entry(content: bytes) -> dict[str, Any]:
    return {"sha256": hashlib.sha256(content).hexdigest(), "size": len(content),
            "kept": len(content) <= KEEP_WHOLE_BYTES}


def admin_client(app: Flask) -> FlaskClient:
    """A test client logged in as the demo's admin through the login form, as a browser would."""
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    match = CSRF.search(page)
    assert match is not None, "the login page has no CSRF token"
    response = client.post("/login", data={"username": ADMIN, "password": ADMIN_PASSWORD,
                                           "csrf_token": match.group(1)})
    assert response.status_code == 302, response.get_data(as_text=True)[:500]
    return client


def _when(value: datetime | None) -> str | None:
    return None if value is None else value.isoformat()


def stored_rows() -> dict[str, list[Any]]:
    """Every project, item, user, assignment and label, and the quality-control and crowd rows, without ids,
    sorted: what an upgrade must keep.

    Run in an app context; read in a fresh session."""
    db.session.remove()
    users = {u.id: u for u in db.session.scalars(select(User))}
    projects = {p.id: p for p in db.session.scalars(select(Project))}
    # stopped_at (0019) and certainty (0020) are not among the rows kept, and a database downgraded below them has no
    # such columns
    items = {i.id: i for i in db.session.scalars(select(Item).options(defer(Item.stopped_at, raiseload=True),
                                                                      defer(Item.certainty, raiseload=True)))}
    assignments = list(db.session.scalars(select(Assignment)))
    labels = list(db.session.scalars(select(Label)))
    links = {link.id: link for link in db.session.scalars(select(CrowdLink))}

    def item_key(item_id: int) -> list[str]:
        return [projects[items[item_id].project_id].slug, items[item_id].external_id]

    rows: dict[str, list[Any]] = {
        "users": [{"username": u.username, "role": u.role, "active": u.active,
                   "has_password": u.password_hash is not None} for u in users.values()],
        "projects": [{"slug": p.slug, "name": p.name, "task_type": p.task_type, "k": p.k,
                      "lease_minutes": p.lease_minutes, "settings": p.settings, "source": p.source,
                      "quality": p.quality, "archived": p.archived, "audience": p.audience,
                      "guidelines_sha256": hashlib.sha256(p.guidelines.encode()).hexdigest()}
                     for p in projects.values()],
        "items": [{"project": projects[i.project_id].slug, "external_id": i.external_id, "position": i.position,
                   "payload": i.payload, "reference": i.reference, "done_count": i.done_count,
                   "is_control": i.is_control, "target": i.target} for i in items.values()],
        "assignments": [{"item": item_key(a.item_id), "user": users[a.user_id].username, "status": a.status,
                         "leased_at": _when(a.leased_at), "expires_at": _when(a.expires_at),
                         "submitted_at": _when(a.submitted_at), "seconds_spent": a.seconds_spent,
                         "answer": a.answer, "presentation": a.presentation, "excluded": a.excluded}
                        for a in assignments],
        "labels": [{"item": item_key(label.item_id), "user": users[label.user_id].username, "unit": label.unit,
                    "field": label.field, "value": label.value} for label in labels],
        "control_answers": [{"item": item_key(c.item_id), "user": users[c.user_id].username, "score": c.score,
                             "quiz_attempt": c.quiz_attempt} for c in db.session.scalars(select(ControlAnswer))],
        "annotator_states": [{"project": projects[s.project_id].slug, "user": users[s.user_id].username,
                              "quiz_status": s.quiz_status, "quiz_attempt": s.quiz_attempt,
                              "blocked_at": _when(s.blocked_at), "blocked_reason": s.blocked_reason,
                              "exempt": s.exempt} for s in db.session.scalars(select(AnnotatorState))],
        "quiz_results": [{"project": projects[q.project_id].slug, "user": users[q.user_id].username,
                          "attempt": q.attempt, "answered": q.answered, "score": q.score, "passed": q.passed}
                         for q in db.session.scalars(select(QuizResult))],
        "crowd_links": [{"project": projects[link.project_id].slug, "platform": link.platform, "nonce": link.nonce,
                         "hits": link.hits, "completion_code": link.completion_code,
                         "screen_out_code": link.screen_out_code, "active": link.active} for link in links.values()],
        "crowd_workers": [{"platform": w.platform, "worker_id": w.worker_id, "user": users[w.user_id].username}
                          for w in db.session.scalars(select(CrowdWorker))],
        "crowd_sessions": [{"link": [projects[links[c.link_id].project_id].slug, links[c.link_id].platform],
                            "user": users[c.user_id].username, "session_key": c.session_key, "details": c.details,
                            "started_at": _when(c.started_at), "completed_at": _when(c.completed_at),
                            "screened_out": c.screened_out} for c in db.session.scalars(select(CrowdSession))],
    }
    db.session.remove()
    return {table: sorted(values, key=_sort_key) for table, values in rows.items()}


def _sort_key(row: dict[str, Any]) -> str:
    return json.dumps(row, sort_keys=True, ensure_ascii=False)


def read_manifest(folder: Path) -> dict[str, Any]:
    return json.loads((folder / MANIFEST).read_text(encoding="utf-8"))


def kept_bytes(folder: Path, slug: str, step: str, path: str) -> bytes:
    return (folder / "exports" / slug / step / path).read_bytes()

