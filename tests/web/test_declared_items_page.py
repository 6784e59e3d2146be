"""The admin's items page of a declared project (templates/admin/items/custom.html, declared/item_page.py): each
annotation's answers in words, one column per question, and the gold rows that say a decision, without a
character-edged spans question's rows per character. Shown on a ReCAM project imported with --declared, as the
built-in cloze page showed it (templates/admin/items/cloze.html): the option chosen, the evidence quoted, the
difficulty, the verdict in the option's gold row. The answers are posted through the JSON API and the expected
words are written out from the excerpt's text here."""
from __future__ import annotations

import html
import re

import pytest

from annotator.shared_tasks.recam2021.files import read_file
from tests.conftest import DATA, load_project

DEV = DATA / "recam2021" / "Task_1_dev_excerpt.jsonl"   # item 0: options end, free, secret, normal, concentration
ANSWERS = {   # annotator: (option, passage evidence, question evidence, difficulty) on item 0; items 1-3 all
    # answered with their known answer (4), no evidence
    "ann": (2, (0, 12), None, "easy"),          # "12 June 2017"
    "bob": (2, None, (0, 9), "medium"),         # "Microsoft"
    "cy": (0, (0, 12), (0, 9), "hard"),
}


@pytest.fixture
def page(app, api_client, make_user, login) -> str:  # type: ignore[no-untyped-def]
    load_project("recam2021", DEV, "recam", k=3, declared=True)
    for name, (option, passage, question, difficulty) in ANSWERS.items():
        client = api_client(name)
        while (lease := (client.post("/api/v1/projects/recam/next").get_json(silent=True) or {}).get("assignment")):
            answer = {"option": 4, "difficulty": "medium", "passage_span": None, "question_span": None}  # items 1-3
            if lease["item"]["id"] == "0":
                answer = {"option": option, "difficulty": difficulty, "passage_span": None if passage is None else
                          list(passage), "question_span": None if question is None else list(question)}
            assert client.post(f"/api/v1/assignments/{lease['id']}/submit", json={"answer": answer}).status_code \
                == 201
    make_user("boss", role="admin")
    response = login("boss").get("/admin/projects/recam/items/?order=position")
    assert response.status_code == 200
    return html.unescape(response.get_data(as_text=True))


def _cells(page: str, annotator: str) -> list[str]:
    row = re.search(rf"<tr><td>{annotator}</td>(.*?)</tr>", page, re.S)
    assert row is not None, annotator
    return re.findall(r"<td>(.*?)</td>", row.group(1))


def test_each_annotation_is_a_row_of_its_answers_in_words(page):
    item = read_file(DEV).questions[0]
    assert "The 3 annotations" in page
    assert "<th>option</th><th>passage_span</th><th>question_span</th><th>difficulty</th>" in page
    assert _cells(page, "ann") == [item.options[2], f"“{item.article[0:12]}”", "none", "easy"]
    assert _cells(page, "bob") == [item.options[2], "none", f"“{item.question[0:9]}”", "medium"]
    assert _cells(page, "cy") == [item.options[0], f"“{item.article[0:12]}”", f"“{item.question[0:9]}”", "hard"]


def test_the_gold_rows_are_the_decisions_without_a_row_per_character(page):
    # ann and bob each left one evidence out (rule b); cy's is valid (3 of 4 known answers right: rule a) and wrong
    assert "dropped: 0 of 1 valid annotations chose the known answer (0.00 < 0.50)" in page
    assert "(0:12:evidence)" in page and "(0:9:evidence)" in page           # the marks' rows
    assert "(0:1)" not in page and "(1:2)" not in page                      # no row of one character
