"""Blocking on an annotator's ordinary votes: spammers by the one-coin model, and one-button answering.

Control items judge an annotator against known answers (blocking.py); a crowd project often has few. These two
rules judge the votes themselves, after each ordinary submit once the annotator has enough of them:

  * spammer score (`block_spammer_below`, after `block_spammer_min_votes` votes on items with at least CO_VOTERS
    other voters): the one-coin model (estimation/one_coin.py) fitted on the label rows of those items, theirs and
    their co-annotators', one fit per question (a question's values are its classes); the annotator's score is
    their accuracy above chance, (K a - 1) / (K - 1), averaged over the questions weighted by their votes. A random
    answerer scores about 0, and so does one who always gives the same answer to a question with several.
  * one-button answering (`block_same_answer_share`, after `block_same_answer_min_items` HITs): the very same
    answer (the whole answer, as stored) on at least that share of their HITs.

The fit reads only the annotator's items, so its cost grows with their work, not the project's; it imports
pandas and numpy in the worker that first runs it, and only in a project with the rule on.
"""
from __future__ import annotations

import json
from collections import Counter

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Item, Label, Project
from annotator.core.quality_settings import Quality
from annotator.estimation.one_coin import one_coin

CO_VOTERS = 2   # other annotators an item needs before it tells anything of the one judged


def reason(user_id: int, project: Project, q: Quality) -> str | None:
    """Why the annotator is to be blocked by a vote rule, in words; None when no rule says so."""
    if q.block_same_answer_share > 0:
        found = one_button(user_id, project, q.block_same_answer_min_items, q.block_same_answer_share)
        if found is not None:
            return found
    if q.block_spammer_below > 0:
        votes, score = spammer_score(user_id, project, q.block_spammer_min_votes)
        if score is not None and score < q.block_spammer_below:
            return (f"a spammer score of {score:.2f} on {votes} votes (the one-coin model's accuracy above chance) "
                    f"is below {q.block_spammer_below:.2f}")
    return None


def one_button(user_id: int, project: Project, min_items: int, share: float) -> str | None:
    """Whether one same answer is at least `share` of the annotator's ordinary answers, once there are
    `min_items` of them."""
    answers = [json.dumps(answer, sort_keys=True) for answer in db.session.scalars(
        select(Assignment.answer).join(Item, Item.id == Assignment.item_id)
        .where(Assignment.project_id == project.id, Assignment.user_id == user_id, Assignment.status == SUBMITTED,
               Assignment.excluded.is_(False), Item.is_control.is_(False)))]
    if len(answers) < min_items:
        return None
    top, count = Counter(answers).most_common(1)[0]
    if count / len(answers) < share:
        return None
    return (f"the same answer on {count} of {len(answers)} HITs ({count / len(answers):.0%}, at least "
            f"{share:.0%}): {top[:80]}")


def spammer_score(user_id: int, project: Project, min_votes: int) -> tuple[int, float | None]:
    """(the annotator's votes the score rests on, their one-coin spammer score); the score None until `min_votes`.

    Only items that at least `CO_VOTERS` other annotators voted on count: on an item the annotator alone (or with
    one other) answered, the model cannot tell who is right, and a fit on such items called a careful annotator a
    spammer early in a run, or made the one judged look perfect."""
    import pandas as pd

    mine = select(Assignment.item_id).join(Item, Item.id == Assignment.item_id).where(
        Assignment.project_id == project.id, Assignment.user_id == user_id, Assignment.status == SUBMITTED,
        Assignment.excluded.is_(False), Item.is_control.is_(False))
    rows = db.session.execute(select(Label.item_id, Label.unit, Label.field, Label.value, Label.user_id)
                              .where(Label.item_id.in_(mine))).all()
    frame = pd.DataFrame(rows, columns=["item", "unit", "field", "value", "coder"])
    voters = frame.groupby("item")["coder"].nunique()
    frame = frame[frame["item"].isin(voters[voters > CO_VOTERS].index)]
    votes = int(frame.loc[frame["coder"] == user_id, "item"].nunique())
    if votes < min_votes:
        return votes, None
    weighted = total = 0.0
    for _, rows_of in frame.groupby("field"):
        units = rows_of["item"].astype(str) + "\x00" + rows_of["unit"].astype(str)
        result = one_coin(pd.DataFrame({"unit": units, "coder": rows_of["coder"], "value": rows_of["value"]}))
        if user_id not in result.coders or len(result.classes) < 2:
            continue
        index = result.coders.index(user_id)
        weight = float(result.votes[index])
        weighted += weight * float(result.spammer_scores[index])
        total += weight
    return votes, (weighted / total if total else None)
