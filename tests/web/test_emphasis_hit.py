"""The emphasis HIT through the Flask test client and the JSON API: what is shown, what is stored, what is refused.

An emphasis project is a declared project of selection.yaml (docs/one-engine.md): the HIT is the declared span
question with boundaries (field `q_emphasis`, the JSON list of tags kept by declared_boundaries.js), its answer
`{"emphasis": [tags]}`, its rows per word `emphasis` (selected or not) and `emphasis.bio` (the tag). The API takes
today's `{"tags": [...]}` too (the bridge), refused with today's messages."""
from __future__ import annotations

import json
import re

import pytest
from sqlalchemy import func, select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Label
from tests.conftest import DATA, PASSWORD, load_project
from tests.web.conftest import csrf_token, open_hit_page

# dev_excerpt.txt: Q_0 (12 words, "Life is defined more by its risks than by its samenesses ."), S_1, S_78.
Q_0_WORDS = ["Life", "is", "defined", "more", "by", "its", "risks", "than", "by", "its", "samenesses", "."]


@pytest.fixture
def emphasis_project(app):  # type: ignore[no-untyped-def]
    """The dev excerpt as project `emph` (no votes), k=3, so Q_0 is every annotator's first HIT."""
    project = load_project("emphasis2020", DATA / "emphasis2020" / "dev_excerpt.txt", "emph", k=3, declared=True)
    db.session.commit()
    return project


def _open_hit(client) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    page = open_hit_page(client, "emph")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    return html, re.search(r'action="(/p/emph/a/\d+)"', html).group(1)


def _post(client, tags) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    html, action = _open_hit(client)
    value = tags if isinstance(tags, str) else json.dumps(tags)
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_emphasis": value})
    return response.status_code, response.get_data(as_text=True)


def _tags(*spans: tuple[int, int], n: int = len(Q_0_WORDS)) -> list[str]:
    """B/I/O for spans given as (first word, last word)."""
    tags = ["O"] * n
    for first, last in spans:
        tags[first] = "B"
        tags[first + 1:last + 1] = ["I"] * (last - first)
    return tags


# --- the page ----------------------------------------------------------------------------------------

def test_every_word_is_a_toggle_button_in_text_order(login, make_user, emphasis_project):
    make_user("ann")
    html, _ = _open_hit(login("ann"))
    words = re.findall(r'<button type="button" class="word" data-index="(\d+)" aria-pressed="false"\s+'
                       r'tabindex="-?\d">([^<]*)</button>', html)
    assert words == [(str(n), w) for n, w in enumerate(Q_0_WORDS)]
    assert html.count('class="gap"') == len(Q_0_WORDS) - 1


def test_the_page_carries_the_tags_field_and_its_script_but_no_pos_tags(login, make_user, emphasis_project):
    make_user("ann")
    html, _ = _open_hit(login("ann"))
    assert 'id="q_emphasis" name="q_emphasis" type="hidden"' in html and "js/declared_boundaries.js" in html
    assert not any(pos in html for pos in ("NNP", "VBZ", "VBN", "PRP$"))  # Q_0's POS tags
    assert "<script>" not in html and "style=" not in html  # CSP: no inline script or style


# --- submitting --------------------------------------------------------------------------------------

def test_a_selection_is_stored_as_the_answer_and_one_label_per_word(login, make_user, emphasis_project):
    make_user("ann")
    client = login("ann")
    answer = _tags((0, 0), (2, 3), (6, 6))
    status, _ = _post(client, answer)
    assert status == 302
    db.session.remove()   # read back what the request committed
    assert db.session.scalar(select(Assignment.answer).where(Assignment.status == SUBMITTED)) == {"emphasis": answer}
    tags = db.session.execute(select(Label.unit, Label.value).where(Label.field == "emphasis.bio")
                              .order_by(Label.id)).all()
    assert tags == [(f"Q_0_{n}", tag) for n, tag in enumerate(answer)]
    selected = db.session.execute(select(Label.unit, Label.value).where(Label.field == "emphasis")
                                  .order_by(Label.id)).all()
    assert selected == [(f"Q_0_{n}", "0" if tag == "O" else "1") for n, tag in enumerate(answer)]
    assert "1 / 3 done" in client.get("/p/emph/").get_data(as_text=True)


def test_two_adjacent_spans_stay_two_spans(login, make_user, emphasis_project):
    make_user("ann")
    answer = ["B", "I", "B"] + ["O"] * 9
    assert _post(login("ann"), answer)[0] == 302
    assert db.session.scalar(select(Assignment.answer).where(Assignment.status == "submitted")) == \
        {"emphasis": answer}


def test_nothing_selected_is_accepted_as_an_all_o_vote(login, make_user, emphasis_project):
    make_user("ann")
    assert _post(login("ann"), ["O"] * 12)[0] == 302
    assert db.session.scalar(select(func.count()).select_from(Label).where(Label.field == "emphasis.bio",
                                                                           Label.value == "O")) == 12


@pytest.mark.parametrize("tags, message", [
    (["I"] + ["O"] * 11, "Word 1 is &#34;I&#34; but no span is open"),
    (["B", "O", "I"] + ["O"] * 9, "Word 3 is &#34;I&#34; but no span is open"),
    (["B"] * 11, "Has 11 tags but the text has 12 words"),
    (["X"] * 12, "Tag &#39;X&#39; of word 1 is not"),
    ("", "The selection did not arrive"),
    ("[B, I]", "The selection did not arrive"),
    ("[" * 100_000 + "]" * 100_000, "The selection did not arrive"),   # bounded as the API's JSON: not a 500
    ("[" + "7" * 5000 + "]", "The selection did not arrive"),
])
def test_an_invalid_selection_is_refused_with_the_reason_and_nothing_is_stored(
        login, make_user, emphasis_project, tags, message):  # type: ignore[no-untyped-def]
    make_user("ann")
    status, html = _post(login("ann"), tags)
    assert status == 400
    assert re.search(r'<p class="error" role="alert" id="dq-emphasis-error">([^<]*)</p>', html).group(1) \
        .startswith(message)   # said where the words are, once
    db.session.remove()
    assert db.session.scalar(select(Assignment.status)) == "leased"
    assert db.session.scalar(select(func.count()).select_from(Label)) == 0


def test_a_refused_page_keeps_the_posted_tags_for_the_script_to_restore(login, make_user, emphasis_project):
    make_user("ann")
    _, html = _post(login("ann"), ["B"] * 11)
    assert 'value="[&#34;B&#34;' in html


# --- API ---------------------------------------------------------------------------------------------

def test_the_api_item_is_the_sentence_id_and_its_words(api_client, emphasis_project):
    # The words as texts in order (a tag answers each by its position); the word ids stay on the server (the
    # label rows' units), the POS tags too.
    assignment = api_client("bot").post("/api/v1/projects/emph/next").get_json()["assignment"]
    item = assignment["item"]
    assert list(item) == ["id", "words"] and item["id"] == "Q_0"
    assert item["words"] == Q_0_WORDS
    question = assignment["questions"][0]
    assert (question["id"], question["kind"], question["boundaries"], question["tags"]) == \
        ("emphasis", "span", True, ["B", "I", "O"])


def test_the_api_stores_a_tags_answer(api_client, emphasis_project):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/emph/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": {"tags": _tags((0, 1))}})
    # today's shape taken, stored as the definition's answer
    assert response.status_code == 201 and response.get_json()["assignment"]["answer"] == {"emphasis": _tags((0, 1))}


@pytest.mark.parametrize("answer, message", [
    ({"tags": ["B"] * 13}, "has 13 tags but the text has 12 words"),
    ({"tags": ["O", "I"] + ["O"] * 10}, 'word 2 is "I" but no span is open'),
    ({"matches": []}, 'an object {"tags": [...]}'),
])
def test_the_api_refuses_a_wrong_length_or_a_span_starting_with_i_as_422(
        api_client, emphasis_project, answer, message):  # type: ignore[no-untyped-def]
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/emph/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": answer})
    assert response.status_code == 422 and message in response.get_json()["error"]


# --- imported annotators -----------------------------------------------------------------------------

def test_imported_annotators_cannot_log_in(app):
    load_project("emphasis2020", DATA / "emphasis2020" / "dev_excerpt.txt", "emph", with_votes=True)
    db.session.commit()
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    for password in ("", PASSWORD):
        response = client.post("/login", data={"username": "emph-annotator-1", "password": password,
                                               "csrf_token": csrf_token(page)})
        assert response.status_code != 302
