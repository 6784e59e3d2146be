"""A declared project with further decisions (`gold.also`, examples/further_decisions.yaml): votes through the
engine, the decisions read back in a fresh session as gold columns, in every export of the gold and on the admin's
project page; the HIT and agreement are the question's own."""
from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest

from annotator.analysis.results import project_agreement
from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.engine import assignment as engine
from annotator.figures.kept_gold import gold_frame
from tests.support.declared_projects import make_declared_project, read_jsonl

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
DEFINITION = EXAMPLES / "further_decisions.yaml"
ITEMS = read_jsonl(EXAMPLES / "further_decisions_items.jsonl")
# Three judges per comment: c1 plainly fine, c2 offensive to two of three, c3 unclear to two of three.
VOTES = {"c1": ["no", "no", "no"], "c2": ["yes", "yes", "no"], "c3": ["unsure", "unsure", "yes"]}
EXPECTED = {"c1": ("no", "0", "0"), "c2": ("yes", "0", "1"), "c3": ("unsure", "1", "0")}   # gold, unclear, flagged


@pytest.fixture
def comments(app: Any, make_user: Any) -> Project:
    project = make_declared_project("comments", DEFINITION, items=ITEMS)
    for n in range(3):
        user = make_user(f"judge{n}")
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, {"offensive": VOTES[lease.item.external_id][n]})
    db.session.remove()
    return db.session.get_one(Project, project.id)


def test_the_decisions_are_gold_columns_read_back_in_a_fresh_session(comments):
    gold = gold_frame(comments)
    assert {row.item: (row.gold, row.unclear, row.flagged) for row in gold.itertuples()} == EXPECTED


def test_flask_export_writes_the_decisions_in_gold_csv_and_gold_jsonl(app, comments, tmp_path):
    out = tmp_path / "out"
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", "comments", "--out", str(out)])
    assert result.exit_code == 0, result.output
    rows = list(csv.DictReader(io.StringIO((out / "gold.csv").read_text(encoding="utf-8"))))
    assert list(rows[0]) == ["item", "question", "unit", "gold", "n", "score", "votes", "flagged", "unclear"]
    assert {r["item"]: (r["gold"], r["unclear"], r["flagged"]) for r in rows} == EXPECTED
    lines = [json.loads(line) for line in (out / "gold.jsonl").read_text(encoding="utf-8").splitlines()]
    assert {r["item"]: (r["gold"], r["unclear"], r["flagged"]) for r in lines} == EXPECTED


def test_the_dataset_s_gold_table_types_and_explains_each_decision(app, comments, tmp_path):
    out = tmp_path / "out"
    assert app.test_cli_runner().invoke(args=["export", "custom", "--project", "comments",
                                              "--out", str(out)]).exit_code == 0
    table = pq.read_table(out / "dataset" / "gold.parquet")
    assert str(table.schema.field("unclear").type) == "string"
    assert {r["item"]: (r["gold"], r["unclear"], r["flagged"]) for r in table.to_pylist()} == EXPECTED
    card = (out / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "1 when more than half of the annotators answered 'unsure', else 0" in card
    assert "1 when at least 2 annotators answered 'yes', else 0" in card


def test_the_project_page_counts_each_decision_s_outcomes(comments, login, make_user):
    make_user("boss", role="admin")
    page = login("boss").get(f"/admin/projects/{comments.slug}").get_data(as_text=True)
    assert "unclear: 1" in page and "flagged: 1" in page


def test_the_decisions_add_no_agreement_figure(comments):
    assert [figure.field for figure in project_agreement(comments)] == ["offensive"]


def test_the_items_page_shows_each_decision_beside_the_gold(comments, login, make_user):
    make_user("boss", role="admin")
    page = login("boss").get(f"/admin/projects/{comments.slug}/items/").get_data(as_text=True)
    table = page[page.index('aria-label="Gold of c3"'):]
    table = table[:table.index("</table>")]
    headers = re.findall(r"<th[^>]*>([^<]*)</th>", table)
    cells = re.findall(r"<td[^>]*>([^<]*)</td>", table)
    # a decision's "1" / "0" read yes / no on the page, as a truth value is everywhere (the exports keep the codes)
    said = dict(zip(headers[1:], cells[1:]))
    assert said["unclear"] == "yes" and said["flagged"] == "no"
