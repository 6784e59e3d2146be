"""A declared RuArg-2022 project in Russian: the language chosen with the upload (the built-in type's setting) words
the project's definition as the built-in Russian HIT did (its claims, questions and options), and the HIT shows
those words; what annotators send and what is stored is the same as an English project's."""
from __future__ import annotations

import re

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, User
from tests.web.conftest import csrf_token, open_hit_page
from tests.web.test_ruarg2022_declared_upload import _project, _upload_declared

# the built-in type's Russian words (its HIT before the type went), written out here
MASKS = "Ношение масок полезно для общества"
WORDS = ("Предложение", "Утверждение", "Укажите, относится ли предложение к этому утверждению.", "Релевантно",
         "Нерелевантно", "Позиция автора", "Довод", "за", "против", "другое", "нет довода")


def test_the_russian_upload_words_the_definition_in_russian(login, make_user):
    assert _upload_declared(login, make_user, language="ru").status_code == 302
    definition = _project("covid").definition
    group = definition["questions"][0]
    assert (definition["show"][0]["label"], group["label"]) == ("Предложение", "Утверждение")
    assert [e["text"] for e in group["elements"]] == [MASKS, "Введение и соблюдение карантина полезно для общества",
                                                      "Вакцинация полезна для общества"]
    assert [(q["prompt"], [o["label"] for o in q["options"]]) for q in group["questions"]] == [
        ("Укажите, относится ли предложение к этому утверждению.", ["Релевантно", "Нерелевантно"]),
        ("Позиция автора", ["за", "против", "другое"]),
        ("Довод", ["за", "против", "нет довода"])]


def test_the_russian_hit_shows_the_russian_words_and_stores_the_same_answer(login, make_user):
    assert _upload_declared(login, make_user, language="ru").status_code == 302
    make_user("ann")
    client = login("ann")
    page = open_hit_page(client, "covid").get_data(as_text=True)
    assert all(word in page for word in (MASKS, *WORDS)) and "Wearing masks is beneficial" not in page
    action = re.search(r'action="(/p/covid/a/\d+)"', page).group(1)
    response = client.post(action, data={"csrf_token": csrf_token(page), "q_claims__0__relevance": "relevant",
                                         "q_claims__0__stance": "2", "q_claims__0__premise": "1",
                                         "q_claims__1__relevance": "irrelevant",
                                         "q_claims__2__relevance": "irrelevant"})
    assert response.status_code == 302
    db.session.remove()
    vote = db.session.scalars(select(Assignment).join(User, User.id == Assignment.user_id)
                              .where(User.username == "ann", Assignment.status == SUBMITTED)).one()
    assert vote.answer == {"claims": {"masks": {"relevance": "relevant", "stance": "2", "premise": "1"},
                                      "quarantine": {"relevance": "irrelevant"},
                                      "vaccines": {"relevance": "irrelevant"}}}
