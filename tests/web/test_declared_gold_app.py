"""A declared project's gold, summary and agreement, from votes submitted through the assignment engine."""
from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from statsmodels.stats.inter_rater import fleiss_kappa

from annotator.analysis.results import gold_summary, labels_frame, project_agreement
from annotator.core.models import Item, Project, User
from annotator.declared.answers import swapped
from annotator.declared.definition_reader import definition_from_data
from annotator.engine import assignment as engine
from annotator.figures.kept_gold import gold_frame
from tests.support.declared_projects import make_declared_project

SENTIMENT = ["positive", "positive", "negative"]
SARCASTIC = ["yes", "yes", "no"]
CUES = [[0, 1], [1], None]
THEMES = [["life"], ["life", "love"], []]
INTENSITY = [2, 3, 5]


def _answer(annotator: int, shown_swapped: bool) -> dict[str, Any]:
    """Annotator n's answer; every annotator prefers the item's own quote (field a), on whichever side it is."""
    answer: dict[str, Any] = {"sentiment": SENTIMENT[annotator], "sarcastic": SARCASTIC[annotator],
                              "themes": THEMES[annotator], "intensity": INTENSITY[annotator],
                              "better": "B" if shown_swapped else "A"}
    if CUES[annotator] is not None:
        answer["cues"] = CUES[annotator]
    return answer


def _vote(project: Project, users: list[User]) -> int:
    definition = definition_from_data(project.definition)
    better = definition.question("better")
    votes = 0
    for n, user in enumerate(users):
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, _answer(n, swapped(better, lease.presentation)))
            votes += 1
    return votes


@pytest.fixture
def voted(app, make_user) -> Project:  # type: ignore[no-untyped-def]
    project = make_declared_project("quotes", k=3)
    assert _vote(project, [make_user(f"ann{n}") for n in range(3)]) == 9
    return project


def test_gold_of_the_submitted_votes_follows_each_questions_rule(voted):
    gold = gold_frame(voted)
    for item in ("Q_0", "S_1", "S_78"):
        rows = gold[gold["item"] == item]
        by_unit = {(q, u): g for q, u, g in zip(rows["question"], rows["unit"], rows["gold"])}
        assert by_unit[("sentiment", "sentiment")] == "positive"         # 2 of 3
        assert by_unit[("sarcastic", "sarcastic")] == "yes"              # 2/3 >= 0.6
        assert by_unit[("cues", "0")] == 0.5 and by_unit[("cues", "1")] == 1.0 and by_unit[("cues", "2")] == 0.0
        assert [by_unit[("themes", o)] for o in ("life", "love", "work", "nature")] == ["1", "undecided", "0", "0"]
        assert by_unit[("intensity", "intensity")] == "3"
        better = rows[rows["question"] == "better"]
        assert list(better["gold"]) == ["A"] and list(better["votes"]) == ["A: 3"]


def test_cues_are_counted_over_the_annotators_who_were_asked(voted):
    gold = gold_frame(voted)
    assert set(gold.loc[gold["question"] == "cues", "n"]) == {2}


def test_the_summary_counts_gold_per_question(voted):
    counts = gold_summary(voted).counts
    assert counts["sentiment: positive"] == 3 and counts["sentiment: undecided"] == 0
    assert counts["themes: 1"] == 3 and counts["themes: undecided"] == 3 and counts["cues: n/a"] == 0


def test_flask_agreement_reports_every_question_of_a_declared_project_with_its_inputs(app, voted):
    import json
    report = json.loads(app.test_cli_runner().invoke(args=["agreement", "--project", "quotes", "--json"]).output)
    fields = {entry["field"]: entry for entry in report["fields"]}
    assert list(fields) == ["sentiment", "sarcastic", "cues", "themes", "themes: life", "themes: love",
                            "themes: work", "themes: nature", "intensity", "better"]
    assert (fields["sentiment"]["units"], fields["sentiment"]["coders"], fields["sentiment"]["ratings"]) == (3, 3, 9)
    assert report["gold"]["sentiment: positive"] == 3


def test_agreement_has_a_field_per_question_and_option_with_statsmodels_fleiss_kappa(voted):
    results = {r.field: r for r in project_agreement(voted)}
    assert list(results) == ["sentiment", "sarcastic", "cues", "themes", "themes: life", "themes: love",
                             "themes: work", "themes: nature", "intensity", "better"]
    themes = np.array([[2, 1], [1, 2], [0, 3], [0, 3]] * 3)      # per (item, option): ticked, not ticked
    assert results["themes"].fleiss_kappa.value == pytest.approx(fleiss_kappa(themes, method="fleiss"))
    assert results["intensity"].level == "ordinal"              # as every_kind.yaml declares


def test_labels_of_the_pairwise_question_are_in_the_items_terms_whatever_side_was_shown(voted):
    labels = labels_frame(voted)
    assert set(labels.loc[labels["field"] == "better", "value"]) == {"A"}


def test_controls_drawn_from_gold_score_an_answer_question_by_question(voted, make_user):
    from annotator.core.extensions import db
    from annotator.quality.bulk_controls import draw_controls
    from tests.quality.conftest import set_quality

    drawn = draw_controls(voted, 1, seed=3)
    db.session.commit()
    set_quality(voted, control_rate=1.0, feedback=True)
    voted.k = 4                                                       # ordinary work left, so controls are served
    db.session.commit()
    item = db.session.scalar(db.select(Item).where(Item.project_id == voted.id, Item.external_id == drawn[0]))
    # themes is left out: "love" is undecided, so the set of themes is not known
    known = dict(item.reference)
    cues = known.pop("cues")
    assert known == {"sentiment": "positive", "sarcastic": "yes", "intensity": 3, "better": "A"}
    # a span ruled by probability is known as every word's probability (docs/declared-span-boundaries.md): the
    # known selection is the words more than half the annotators selected, word 1 here
    assert cues["0"] == 0.5 and cues["1"] == 1.0 and {word for word, p in cues.items() if p > 0.5} == {"1"}
    ann = make_user("ann9")
    lease = engine.next_for(ann, voted)
    assert lease.item_id == item.id
    answer = {**_answer(0, swapped(definition_from_data(voted.definition).question("better"), lease.presentation)),
              "cues": [1], "intensity": 3}
    result = engine.submit(lease.id, ann, answer)
    assert result.control.score == pytest.approx(1.0)
    assert "How intense is it? 3" in result.control.known and "Which quote would you rather" in result.control.known
    wrong = make_user("ann10")
    lease = engine.next_for(wrong, voted)
    answer = {**answer, "sentiment": "negative", "intensity": 5, "better": "equal"}
    assert engine.submit(lease.id, wrong, answer).control.score == pytest.approx(2 / 5)   # sarcastic, cues right
