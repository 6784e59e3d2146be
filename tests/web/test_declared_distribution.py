"""A distribution question through the Flask test client, on the soft-label example
(examples/soft_labels_sentiment.yaml: 100 points shared among three sentiments, then 10 points among two meanings
shown only when the review is said to be sarcastic): the HIT page draws a number input per option, a posted form
stores the shares (read back in a fresh session) and a refused one names the problem beside the question and keeps
what was typed, the JSON API takes the same answer and refuses a wrong one with a 422 naming what is wrong, and the
admin's pages of a voted project open."""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Assignment, Label
from annotator.declared.definition_reader import definition_from_file
from annotator.tasks.custom import DeclaredTask
from annotator.web.hit_preview import render_preview
from tests.support.declared_projects import make_declared_project, read_jsonl
from tests.web.conftest import csrf_token, open_form, submitted_by

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SHARES = {"positive": 70, "neutral": 10, "negative": 20}


@pytest.fixture
def soft(app):  # type: ignore[no-untyped-def]
    return make_declared_project("soft", EXAMPLES / "soft_labels_sentiment.yaml",
                                 items=read_jsonl(EXAMPLES / "soft_labels_sentiment_items.jsonl"))


def _labels(assignment: Assignment) -> dict[tuple[str, str], str]:
    return {(label.field, label.unit): label.value for label in db.session.scalars(
        select(Label).where(Label.assignment_id == assignment.id))}


def _form(html: str, shares: dict[str, str], **more: str) -> dict[str, str]:
    """The posted form: the numbers typed for the first question (q_sentiment__0 is positive)."""
    return {"csrf_token": csrf_token(html), **{f"q_sentiment__{n}": shares.get(option, "")
                                               for n, option in enumerate(("positive", "neutral", "negative"))},
            **more}


def test_the_page_draws_a_labelled_number_input_per_option(login, make_user, soft):
    make_user("ann")
    html, _ = open_form(login("ann"), "soft")
    inputs = re.findall(r'<input autocomplete="off" class="share-input" data-label="(\w+)" data-option="(\w+)" '
                        r'id="(q_sentiment__\d)" inputmode="numeric" max="100" min="0" name="q_sentiment__\d" '
                        r'step="1" type="number" value="">', html)
    assert inputs == [("Positive", "positive", "q_sentiment__0"), ("Neutral", "neutral", "q_sentiment__1"),
                      ("Negative", "negative", "q_sentiment__2")]
    assert '<label for="q_sentiment__2">Negative</label>' in html
    assert "Share 100 among the options: a whole number each, 0 for none, adding up to 100." in html
    assert 'aria-live="polite" data-sum-of="sentiment"' in html
    assert "js/declared_distribution.js" in html and html.index("js/declared_distribution.js") < \
        html.index("js/custom.js")
    assert '<span class="muted">the product is good</span>' in html   # an option's description beside it


def test_a_posted_form_stores_the_shares_and_a_row_per_option(login, make_user, soft):
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "soft")
    response = client.post(action, data=_form(html, {"positive": "70", "neutral": "10", "negative": "20"},
                                              q_sarcastic="no"))
    assert response.status_code == 302
    [assignment] = submitted_by("ann")
    assert assignment.answer == {"sentiment": SHARES, "sarcastic": "no"}
    rows = _labels(assignment)
    assert (rows["sentiment", "positive"], rows["sentiment", "neutral"], rows["sentiment", "negative"]) == \
        ("70", "10", "20")
    assert not any(field == "meant" for field, _ in rows)


def test_an_empty_input_beside_filled_ones_is_a_share_of_0(login, make_user, soft):
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "soft")
    assert client.post(action, data=_form(html, {"positive": "100"}, q_sarcastic="yes", q_meant__0="3",
                                          q_meant__1="7")).status_code == 302
    [assignment] = submitted_by("ann")
    assert assignment.answer["sentiment"] == {"positive": 100, "neutral": 0, "negative": 0}
    assert assignment.answer["meant"] == {"praise": 3, "complaint": 7}
    assert _labels(assignment)["meant", "complaint"] == "7"


@pytest.mark.parametrize("shares, said", [
    ({"positive": "70", "neutral": "10", "negative": "10"}, "The shares add up to 90, not 100: add 10."),
    ({"positive": "70", "neutral": "40"}, "The shares add up to 110, not 100: take away 10."),
    ({"positive": "100", "neutral": "-10", "negative": "10"}, "Neutral has -10; a share cannot be below 0."),
    ({"positive": "110", "neutral": "-10"}, "Positive has 110; a share is at most 100."),
    ({"positive": "seventy"}, "'seventy' is not a whole number (Positive)."),
    ({"positive": "50.5", "neutral": "49.5"}, "'50.5' is not a whole number (Positive)."),
    ({"positive": "--5"}, "'--5' is not a whole number (Positive)."),
    ({"positive": "9" * 5000}, "'9999999999' is not a whole number (Positive)."),
    ({}, "Please answer this question."),
])
def test_a_refused_form_names_the_problem_beside_the_question_and_stores_nothing(login, make_user, soft, shares,
                                                                                 said):
    make_user("ann")
    client = login("ann")
    html, action = open_form(client, "soft")
    response = client.post(action, data=_form(html, shares, q_sarcastic="no"))
    page = response.get_data(as_text=True)
    assert response.status_code == 400
    assert f'<p class="error" role="alert" id="dq-sentiment-error">{said}</p>' in page.replace("&#39;", "'")
    for n, option in enumerate(("positive", "neutral", "negative")):   # what was typed is kept
        assert re.search(rf'id="q_sentiment__{n}"[^>]* value="{re.escape(shares.get(option, ""))}"', page)
    assert submitted_by("ann") == []


def test_the_api_describes_the_question_and_stores_an_answer(api_client, soft):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/soft/next").get_json()["assignment"]
    sentiment = assignment["questions"][0]
    assert sentiment["kind"] == "distribution" and sentiment["total"] == 100
    assert sentiment["options"][1] == {"value": "neutral", "label": "Neutral"}
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"sentiment": SHARES, "sarcastic": "no"}})
    assert response.status_code == 201, response.get_json()
    [kept] = submitted_by("bot")
    assert kept.answer == {"sentiment": SHARES, "sarcastic": "no"}
    assert _labels(kept)["sentiment", "negative"] == "20"


@pytest.mark.parametrize("answer, said", [
    ({"sentiment": {"positive": 70, "neutral": 30}, "sarcastic": "no"},
     "sentiment: 'negative' has no share; give every option one (0 for none)"),
    ({"sentiment": {"positive": 80, "neutral": 30, "negative": -10}, "sarcastic": "no"},
     "sentiment: the share of 'negative' is negative (-10); a share is 0 to 100"),
    ({"sentiment": {"positive": 70, "neutral": 10, "negative": 10}, "sarcastic": "no"},
     "sentiment: the shares add up to 90, not 100 (add 10)"),
    ({"sentiment": {**SHARES, "mixed": 0}, "sarcastic": "no"},
     "sentiment: 'mixed' is not an option (options: 'positive', 'neutral', 'negative')"),
    ({"sentiment": [70, 10, 20], "sarcastic": "no"}, "sentiment: must be an object {option: share}"),
    ({"sentiment": SHARES, "sarcastic": "no", "meant": {"praise": 5, "complaint": 5}},
     "meant: not asked for this answer (it is shown only when sarcastic is 'yes'); leave it out"),
    ({"sentiment": SHARES, "sarcastic": "yes", "meant": {"praise": 5, "complaint": 6}},
     "meant: the shares add up to 11, not 10 (take away 1)"),
    ({"sentiment": SHARES, "sarcastic": "yes", "meant": {"praise": 50, "complaint": 50}},
     "meant: the share of 'praise' is more than the total, 10"),
])
def test_the_api_refuses_a_wrong_distribution_with_a_422_naming_it(api_client, soft, answer, said):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/soft/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": answer})
    assert response.status_code == 422
    assert said in response.get_json()["error"]
    assert submitted_by("bot") == []


def _three_votes_on_one_item(api_client) -> None:  # type: ignore[no-untyped-def]
    """The example's first review, voted 70/10/20, 40/40/20 and 40/40/20 through the API."""
    make_declared_project("soft", EXAMPLES / "soft_labels_sentiment.yaml",
                          items=read_jsonl(EXAMPLES / "soft_labels_sentiment_items.jsonl")[:1])
    given = [SHARES, {"positive": 40, "neutral": 40, "negative": 20}, {"positive": 40, "neutral": 40, "negative": 20}]
    for n, shares in enumerate(given):
        api = api_client(f"a{n}")
        assignment = api.post("/api/v1/projects/soft/next").get_json()["assignment"]
        assert api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"sentiment": shares, "sarcastic": "no"}}).status_code == 201


def test_the_data_card_and_the_agreement_command_give_the_distributions_distance(app, api_client, tmp_path):
    _three_votes_on_one_item(api_client)
    runner = app.test_cli_runner()
    result = runner.invoke(args=["export", "custom", "--project", "soft", "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.output
    card = (tmp_path / "out" / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "- sentiment: the distributions of two annotators of an item are 0.200 of the total apart" in card
    said = runner.invoke(args=["agreement", "--project", "soft"]).output
    assert "  Distributions' distance 0.200 of the total apart" in said


@pytest.mark.parametrize("path", ["", "/dashboard", "/stats", "/items/?order=position", "/dawid-skene"])
def test_the_admins_pages_of_a_voted_distribution_project_open(login, make_user, api_client, app, path):
    """Gold (the mean shares 50 / 30 / 20 and the hard label positive), its summary, agreement and the items' gold
    in words are computed for a distribution: one item, three votes."""
    _three_votes_on_one_item(api_client)
    make_user("boss", role="admin")
    page = login("boss").get(f"/admin/projects/soft{path}")
    html = page.get_data(as_text=True)
    assert page.status_code == 200, html[:1000]
    if path == "":
        assert "<dt>sentiment: positive</dt><dd>1</dd>" in html
        assert "<dt>Krippendorff's alpha (interval)</dt><dd>0.385 over 3 units" in html
        # the distance by hand: 70/10/20 is 30 points from each 40/40/20, which are the same: (30 + 30 + 0) / 3
        assert ("<dt>Inputs</dt><dd>3 units (an item's option each), 3 annotators, 9 ratings; each a share of 100"
                "</dd>") in html
        assert ("<dt>Distributions' distance</dt><dd>0.200 of the total apart (total variation distance: 0 the same "
                "distribution, 1 disjoint; 20.0 of 100 points on other options), mean over 1 item, 3 pairs of "
                "annotators</dd>") in html
    if path == "/items/?order=position":
        assert "Positive 70, Neutral 10, Negative 20 (of 100)" in html   # a vote's answer in words
        assert "the option with the largest mean share" in html


def test_the_admins_preview_draws_the_inputs_and_stores_nothing(app):
    definition = definition_from_file(EXAMPLES / "soft_labels_sentiment.yaml")
    payload = read_jsonl(EXAMPLES / "soft_labels_sentiment_items.jsonl")[0]
    with app.test_request_context("/admin/projects/declared/new", method="POST"):
        html = render_preview(DeclaredTask(definition), definition, payload)
    assert 'id="preview-note"' in html and 'data-distribution-of="sentiment"' in html
    assert 'data-distribution-of="meant" data-total="10"' in html
    assert db.session.scalars(select(Assignment)).first() is None
