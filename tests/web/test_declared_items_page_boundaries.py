"""The admin's items page of any declared project with a span question with boundaries (templates/admin/items/
custom.html, declared/item_page.py): the question is drawn as its text, each word with the share of annotators who
selected it as a heat bar and its B / I / O counts, then the votes as one row of tags per annotator; the other
questions keep the generic gold table; a definition without boundaries keeps the generic table alone."""
from __future__ import annotations

import re

import pytest

from annotator.core.extensions import db
from tests.support.declared_projects import make_declared_project
from tests.support.voting import vote_everywhere

DEFINITION = """
name: Cards
show: [{field: text, label: Text}]
questions:
  - {id: phrases, kind: span, of: text, boundaries: true, gold: probability, prompt: "Which phrases stand out?"}
  - {id: tone, kind: choice, options: [{value: warm, label: Warm}, {value: cold, label: Cold}], prompt: "Its tone?"}
"""
ITEMS = [{"id": "c1", "text": "risks over samenesses"}]
# Three annotators: [risks over] one span; [risks] [over] two spans; [samenesses].
VOTES = {"ann1": ["B", "I", "O"], "ann2": ["B", "B", "O"], "ann3": ["O", "O", "B"]}
TONES = {"ann1": "warm", "ann2": "warm", "ann3": "cold"}


@pytest.fixture
def voted(app, make_user):  # type: ignore[no-untyped-def]
    project = make_declared_project("cards", DEFINITION, items=ITEMS, k=3)
    users = {name: make_user(name) for name in VOTES}
    vote_everywhere(project, list(users.values()),
                    lambda item, user: {"phrases": VOTES[user.username], "tone": TONES[user.username]})
    db.session.commit()
    return project


@pytest.fixture
def page(voted, login, make_user):  # type: ignore[no-untyped-def]
    make_user("boss", role="admin")
    return login("boss").get("/admin/projects/cards/items/").get_data(as_text=True)


def test_each_word_has_the_share_that_selected_it_as_a_heat_bar_and_its_tag_counts(page):
    for position, word in enumerate(["risks", "over", "samenesses"]):
        tags = [VOTES[name][position] for name in VOTES]
        share = sum(tag != "O" for tag in tags) / len(tags)
        title = f"{position}: B {tags.count('B')} · I {tags.count('I')} · O {tags.count('O')} of 3"
        assert re.search(rf'class="heat-word heat-{round(share * 10)}"\s+title="{title}">\s*'
                         rf'<span class="w">{word}</span>\s*<meter min="0" max="1" value="{share}">', page), word


def test_the_votes_are_one_row_of_tags_per_annotator(page):
    bio = page[page.index('<table class="bio">'):]
    rows = re.findall(r"<tr><td>(ann\d)</td>(.*?)</tr>", bio[:bio.index("</table>")])
    assert {name: re.findall(r'<td class="tag-[BIO]">([BIO])</td>', cells) for name, cells in rows} == VOTES


def test_the_other_question_keeps_the_generic_gold_table(page):
    assert '<table class="gold">' in page and "<td>tone</td>" in page
    assert "<td>phrases</td>" not in page   # the span's words are drawn above, not repeated as table rows
    assert "Which phrases stand out?" in page   # each drawn part is named when the item has more than one


def test_a_span_without_boundaries_keeps_the_generic_table(app, login, make_user):
    plain = DEFINITION.replace(", boundaries: true", "")
    project = make_declared_project("plain", plain, items=ITEMS, k=1)
    vote_everywhere(project, [make_user("ann1")], lambda item, user: {"phrases": [0], "tone": "warm"})
    db.session.commit()
    make_user("boss", role="admin")
    html = login("boss").get("/admin/projects/plain/items/").get_data(as_text=True)
    assert 'class="heat"' not in html and "<td>phrases</td>" in html and "<td>tone</td>" in html
