"""A stopping rule's prior per group of items (`stopping: {confidence: P, prior_by: FIELD}`, engine/stopping.py,
analysis/prior_counts.py) in the live engine, on both engines: the prior an item's vote is judged with, the count
table it reads (kept right when votes are excluded, erased or imported), and the replay stopping the same items.

The campaign: words, each asked "emphasise it?" (yes / no, majority of at most k = 5), grouped by the word itself
(case folded). No control items, so every annotator counts with the default accuracy 0.7 (two values: a vote is
wrong with 0.3). The routing serves an item with no vote first: each word is added just before its first vote, so
that the first three annotators get w1, w2, w3 in turn. Every figure below is worked out by hand in the comments.
"""
from __future__ import annotations

import random

import pytest
from sqlalchemy import func, select, update

from annotator.analysis import prior_counts
from annotator.analysis.replay import Vote, replay
from annotator.campaigns.projects import add_items
from annotator.campaigns.votes_import import import_votes
from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, PriorCount, Project
from annotator.core.stopping import coin_posterior, group_key
from annotator.declared.definition_reader import definition_from_data
from annotator.declared.stopping import domain, gold_of, question_of
from annotator.engine import assignment as engine
from annotator.engine.invariants import check_project
from annotator.people.erasure import delete_all_votes, lock_out
from annotator.quality.blocking import block, exclude_votes
from annotator.tasks import NewItem
from tests.support.declared_projects import make_declared_project

DEFINITION = """name: Emphasis per word
k: 5
show: [word]
questions:
  - {id: emphasis, kind: choice, prompt: "Emphasise it?", options: ["yes", "no"], gold: {rule: majority}}
"""
WORDS = [{"id": "w1", "word": "The"}, {"id": "w2", "word": "the "}, {"id": "w3", "word": "Cat"}]
Q = "emphasis"


def campaign(slug: str, rule: str = "{confidence: 0.95, min_votes: 1, prior_by: word}", items=None) -> Project:
    return make_declared_project(slug, DEFINITION + f"stopping: {rule}\n", items=items or WORDS[:1])


def vote(user, project: Project, answer: str, expected: str | None = None) -> None:
    lease = engine.next_for(user, project)
    assert lease is not None and (expected is None or lease.item.external_id == expected)
    engine.submit(lease.id, user, {Q: answer})


def row(project_id: int, external_id: str) -> Item:
    db.session.expire_all()
    return db.session.scalars(select(Item).where(Item.project_id == project_id,
                                                 Item.external_id == external_id)).one()


def fresh_table(project_id: int) -> dict[tuple[str, str], int]:
    """The project's count table read back in a fresh session: {(group key, value): votes}."""
    db.session.remove()
    return {(key, value): votes for (key, _, _, value), votes in prior_counts.table(project_id).items()}


def three_votes(project: Project, make_user) -> dict[str, object]:
    """a says "no" to w1, b "no" to w2, c "yes" to w3; the project starts with w1 alone."""
    users = {name: make_user(name) for name in "abcdef"}
    vote(users["a"], project, "no", "w1")
    add_items(db.session.get_one(Project, project.id), [NewItem("w2", WORDS[1])])
    db.session.commit()
    vote(users["b"], project, "no", "w2")
    add_items(db.session.get_one(Project, project.id), [NewItem("w3", WORDS[2])])
    db.session.commit()
    vote(users["c"], project, "yes", "w3")
    return users


def test_an_items_vote_is_judged_with_its_groups_prior(app, make_user):
    # The certainty written is the posterior of the gold. w1 "The", first vote "no": nothing else counted, the
    # prior is 1/2: 0.7. w2 "the " (the same group: trimmed, case folded), "no": its group's other item has 1 "no",
    # the project's other votes 1 "no" -> project shares add-one 1/3 yes, 2/3 no; prior no (1 + 5 * 2/3) / (1 + 5)
    # = 0.7222; posterior 0.7222 * 0.7 / (0.7222 * 0.7 + 0.2778 * 0.3) = 0.5056 / 0.5889 = 0.8585. w3 "Cat", "yes":
    # no other item in its group; the project's 2 "no" give 1/4 yes: 0.25 * 0.7 / (0.175 + 0.75 * 0.3) = 0.4375.
    project = campaign("prior-numbers")
    three_votes(project, make_user)
    assert [row(project.id, w).certainty for w in ("w1", "w2", "w3")] == pytest.approx([0.7, 0.858491, 0.4375],
                                                                                        abs=1e-6)


def test_an_items_own_votes_count_in_the_likelihood_only(app, make_user):
    # d gets w3 (the least certain) and says "yes": w3 has 2 yes of its own; the others' votes are still 2 "no",
    # so its prior stays 1/4 yes: 0.25 * 0.49 / (0.1225 + 0.75 * 0.09) = 0.1225 / 0.19 = 0.6447. Counting its own
    # votes in the prior too would give 0.907.
    project = campaign("prior-own")
    users = three_votes(project, make_user)
    vote(users["d"], project, "yes", "w3")
    assert row(project.id, "w3").certainty == pytest.approx(0.644737, abs=1e-6)


def test_a_vote_its_group_agrees_with_stops_the_item(app, make_user):
    # At 0.85 w2's one "no" (0.8585, above) stops it; w1's (0.7) did not: w2 takes one vote, w1 stays open.
    project = campaign("prior-stops", "{confidence: 0.85, min_votes: 1, prior_by: word}")
    three_votes(project, make_user)
    assert (row(project.id, "w2").target, row(project.id, "w1").target) == (1, None)


def test_the_count_table_holds_every_vote_by_group_and_for_the_project(app, make_user):
    project = campaign("prior-table")
    three_votes(project, make_user)
    assert fresh_table(project.id) == {("", "no"): 2, ("", "yes"): 1, ("the", "no"): 2, ("cat", "yes"): 1}


def test_each_items_votes_are_counted_in_the_stripe_of_its_id(app, make_user):
    """w1 and w2 ("the") are counted in two rows of the group, one in each item's stripe (its id modulo 8), and the
    project's "no" likewise: the rows a submit increments are the item's stripe's, read back as their sum."""
    project = campaign("prior-stripes")
    project_id = project.id
    three_votes(project, make_user)
    ids = {external: row(project_id, external).id for external in ("w1", "w2", "w3")}
    db.session.remove()
    stored = {(r.group_key, r.value, r.stripe): r.votes for r in db.session.scalars(
        select(PriorCount).where(PriorCount.project_id == project_id))}
    assert prior_counts.STRIPES == 8 and ids["w2"] - ids["w1"] == 1
    assert stored == {("", "no", ids["w1"] % 8): 1, ("", "no", ids["w2"] % 8): 1, ("", "yes", ids["w3"] % 8): 1,
                      ("the", "no", ids["w1"] % 8): 1, ("the", "no", ids["w2"] % 8): 1,
                      ("cat", "yes", ids["w3"] % 8): 1}


def test_an_excluded_vote_leaves_the_counts(app, make_user):
    project = campaign("prior-excluded")
    users = three_votes(project, make_user)
    block(users["a"].id, db.session.get_one(Project, project.id), "test")
    db.session.commit()
    exclude_votes(users["a"].id, db.session.get_one(Project, project.id))
    assert fresh_table(project.id) == {("", "no"): 1, ("", "yes"): 1, ("the", "no"): 1, ("cat", "yes"): 1}


def test_an_erased_annotators_votes_leave_the_counts(app, make_user):
    project = campaign("prior-erased")
    users = three_votes(project, make_user)
    lock_out(users["c"].id)
    assert delete_all_votes(users["c"].id) == 1
    assert fresh_table(project.id) == {("", "no"): 2, ("the", "no"): 2}


def test_imported_votes_are_counted(app, make_user):
    project = campaign("prior-imported", items=WORDS)
    import_votes(project, {"w1": [{Q: "yes"}, {Q: "no"}], "w2": [{Q: "yes"}], "w3": [None, {Q: "no"}]})
    db.session.commit()
    assert fresh_table(project.id) == {("", "yes"): 2, ("", "no"): 2, ("the", "yes"): 2, ("the", "no"): 1,
                                       ("cat", "no"): 1}


def test_a_project_without_prior_by_keeps_no_counts(app, make_user):
    project = campaign("no-prior", "{confidence: 0.95, min_votes: 1}")
    three_votes(project, make_user)
    assert fresh_table(project.id) == {}


def test_the_replay_stops_the_items_the_engine_stopped(app, make_user):
    """Twelve annotators answer 30 words of 6 types (a type's words lean one way), as the routing serves them;
    the stored votes, replayed in the order they came with the engine's model, stop exactly the items the engine
    stopped, each at the votes it has."""
    types = ["The", "of", "Amazing", "never", "cat", "DOG"]
    leaning = {"the": 0.05, "of": 0.1, "amazing": 0.9, "never": 0.8, "cat": 0.4, "dog": 0.5}
    words = [{"id": f"w{n:02d}", "word": types[n % 6]} for n in range(30)]
    rule = "{confidence: 0.9, min_votes: 2, prior_by: word}"
    project = campaign("prior-replayed", rule, items=words)
    draw = random.Random(47)
    users = [make_user(f"r{n}") for n in range(12)]
    for _ in range(12):
        for user in users:
            lease = engine.next_for(user, project)
            if lease is not None:
                word = lease.item.payload["word"].lower()
                engine.submit(lease.id, user, {Q: "yes" if draw.random() < leaning[word] else "no"})
    db.session.expire_all()
    items = {i.id: i for i in db.session.scalars(select(Item).where(Item.project_id == project.id))}
    stored = db.session.scalars(select(Assignment).where(Assignment.project_id == project.id,
                                                         Assignment.submitted_at.is_not(None))
                                .order_by(Assignment.submitted_at, Assignment.id)).all()
    votes = [Vote(items[a.item_id].external_id, a.user_id, {(Q, Q): a.answer[Q]}) for a in stored]
    definition = definition_from_data(db.session.get_one(Project, project.id).definition)
    questions = {q.id: q for q in definition.questions}
    replayed = replay(votes, gold_of(questions), 5, definition.stopping,
                      lambda unit: domain(questions[question_of(unit)]),
                      priored=lambda unit, given, prior: coin_posterior(list(prior), list(prior.values()), {}, 0.7,
                                                                        given),
                      groups={i.external_id: group_key(i.payload["word"]) for i in items.values()})
    stopped = sorted(i.external_id for i in items.values() if i.stopped_at is not None)
    assert stopped and sorted(replayed.stopped_items) == stopped
    assert replayed.votes_used == replayed.votes_full == len(stored)


def test_flask_check_holds_the_table_against_the_labels(app, make_user):
    project = campaign("prior-checked")
    three_votes(project, make_user)
    name = "prior_counts equals a count of the labels"
    assert [c.passed for c in check_project(project.slug) if c.name == name] == [True]
    one_row = select(func.min(PriorCount.id)).where(PriorCount.group_key == "the", PriorCount.value == "no")
    db.session.execute(update(PriorCount).where(PriorCount.id == one_row.scalar_subquery())
                       .values(votes=PriorCount.votes + 1))
    db.session.commit()
    failed = [c for c in check_project(project.slug) if c.name == name and not c.passed]
    assert failed and "the emphasis/emphasis = no: table 3, labels 2" in failed[0].detail
