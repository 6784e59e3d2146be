"""The dashboard and the Dawid-Skene page work for every registered HIT type (its sample data in
tests/support/type_data.py, three annotators answering at random), so neither depends on one type's fields."""
from __future__ import annotations

import json
import random
import xml.etree.ElementTree as ET

import pytest

from annotator.engine import assignment as engine
from annotator.tasks import TASK_TYPES, project_task
from tests.conftest import load_project
from tests.support.type_data import type_data


@pytest.fixture(params=sorted(TASK_TYPES))
def voted(request, app, make_user):  # type: ignore[no-untyped-def]
    data = type_data(request.param)
    project = load_project(data.format, data.path, "p", **{**data.options, "k": 3})
    task = project_task(project)
    settings = task.settings_of(project)
    rng = random.Random(1)
    for name in ("a", "b", "c"):
        user = make_user(name)
        while (lease := engine.next_for(user, project)) is not None:
            shown = task.public_item(lease.item, settings, lease.presentation)
            engine.submit(lease.id, user, task.example_answer(shown, rng))
    make_user("boss", role="admin")
    return project


def test_dashboard_and_dawid_skene_pages_and_figures(app, login, voted):
    """One test per type: setting up the votes is what takes the time."""
    client = login("boss")
    response = client.get("/admin/projects/p/dashboard")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    for part in html.split("<svg")[1:]:
        ET.fromstring("<svg" + part[:part.index("</svg>") + 6])
    figures = json.loads(app.test_cli_runner().invoke(args=["dashboard", "--project", "p", "--json"]).output)
    assert sum(v["votes"] for v in figures["votes_per_annotator"]) == figures["progress"]["points"][-1]["cumulative"]
    assert client.get("/admin/projects/p/dawid-skene").status_code == 200
    result = app.test_cli_runner().invoke(args=["aggregate", "--project", "p", "--json"])
    assert result.exit_code == 0, result.output
    for field in json.loads(result.output)["fields"]:
        assert all(abs(sum(u["posterior"].values()) - 1) < 1e-5 for u in field["units"])
