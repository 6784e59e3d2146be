"""The declarations are expressive: the shared tasks' definitions re-declare built-in HIT types (kpa2021/match.yaml,
ruarg2022/stance_premise.yaml), and on the same votes the declared
project's gold equals the built-in project's on every unit, undecided ones included (RuArg-2022's built-in type is
gone: its gold is worked out here from the votes by the paper's rules).

The votes are drawn with a seeded generator per (annotator, item), so each annotator gives the same answer to an
item in both projects; k = 5 makes undecided units (a share between 15% and 60%, two codes reaching m) common.
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import Item, Project, User
from annotator.declared.definition import NOT_ASKED, UNDECIDED
from annotator.engine import assignment as engine
from annotator.figures.kept_gold import gold_frame
from tests.cli.test_ruarg2022 import _read
from tests.conftest import DATA, load_project
from tests.support.declared_projects import make_declared_project

SHARED_TASKS = Path(__file__).resolve().parents[2] / "annotator" / "shared_tasks"
K = 5


def _replay(project: Project, users: list[User], answer: Callable[[dict[str, Any], int], dict[str, Any]]) -> int:
    """Each annotator answers every item it is given, the answer drawn from (item payload, annotator number)."""
    votes = 0
    for n, user in enumerate(users):
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, answer(lease.item.payload, n))
            votes += 1
    return votes


def _rng(payload: dict[str, Any], annotator: int) -> random.Random:
    return random.Random(f"{payload['id']}/{annotator}")


def _same_items(slug: str, built_in: Project, definition: Path | str, k: int = K) -> Project:
    """A declared project of `definition` holding the built-in project's items (the same payloads, in order)."""
    payloads = db.session.scalars(select(Item.payload).where(Item.project_id == built_in.id).order_by(Item.position))
    return make_declared_project(slug, definition, items=[dict(p) for p in payloads], k=k)


# --- KPA-2021: argument / key-point match ------------------------------------------------------------------------

def _kpa_answer(payload: dict[str, Any], annotator: int) -> dict[str, Any]:
    """Tick each key point with a chance that depends on the pair (so some pairs are clear, others split)."""
    rng = _rng(payload, annotator)
    chosen = []
    for kp in payload["key_points"]:
        chance = random.Random(f"{payload['id']}/{kp['id']}").choice([0.05, 0.4, 0.6, 0.95])
        if rng.random() < chance:
            chosen.append(kp["id"])
    return {"matches": chosen}


def test_kpa2021_declared_gold_is_the_built_in_kp_match_rule(app, make_user):
    """The built-in kp_match type's rule (ArgKP's, Bar-Haim et al. 2020; the type is gone: docs/one-engine.md) worked
    out from the answers given: a pair ticked by at least 60 % of its annotators a match, by at most 15 % no match,
    undecided between."""
    read = load_project("kpa2021", DATA / "kpa2021", "kpa", split="test", k=K)   # the items as the format reads them
    declared = _same_items("kpa-declared", read, SHARED_TASKS / "kpa2021" / "match.yaml")
    users = [make_user(f"ann{n}") for n in range(K)]
    assert _replay(declared, users, _kpa_answer) == 26 * K

    expected = {}
    for item in declared.items:
        ticked = [_kpa_answer(item.payload, n)["matches"] for n in range(K)]
        for kp in item.payload["key_points"]:
            share = sum(kp["id"] in answer for answer in ticked) / K
            expected[(item.external_id, kp["id"])] = "1" if share >= 0.6 else "0" if share <= 0.15 else UNDECIDED
    gold = gold_frame(declared)
    found = {(row.item, row.unit): row.gold for row in gold[gold["question"] == "matches"].itertuples()}
    assert found == expected
    assert {"1", "0", UNDECIDED} <= set(found.values())


# --- RuArg-2022: stance and premise per claim ---------------------------------------------------------------------

CLAIMS = ["masks", "quarantine", "vaccines"]
CODES = (2, 0, 1)   # the data set's: for, against, other / no argument


def _ruarg_votes(payload: dict[str, Any], annotator: int) -> dict[str, tuple[int, int] | None]:
    """Per claim (stance, premise), or None when the annotator finds the claim irrelevant."""
    rng = _rng(payload, annotator)
    votes: dict[str, tuple[int, int] | None] = {}
    for claim in CLAIMS:
        chance = random.Random(f"{payload['id']}/{claim}").choice([0.1, 0.4, 0.6, 0.9])
        votes[claim] = (rng.choice(CODES), rng.choice(CODES)) if rng.random() < chance else None
    return votes


def _declared_answer(payload: dict[str, Any], annotator: int) -> dict[str, Any]:
    """The same votes in the example's answer shape: per claim (an element of its `repeat` group)."""
    claims: dict[str, Any] = {}
    for claim, codes in _ruarg_votes(payload, annotator).items():
        claims[claim] = {"relevance": "relevant", "stance": str(codes[0]), "premise": str(codes[1])} if codes \
            else {"relevance": "irrelevant"}
    return {"claims": claims}


def _paper_gold(payloads: list[dict[str, Any]], k: int, m: int) -> dict[tuple[str, str], str]:
    """RuArg's gold of the votes, by the paper's rules (Kotelnikov et al., Dialogue 2022): a claim is relevant when at
    least two annotators found it so (section 3.1); then each label is the one code at least m of the relevant
    votes gave (section 3.2), else undecided; an irrelevant claim's labels are not asked (the data set's -1)."""
    expected: dict[tuple[str, str], str] = {}
    for payload in payloads:
        votes = [_ruarg_votes(payload, n) for n in range(k)]
        for claim in CLAIMS:
            relevant = [codes for vote in votes if (codes := vote[claim]) is not None]
            expected[(payload["id"], f"{claim}_relevance")] = "relevant" if len(relevant) >= 2 else "irrelevant"
            for position, label in enumerate(("stance", "premise")):
                winners = [code for code, n in Counter(c[position] for c in relevant).items() if n >= m]
                expected[(payload["id"], f"{claim}_{label}")] = NOT_ASKED if len(relevant) < 2 else \
                    str(winners[0]) if len(winners) == 1 else UNDECIDED
    return expected


@pytest.mark.parametrize("k, m", [(5, 2), (4, 3)])   # 2 of 3 on train and validation, 3 of 4 on test (§3.2)
def test_ruarg2022_declared_gold_equals_the_paper_s_rules(app, make_user, k, m):
    payloads = [{"id": row["text_id"], "text": row["text"]} for row in _read(DATA / "ruarg2022" / "train_excerpt.tsv")]
    text = (SHARED_TASKS / "ruarg2022" / "stance_premise.yaml").read_text(encoding="utf-8")
    assert text.count("gold: {rule: agree, m: 2}") == 2             # the labels' rule; relevance keeps m: 2
    declared = make_declared_project("ruarg-declared", text.replace("gold: {rule: agree, m: 2}",
                                                                    f"gold: {{rule: agree, m: {m}}}"),
                                     items=payloads, k=k)
    users = [make_user(f"ann{n}") for n in range(k)]
    assert _replay(declared, users, _declared_answer) == 11 * k

    expected = _paper_gold(payloads, k, m)
    # the example asks its questions per claim: a gold row's unit is the claim
    found = {(row.item, f"{row.unit}_{row.question}"): row.gold for row in gold_frame(declared).itertuples()}
    assert found == expected
    values = set(found.values())
    assert {"relevant", "irrelevant", NOT_ASKED, UNDECIDED} <= values and values & {"2", "0", "1"}
