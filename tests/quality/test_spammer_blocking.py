"""Blocking on the votes themselves (annotator/quality/spammers.py), tested with synthetic spammers: a one-coin
spammer score below the project's threshold after enough votes, and one-button answering.

The crowd: 30 reviews whose true sentiment cycles through positive, negative and neutral; three careful annotators
right nine times in ten (a seeded draw; otherwise one of the two other answers), a random answerer (each answer a
third of the time whatever the review says) and a one-button annotator (always "positive"). With k = 5 each of
them meets every review, taking HITs in turn. By the model's definition (docs/annotator-models.md) the careful
score (3 x 0.9 - 1) / 2 = 0.85 and both spammers about 0 (accuracy a third, chance for three answers).
"""
from __future__ import annotations

import random

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import AnnotatorState, Item
from annotator.engine import assignment as engine
from tests.quality.conftest import answer_next, set_quality
from tests.support.declared_projects import make_declared_project

DEFINITION = """name: Review sentiment
k: 5
show: [text]
questions:
  - id: sentiment
    kind: choice
    prompt: What does the review say of the product?
    options: [positive, negative, neutral]
    gold: {rule: majority}
"""
VALUES = ("positive", "negative", "neutral")
TRUTH = {f"r{n}": VALUES[n % 3] for n in range(30)}
CAREFUL = ("careful1", "careful2", "careful3")


def _answers() -> dict[str, object]:
    draws = {name: random.Random(name) for name in (*CAREFUL, "random")}

    def careful(name: str):  # type: ignore[no-untyped-def]
        def answer(item: Item) -> dict[str, str]:
            truth, rng = TRUTH[item.external_id], draws[name]
            return {"sentiment": truth if rng.random() < 0.9 else rng.choice([v for v in VALUES if v != truth])}
        return answer
    return {**{name: careful(name) for name in CAREFUL},
            "random": lambda item: {"sentiment": draws["random"].choice(VALUES)},
            "button": {"sentiment": "positive"}}


def _work(app, make_user, **quality) -> dict[str, str | None]:  # type: ignore[no-untyped-def]
    """Everyone answers in turn until nothing is left or they are blocked; the blocked reason per annotator."""
    project = make_declared_project("reviews", DEFINITION,
                                    items=[{"id": key, "text": f"Review {key}."} for key in TRUTH])
    set_quality(project, control_rate=0.0, **quality)
    answers = _answers()
    users = {name: make_user(name) for name in answers}
    working = set(users)
    while working:
        for name in sorted(working):
            try:
                if answer_next(users[name], project, answers[name]) is None:
                    working.discard(name)
            except engine.ScreenedOut:
                working.discard(name)
    db.session.expire_all()
    states = {s.user_id: s.blocked_reason for s in db.session.scalars(select(AnnotatorState))}
    return {name: states.get(user.id) for name, user in users.items()}


def test_a_spammer_score_below_the_threshold_blocks_random_and_one_button_answerers(app, make_user):
    reasons = _work(app, make_user, block_spammer_below=0.3, block_spammer_min_votes=15)
    assert {name: reasons[name] for name in CAREFUL if reasons[name]} == {}
    assert "spammer score" in reasons["random"] and "spammer score" in reasons["button"]


def test_one_button_answering_blocks_only_the_one_button_annotator(app, make_user):
    reasons = _work(app, make_user, block_same_answer_share=0.9, block_same_answer_min_items=15)
    assert reasons["button"] == ('the same answer on 15 of 15 HITs (100%, at least 90%): {"sentiment": '
                                 '"positive"}')
    assert [name for name in (*CAREFUL, "random") if reasons[name]] == []


def test_no_vote_is_judged_before_the_least_number_of_votes(app, make_user):
    reasons = _work(app, make_user, block_same_answer_share=0.9, block_same_answer_min_items=31)
    assert all(reason is None for reason in reasons.values())


@pytest.mark.parametrize("setting", [{"block_spammer_below": 1.5}, {"block_same_answer_share": -0.1}])
def test_a_threshold_outside_0_to_1_is_refused(app, setting):
    from annotator.core.options import OptionError
    from annotator.core.quality_settings import checked_quality
    project = make_declared_project("reviews", DEFINITION, items=[{"id": "r0", "text": "Review r0."}])
    with pytest.raises(OptionError, match=next(iter(setting))):
        checked_quality(project, setting)
