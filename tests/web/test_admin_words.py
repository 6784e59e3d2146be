"""The admin's pages say labels in the task's own words (Match / No match / Undecided, For / Against, Less
redundant: alpha), never the stored codes (1 / 0, -1 / 2, True / False, less_redundant); exports and the API keep
the codes (tests/unit/test_label_words.py has every type's words)."""
from __future__ import annotations

import json
import random

import pytest

from annotator.analysis.results import gold_frame
from annotator.engine import assignment as engine
from annotator.tasks import project_task
from tests.conftest import load_project
from tests.type_data import type_data
from tests.web.tables import column, tables


def _voted(task_name: str, make_user, **options):  # type: ignore[no-untyped-def]
    """The type's test project, three annotators answering every item at random (seeded)."""
    data = type_data(task_name)
    project = load_project(data.format, data.path, "p", **{**data.options, "k": 3, **options})
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


@pytest.fixture
def admin_page(app, login, make_user):  # type: ignore[no-untyped-def]
    def page(task_name: str, path: str) -> str:
        _voted(task_name, make_user)
        response = login("boss").get(f"/admin/projects/p{path}")
        assert response.status_code == 200
        return response.get_data(as_text=True)
    return page


def test_key_point_match_gold_reads_match_no_match_undecided(admin_page):
    """The items page's gold label column: the words of the task's rule, not 1 / 0."""
    labels = {cell for table in tables(admin_page("kp_match", "/items/"), "gold") for cell in column(table, "label")}
    assert labels and labels <= {"Match", "No match", "Undecided"}


def test_dawid_skene_says_classes_in_words(admin_page):
    """Both the Dawid-Skene label and the task's gold of a unit are words."""
    [units] = tables(admin_page("kp_match", "/dawid-skene"), "ds-units")
    assert set(column(units, "Dawid-Skene")) <= {"Match", "No match"}
    assert set(column(units, "task's gold")) <= {"Match", "No match", "–"}


def test_set_comparison_says_which_summary_is_less_redundant(admin_page):
    """A pair's answer reads "Less redundant: <system>" or "About equal", under a heading without underscores."""
    html = admin_page("kp_set_compare", "/dawid-skene")
    first = tables(html, "ds-units")[0]
    assert all(cell.startswith("Less redundant: ") or cell == "About equal" for cell in column(first, "Dawid-Skene"))
    assert "<h2>less redundant</h2>" in html and "less_redundant" not in html


def test_stance_and_premise_codes_read_for_against(admin_page):
    """RuArg's -1 / 0 / 1 / 2 are Irrelevant / Against / Other or No argument / For in the gold table."""
    cells = {cell for table in tables(admin_page("stance_premise", "/items/"), "gold")
             for cell in column(table, "stance") + column(table, "premise")}
    assert cells and cells <= {"For", "Against", "Other", "No argument", "Irrelevant", "no agreement"}


def test_adjudication_shows_the_annotators_votes_in_words(app, login, make_user):
    """The admin deciding an item reads what each annotator said as words, one column per claim and label."""
    project = _voted("stance_premise", make_user)
    undecided = project_task(project).undecided(gold_frame(project))
    html = login("boss").get(f"/admin/projects/p/review/{undecided[0]}").get_data(as_text=True)
    votes = next(t for t in tables(html) if t[0][0] == "annotator")
    cells = {cell for row in votes[1:] for cell in row[1:]}
    assert cells <= {"For", "Against", "Other", "No argument", "Irrelevant"} and "Irrelevant" in cells


def test_truth_values_read_yes_or_no(admin_page):
    """The match check's "faulty majority" column: yes / no, not Python's True / False."""
    cells = {cell for table in tables(admin_page("kp_match_check", "/items/"), "gold")
             for cell in column(table, "faulty majority")}
    assert cells and cells <= {"yes", "no"}


def test_agreement_categories_are_listed_in_words(admin_page):
    """The agreement section names each field's categories as the task does."""
    html = admin_page("stance_premise", "/items/")
    assert "categories Irrelevant, Against, Other / no argument, For" in html
    assert "categories -1, 0, 1, 2" not in html


def test_dashboard_distribution_bars_are_labelled_in_words(admin_page):
    """The votes-per-value chart of the match check's verdicts labels its bars as the HIT words them."""
    html = admin_page("kp_match_check", "/dashboard")
    chart = html[html.index("<title>verdict: votes per value</title>"):]
    chart = chart[:chart.index("</svg>")]
    assert 'class="label">Yes, a match</text>' in chart and 'class="label">yes</text>' not in chart


def test_the_dashboard_figures_keep_the_stored_values(app, make_user):
    """`flask dashboard --json` is data: it keeps the codes the exports use."""
    _voted("kp_match", make_user)
    figures = json.loads(app.test_cli_runner().invoke(args=["dashboard", "--project", "p", "--json"]).output)
    assert set(figures["label_distribution"]["match: votes per value"]) == {"0", "1"}
