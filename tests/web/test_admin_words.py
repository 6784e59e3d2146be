"""The admin's pages say labels in the task's own words (chosen / not chosen / Undecided, For / Against, About
equal), never the stored codes (1 / 0, -1 / 2, True / False, less_redundant); exports and the API keep the codes
(tests/unit/test_label_words.py has every type's words). KPA-2021's projects are declared ones (the built-in types
are gone: docs/one-engine.md), whose words are their definitions'."""
from __future__ import annotations

import json
import random
import re
from html import unescape

import pytest

from annotator.core.extensions import db
from annotator.core.models import Project
from annotator.engine import assignment as engine
from annotator.figures.kept_gold import gold_frame
from annotator.tasks import project_task
from tests.conftest import all_rows, load_project, put_back, stored
from tests.support.type_data import MORE_FORMATS, format_data, type_data
from tests.web.tables import column, tables


def _voted(task_name: str, make_user, **options):  # type: ignore[no-untyped-def]
    """The type's (or a format's) test project, three annotators answering every item at random (seeded)."""
    data = format_data(task_name) if task_name in MORE_FORMATS else type_data(task_name)
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


@pytest.fixture(scope="module")
def voted_rows() -> dict[tuple[str, str], dict[str, list[dict]]]:
    """Per engine and type: every row `_voted` stored, as the first test of this process to need it left them."""
    return {}


@pytest.fixture
def voted(app, make_user, voted_rows):  # type: ignore[no-untyped-def]
    """`voted(task_name)`: the type's voted project "p" in the test's (empty) database, as `_voted` makes it.

    Each type's project is voted once per engine and process; later tests get its rows put back as they were, ids
    included (the answers are seeded, so voting again would store the same): these tests only read the pages.
    """
    def vote(task_name: str) -> Project:
        key = (db.engine.dialect.name, task_name)
        if key in voted_rows:
            put_back(voted_rows[key])
        else:
            _voted(task_name, make_user)
            voted_rows[key] = all_rows()
        return stored(Project, slug="p")
    return vote


@pytest.fixture
def admin_page(app, login, voted):  # type: ignore[no-untyped-def]
    def page(task_name: str, path: str) -> str:
        voted(task_name)
        response = login("boss").get(f"/admin/projects/p{path}")
        assert response.status_code == 200
        return response.get_data(as_text=True)
    return page


def test_key_point_match_gold_reads_chosen_not_chosen_undecided(admin_page):
    """The items page's gold column: the words of the definition's rule, not 1 / 0."""
    labels = {cell for table in tables(admin_page("kpa2021", "/items/"), "gold") for cell in column(table, "gold")}
    assert labels and labels <= {"chosen", "not chosen", "Undecided"}


def test_dawid_skene_says_classes_in_words(admin_page):
    """Both the Dawid-Skene label and the task's gold of a unit are words."""
    [units] = tables(admin_page("kpa2021", "/dawid-skene"), "ds-units")
    assert set(column(units, "Dawid-Skene")) <= {"chosen", "not chosen"}
    assert set(column(units, "task's gold")) <= {"chosen", "not chosen", "Undecided", "–"}


def test_set_comparison_says_which_summary_is_less_redundant(admin_page):
    """A pair's answer reads A, B (the item's first and second system, as the definition stores them) or "About
    equal", under a heading without underscores; a set's stance in the definition's words."""
    html = admin_page("kpa2021-compare", "/dawid-skene")
    by_heading = dict(zip(re.findall(r"<h2>([^<]*)</h2>", html), tables(html, "ds-units")))
    assert set(column(by_heading["less redundant"], "Dawid-Skene")) <= {"A", "B", "About equal"}
    assert set(column(by_heading["stance"], "Dawid-Skene")) <= {
        "All key points support the topic", "All key points contest the topic", "Most support it, some contest it",
        "Most contest it, some support it"}
    assert "less_redundant" not in html


RUARG_WORDS = {"for", "against", "other", "no argument", "Relevant", "Not relevant", "Not asked", "Undecided"}


def test_stance_and_premise_codes_read_for_against(admin_page):
    """RuArg's 2 / 0 / 1 are for / against / other or no argument in the gold table (the definition's words: its
    projects are declared ones since the built-in type went), an irrelevant claim's labels "Not asked"."""
    cells = {cell for table in tables(admin_page("ruarg2022", "/items/"), "gold") for cell in column(table, "gold")}
    assert cells and cells <= RUARG_WORDS and cells & {"for", "against", "other", "no argument"}


def test_adjudication_shows_the_annotators_votes_in_words(app, login, voted):
    """The admin deciding an item reads what each annotator said as words, one column per claim and label."""
    project = voted("ruarg2022")
    undecided = project_task(project).undecided(gold_frame(project))
    html = login("boss").get(f"/admin/projects/p/review/{undecided[0]}").get_data(as_text=True)
    votes = next(t for t in tables(html) if t[0][0] == "annotator")
    cells = {cell for row in votes[1:] for cell in row[1:]}
    assert cells <= RUARG_WORDS and "Not relevant" in cells and cells & {"for", "against", "other", "no argument"}


def test_truth_values_read_yes_or_no(admin_page):
    """The match check's "faulty majority" column (a further decision, "1" / "0"): yes / no."""
    cells = {cell for table in tables(admin_page("kpa2021-check", "/items/"), "gold")
             for cell in column(table, "faulty majority")}
    assert cells and cells <= {"yes", "no"}


def test_agreement_categories_are_listed_in_words(admin_page):
    """The agreement section names each field's categories as the task does."""
    html = admin_page("ruarg2022", "/items/")
    assert "categories against, other, for, irrelevant" in html                      # a claim's stance
    assert "categories against, other / no argument, for, irrelevant" in html       # all labels pooled
    assert "categories 0, 1, 2" not in html and "categories -1, 0, 1, 2" not in html


def test_dashboard_distribution_bars_are_labelled_in_words(admin_page):
    """The votes-per-value chart of the match check's verdicts labels its bars as the HIT words them (shortened)."""
    html = admin_page("kpa2021-check", "/dashboard")
    chart = html[html.index("<title>verdict: votes per value</title>"):]
    chart = chart[:chart.index("</svg>")]
    assert 'class="chart-label">Yes, the key po…</text>' in chart and 'class="chart-label">yes</text>' not in chart


def test_the_dashboard_figures_keep_the_stored_values(app, voted):
    """`flask dashboard --json` is data: it keeps the codes the exports use."""
    voted("kpa2021")
    figures = json.loads(app.test_cli_runner().invoke(args=["dashboard", "--project", "p", "--json"]).output)
    assert set(figures["label_distribution"]["matches: votes per value"]) == {"0", "1"}


# What a unit or an item is about, in words: key points by their text (their id on hover and for a screen reader),
# a span's words with their positions, adjudication links by the item's text; codes only on hover.

CODED = re.compile(r'<span class="coded" title="([^"]*)"><span aria-hidden="true">([^<]*)</span>'
                   r'<span class="visually-hidden">([^<]*)</span></span>')


def _shown_text(html: str) -> str:
    """What a sighted reader sees: the page's text without its tooltips and visually hidden words."""
    html = re.sub(r'(?s)<head>.*?</head>|<span class="visually-hidden">[^<]*</span>', " ", html)
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", html)).split())


def _key_points(project) -> dict[str, str]:  # type: ignore[no-untyped-def]
    return {kp["id"]: kp["text"] for item in project.items for kp in item.payload["key_points"]}


def test_the_items_page_says_each_key_point_by_its_text_with_its_id_on_hover(app, login, voted):
    project = voted("kpa2021")
    key_points = _key_points(stored(Project, id=project.id))
    html = login("boss").get("/admin/projects/p/items/").get_data(as_text=True)
    coded = [tuple(unescape(part) for part in found) for found in CODED.findall(html)]
    assert len(coded) > 20
    for title, shown, hidden in coded:
        kp = re.fullmatch(r"(.*) \((kp_\d+_\d+)\)", title)
        assert kp and key_points[kp.group(2)] == kp.group(1) and hidden == title
        assert kp.group(1).startswith(shown.rstrip("…").rstrip()) and len(shown) <= 60
    assert not re.search(r"\bkp_\d+_\d+\b", _shown_text(html))


def test_a_declared_span_gold_says_each_word_with_its_position(app, login, voted):
    project = voted("custom")
    words = {i.external_id: i.payload["text"].split() for i in stored(Project, id=project.id).items}
    html = login("boss").get("/admin/projects/p/items/").get_data(as_text=True)
    said = 0
    for table in html.split('aria-label="Gold of ')[1:]:
        item = unescape(table[:table.index('"')])
        for _, shown, _ in CODED.findall(table[:table.index("</table>")]):
            if "(position " not in shown:
                continue  # the pairwise question's pair
            word, position = re.fullmatch(r"(.+) \(position (\d+)\)", unescape(shown)).groups()
            assert words[item][int(position)] == word
            said += 1
    assert said > 0


def test_the_adjudication_list_links_each_item_by_its_text(app, login, voted):
    project = voted("ruarg2022")
    texts = {i.external_id: i.payload["text"] for i in stored(Project, id=project.id).items}
    html = login("boss").get("/admin/projects/p/review/").get_data(as_text=True)
    links = re.findall(r'<a href="/admin/projects/p/review/([^"]+)">' + CODED.pattern + "</a>", html)
    assert links
    for external_id, title, shown, hidden in links:
        text = texts[external_id]
        assert unescape(title) == unescape(hidden) == f"{text} ({external_id})"
        assert text.startswith(unescape(shown).rstrip("…").rstrip()) and len(unescape(shown)) <= 80
