"""The fifteen campaigns of docs/from-other-tools.md, each an example definition with its items: imported by the
command an organiser types, answered by three annotators through the JSON API (answers drawn per question kind,
seeded), exported. The table is read from the page itself, so the page and this test cannot drift apart."""
from __future__ import annotations

import csv
import io
import random
import re
from pathlib import Path

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.tasks import project_task
from tests.conftest import DATA

ROOT = DATA.parents[1]
PAGE = ROOT / "docs" / "from-other-tools.md"
ROW = re.compile(r"^\| (\d+) \| (.+?) \| .+? \| `([\w.]+\.yaml)` \| `([\w.]+\.jsonl)` \|$", re.M)
ROWS = ROW.findall(PAGE.read_text(encoding="utf-8"))


def test_the_page_lists_fifteen_campaigns_each_with_an_example_and_its_items():
    assert [int(number) for number, *_ in ROWS] == list(range(1, 16))
    for _, _, definition, items in ROWS:
        assert (ROOT / "examples" / definition).is_file() and (ROOT / "examples" / items).is_file()


@pytest.mark.parametrize(("definition", "items"), [(d, i) for _, _, d, i in ROWS],
                         ids=[d.removesuffix(".yaml") for _, _, d, _ in ROWS])
def test_the_campaign_imports_takes_every_annotators_answers_and_exports_them(app, api_client, tmp_path,
                                                                              definition, items):
    runner = app.test_cli_runner()
    result = runner.invoke(args=["import", "custom", str(ROOT / "examples" / items), "--definition",
                                 str(ROOT / "examples" / definition), "--project", "p", "--k", "3"])
    assert result.exit_code == 0, result.output
    project = db.session.scalar(select(Project).where(Project.slug == "p"))
    task = project_task(project)
    votes = 0
    for name in ("ann1", "ann2", "ann3"):
        client, rng = api_client(name), random.Random(f"{definition}/{name}")
        while (given := client.post("/api/v1/projects/p/next")).status_code == 200:
            assignment = given.get_json()["assignment"]
            answer = task.example_answer(assignment["item"], rng)
            sent = client.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": answer})
            assert sent.status_code == 201, (answer, sent.get_json())
            votes += 1
        assert given.status_code == 204
    db.session.remove()
    project = db.session.scalar(select(Project).where(Project.slug == "p"))
    # every ordinary item took k votes; a control item (an item with a known answer) is shown besides, at its rate
    assert {item.external_id: item.done_count for item in project.items if not item.is_control} == \
        {item.external_id: project.k for item in project.items if not item.is_control}
    out = tmp_path / "out"
    result = runner.invoke(args=["export", "custom", "--project", "p", "--out", str(out)])
    assert result.exit_code == 0, result.output
    exported = list(csv.DictReader(io.StringIO((out / "votes.csv").read_text(encoding="utf-8"))))
    ordinary = {item.external_id for item in project.items if not item.is_control}
    assert len(exported) == project.k * len(ordinary) and {row["item"] for row in exported} == ordinary
    assert votes >= len(exported)   # the control items' votes are not exported as data
    gold = list(csv.DictReader(io.StringIO((out / "gold.csv").read_text(encoding="utf-8"))))
    asked = {question.id for question in task.definition.questions if question.kind != "text"}
    assert asked <= {row["question"] for row in gold}
    assert Path(out / "dataset" / "README.md").is_file()
