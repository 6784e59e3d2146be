"""The KPA-2021 match check and the ReCAM cloze definitions with the option features (docs/declared-options.md)
against figures worked out from the votes (their built-in types are gone: docs/one-engine.md), and through the web:
the API, the HIT page and the exports.

Each answer is drawn by a generator seeded with (item, annotator); then the declared gold, label values and agreement
figures must be the built-in's rules worked out from the stored votes (RuArg's premise stage: the built-in's):
  - the check's gold is the overview's label (faulty counts as no, more than half, a tie no match; with
    `ties: "yes"` a tie a match), and its "verdict: match" figure the textbook figure of match / no match;
  - the cloze's option label rows hold the option's position, "0" to "4" (the built-in's and ReCAM's values), so the
    option agreement is the textbook figure over positions and the gold the majority position;
  - RuArg-2022's premise stage, its three claims' questions pooled into one figure, gives the built-in's
    "all labels", now worked out from the votes (the built-in type is gone).
"""
from __future__ import annotations

import csv
import io
import json
import random
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from sqlalchemy import select

from annotator.analysis.results import labels_frame, project_agreement
from annotator.core.audit import who
from annotator.core.extensions import db
from annotator.core.models import Assignment, Item, Label, Project, User
from annotator.declared.definition import UNDECIDED, Definition
from annotator.declared.definition_reader import definition_from_file, definition_from_text
from annotator.engine import assignment as engine
from annotator.figures.kept_gold import gold_frame
from annotator.shared_tasks.ruarg2022.stages import create_premise_stage
from tests.conftest import DATA, load_project
from tests.support.built_once import kept_projects
from tests.support.declared_projects import make_declared_project
from tests.support.nominal_figures import fleiss_kappa, krippendorff_alpha
from tests.web.conftest import csrf_token, open_hit_page, submitted_by

SHARED_TASKS = Path(__file__).resolve().parents[2] / "annotator" / "shared_tasks"
CHECK = SHARED_TASKS / "kpa2021" / "match_check.yaml"
CLOZE = SHARED_TASKS / "recam2021" / "cloze.yaml"
CLOZE_ITEMS = DATA / "recam2021" / "Task_1_test_excerpt.jsonl"
VERDICTS = ("yes", "no", "faulty")
DIFFICULTIES = ("easy", "medium", "hard")
CLAIMS = ["masks", "quarantine", "vaccines"]   # RuArg-2022's
CODES = (2, 0, 1)                               # the data set's: for, against, other / no argument
Answer = Callable[[Assignment, int], dict[str, Any]]


# --- helpers ------------------------------------------------------------------------------------------------------

def _rng(item: str, annotator: int) -> random.Random:
    return random.Random(f"{item}/{annotator}/options")


def _replay(project: Project, users: list[User], answer: Answer) -> int:
    votes = 0
    for n, user in enumerate(users):
        while (lease := engine.next_for(user, project)) is not None:
            engine.submit(lease.id, user, answer(lease, n))
            votes += 1
    return votes


def _declared(slug: str, definition: Path | Definition, built_in: Project, k: int,
              flat: Callable[[dict[str, Any]], dict[str, Any]] = dict) -> Project:
    payloads = db.session.scalars(select(Item.payload).where(Item.project_id == built_in.id).order_by(Item.position))
    return make_declared_project(slug, definition, items=[flat(dict(p)) for p in payloads], k=k)


def _figures(project: Project) -> dict[str, tuple[float | None, float | None, int]]:
    def rounded(value: float | None) -> float | None:
        return None if value is None else round(value, 12)
    return {f.field: (rounded(f.fleiss_kappa.value), rounded(f.krippendorff_alpha.value), f.units)
            for f in project_agreement(project)}


def _declared_gold(project: Project, question: str) -> dict[str, Any]:
    gold = gold_frame(project)
    return {row.item: row.gold for row in gold[gold["question"] == question].itertuples()}


def _users(make_user: Callable[..., User], k: int) -> list[User]:
    return [make_user(f"ann{n}") for n in range(k)]


# --- KPA-2021 Track 2: the match check ----------------------------------------------------------------------------

def _flat_check(payload: dict[str, Any]) -> dict[str, Any]:
    """The check item as the definition reads it (match_check.yaml says why the key point is flat)."""
    return {"id": payload["id"], "topic": payload["topic"], "stance": payload["stance"],
            "argument": payload["argument"], "key_point": payload["key_point"]["text"]}


def _check_answer(lease: Assignment, annotator: int) -> dict[str, Any]:
    """Some pairs clearly a match, some clearly not, some split; faulty a third of the refusals."""
    item = lease.item.payload["id"]
    yes = random.Random(f"{item}/yes").choice((0.1, 0.5, 0.9))
    return {"verdict": _rng(item, annotator).choices(VERDICTS, weights=(yes, (1 - yes) * 0.6, (1 - yes) * 0.4))[0]}


def _check_project(make_user: Callable[..., User], k: int, definition: Path | Definition = CHECK) -> Project:
    """The check's items (as the format reads them) in a declared project of `definition`, answered by k judges."""
    read = load_project("kpa2021-check", DATA / "kpa2021_track2", "chk", split="test", k=k)
    declared = _declared("chk-declared", definition, read, k, _flat_check)
    assert _replay(declared, _users(make_user, k), _check_answer) > 0
    return declared


def _kept_check(run_shared: Any, make_user: Callable[..., User], k: int) -> Project:
    """`_check_project` of match_check.yaml with a tie no match, made once per k and engine
    (tests/support/built_once.py): several tests read the same project."""
    [declared] = kept_projects(run_shared, f"options-check-{k}", lambda: [_check_project(make_user, k)])
    return declared


def _verdicts(project: Project) -> dict[str, list[str]]:
    """Each pair's verdicts as stored."""
    labels = labels_frame(project)
    rows = labels[labels["field"] == "verdict"]
    found: dict[str, list[str]] = {}
    for item, value in zip(rows["item"], rows["value"]):
        found.setdefault(item, []).append(str(value))
    return found


def _overview_labels(project: Project, tie: str = "no") -> dict[str, str]:
    """The overview's label (Friedman et al. 2021, 3.3.2) of each pair's verdicts: yes when more than half say yes,
    faulty counting as no; a tie of yes against the rest is `tie`."""
    labels = {}
    for item, said in _verdicts(project).items():
        yes, rest = said.count("yes"), len(said) - said.count("yes")
        labels[item] = "yes" if yes > rest else tie if yes == rest else "no"
    return labels


@pytest.mark.parametrize("k", [4, 5])
def test_kpa2021_check_gold_is_the_overviews_label_faulty_counting_as_no(app, make_user, run_shared, k):
    declared = _kept_check(run_shared, make_user, k)
    expected = _overview_labels(declared)
    assert _declared_gold(declared, "verdict") == expected
    said = _verdicts(declared)
    # the excerpt's votes hold what the rule must get right: a no match carried by faulty verdicts
    assert any(v.count("faulty") > v.count("no") and expected[item] == "no" for item, v in said.items())
    if k == 4:   # two yes against a no and a faulty: a tie, no match
        assert any(2 * v.count("yes") == len(v) and expected[item] == "no" for item, v in said.items())


def test_kpa2021_check_with_ties_yes_counts_a_tie_as_a_match(app, make_user):
    text = CHECK.read_text(encoding="utf-8").replace('\n      ties: "no"\n', '\n      ties: "yes"\n')
    assert 'ties: "yes"' in text
    declared = _check_project(make_user, 4, definition=definition_from_text(text))
    expected = _overview_labels(declared, tie="yes")
    assert any(2 * v.count("yes") == len(v) for v in _verdicts(declared).values())
    assert _declared_gold(declared, "verdict") == expected


def _textbook(ratings: dict[str, list[str]]) -> tuple[float, float, int]:
    return round(fleiss_kappa(ratings), 12), round(krippendorff_alpha(ratings), 12), len(ratings)


def test_kpa2021_check_match_agreement_is_the_textbook_figure_of_the_merged_verdicts(app, make_user, run_shared):
    """"verdict: match" merges no and faulty (the built-in's "match" figure); "verdict" keeps the three."""
    declared = _kept_check(run_shared, make_user, 4)
    said = _verdicts(declared)
    merged = {item: ["match" if v == "yes" else "no match" for v in values] for item, values in said.items()}
    found = _figures(declared)
    assert found["verdict: match"] == pytest.approx(_textbook(merged), abs=1e-9)
    assert found["verdict"] == pytest.approx(_textbook(said), abs=1e-9)
    assert found["verdict"] != found["verdict: match"]


def test_flask_agreement_lists_the_merged_figure_after_the_question(app, make_user, run_shared):
    _kept_check(run_shared, make_user, 4)
    result = app.test_cli_runner().invoke(args=["agreement", "--project", "chk-declared", "--json"])
    assert result.exit_code == 0, result.output
    fields = [f["field"] for f in json.loads(result.output)["fields"]]
    assert fields == ["verdict", "verdict: match"]


def test_flask_export_of_the_check_gives_the_grouped_gold_with_the_three_verdicts_counted(app, make_user, run_shared,
                                                                                         tmp_path):
    declared = _kept_check(run_shared, make_user, 4)
    out = tmp_path / "out"
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", "chk-declared", "--out", str(out)])
    assert result.exit_code == 0, result.output
    gold = list(csv.DictReader(io.StringIO((out / "gold.csv").read_text(encoding="utf-8"))))
    expected = _overview_labels(declared)
    assert {g["item"]: g["gold"] for g in gold} == expected
    said = _verdicts(declared)
    faulty = next(item for item, v in said.items() if v.count("faulty") > v.count("no") and expected[item] == "no")
    row = next(g for g in gold if g["item"] == faulty)
    assert row["gold"] == "no" and f"faulty: {said[faulty].count('faulty')}" in row["votes"]
    table = pq.read_table(out / "dataset" / "gold.parquet").to_pylist()
    assert {r["item"]: r["gold"] for r in table} == expected
    card = (out / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "more than half of the annotators ('faulty' counted as 'no'); otherwise 'no'" in card
    assert "verdict: match" in card   # the merged figure beside the verdict's


# --- SemEval-2021 Task 4 (ReCAM): cloze ---------------------------------------------------------------------------

def _cloze_votes(item: str, options: int, annotator: int) -> tuple[int, int]:
    rng = _rng(item, annotator)
    favourite = random.Random(f"{item}/favourite").randrange(options)
    strength = random.Random(f"{item}/strength").choice((0.3, 0.5, 0.9))
    option = favourite if rng.random() < strength else rng.randrange(options)
    return option, rng.choices(range(3), weights=(3, 2, 1))[0]


def _cloze_declared_answer(lease: Assignment, annotator: int) -> dict[str, Any]:
    option, difficulty = _cloze_votes(lease.item.payload["id"], len(lease.item.payload["options"]), annotator)
    return {"option": option, "difficulty": DIFFICULTIES[difficulty]}   # the position, as the built-in's API


def _cloze_project(make_user: Callable[..., User], k: int = 5) -> list[Project]:
    read = load_project("recam2021", CLOZE_ITEMS, "cz", k=k)   # the file's questions as the format reads them
    declared = _declared("cz-declared", CLOZE, read, k)
    assert _replay(declared, _users(make_user, k), _cloze_declared_answer) == k * len(read.items)
    return [declared]


def _kept_cloze(run_shared: Any, make_user: Callable[..., User], k: int = 5) -> tuple[Project, list[User]]:
    """`_cloze_project`, made once per k and engine (tests/support/built_once.py): several tests read the same one; with
    its annotators in order (annotator n answered as _cloze_votes draws for n)."""
    [declared] = kept_projects(run_shared, f"options-cloze-{k}", lambda: _cloze_project(make_user, k))
    users = [db.session.scalars(select(User).where(User.username == f"ann{n}")).one() for n in range(k)]
    return declared, users


def _expected_values(project: Project, users: list[User], what: int) -> dict[tuple[str, int], str]:
    """What each annotator gave, drawn again: the option's position (what=0) or the difficulty (what=1)."""
    return {(item.external_id, user.id): (str(vote) if what == 0 else DIFFICULTIES[vote])
            for item in project.items for n, user in enumerate(users)
            for vote in (_cloze_votes(item.payload["id"], len(item.payload["options"]), n)[what],)}


def _values(project: Project, field: str) -> dict[tuple[str, int], str]:
    labels = labels_frame(project)
    rows = labels[labels["field"] == field]
    return {(item, user): str(value) for item, user, value in zip(rows["item"], rows["user_id"], rows["value"])}


def test_recam2021_option_label_rows_hold_the_positions_given(app, make_user, run_shared):
    declared, users = _kept_cloze(run_shared, make_user)
    expected = _expected_values(declared, users, 0)
    assert _values(declared, "option") == expected and set(expected.values()) <= {"0", "1", "2", "3", "4"}
    assert _values(declared, "difficulty") == _expected_values(declared, users, 1)


def test_recam2021_option_agreement_is_the_textbook_figure_over_positions(app, make_user, run_shared):
    declared, users = _kept_cloze(run_shared, make_user)
    ratings: dict[str, list[str]] = {}
    for (item, _), value in _expected_values(declared, users, 0).items():
        ratings.setdefault(item, []).append(value)
    expected = (fleiss_kappa(ratings), krippendorff_alpha(ratings), len(ratings))
    assert _figures(declared)["option"] == pytest.approx(expected, abs=1e-9) and -1 < expected[0] < 1


def test_recam2021_option_gold_is_the_majority_position(app, make_user, run_shared):
    declared, users = _kept_cloze(run_shared, make_user, k=4)
    expected = {}
    for item in declared.items:
        chosen = Counter(_cloze_votes(item.payload["id"], len(item.payload["options"]), n)[0] for n in range(4))
        (top, most), *rest = chosen.most_common()
        expected[item.external_id] = UNDECIDED if rest and rest[0][1] == most else str(top)
    assert _declared_gold(declared, "option") == expected


# --- the cloze through the web ------------------------------------------------------------------------------------

@pytest.fixture
def cloze(app, run_shared):  # type: ignore[no-untyped-def]
    """The declared cloze project of the ReCAM excerpt's items, as the format reads them (made once per engine,
    tests/support/built_once.py)."""
    def build() -> list[Project]:
        return [_declared("cloze", CLOZE, load_project("recam2021", CLOZE_ITEMS, "cz", k=3), 3)]
    [declared] = kept_projects(run_shared, "options-cloze-web", build)
    return declared


def _labels(assignment: Assignment) -> dict[str, str]:
    return {label.field: label.value for label in db.session.scalars(
        select(Label).where(Label.assignment_id == assignment.id))}


def test_the_api_gives_the_options_by_position_with_their_text(api_client, cloze):
    assignment = api_client("bot").post("/api/v1/projects/cloze/next").get_json()["assignment"]
    option, difficulty = assignment["questions"]
    words = assignment["item"]["options"]
    assert option["options"] == [{"value": str(n), "label": word} for n, word in enumerate(words)]
    assert [o["value"] for o in difficulty["options"]] == list(DIFFICULTIES)


def test_the_api_stores_an_answer_by_position(api_client, cloze):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/cloze/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit",
                        json={"answer": {"option": 2, "difficulty": "medium"}})
    assert response.status_code == 201, response.get_json()
    [kept] = submitted_by("bot")
    assert kept.answer == {"option": "2", "difficulty": "medium"}
    assert _labels(kept) == {"option": "2", "difficulty": "medium"}


@pytest.mark.parametrize("answer, said", [
    ({"option": "grew", "difficulty": "easy"}, "option: 'grew' is not one of '0', '1', '2', '3', '4'"),
    ({"option": 5, "difficulty": "easy"}, "option: '5' is not one of '0', '1', '2', '3', '4'"),
    ({"option": 1, "difficulty": 2}, "difficulty: '2' is not one of 'easy', 'medium', 'hard'"),
])
def test_the_api_refuses_an_answer_that_is_not_a_position_with_a_422(api_client, cloze, answer, said):
    api = api_client("bot")
    assignment = api.post("/api/v1/projects/cloze/next").get_json()["assignment"]
    response = api.post(f"/api/v1/assignments/{assignment['id']}/submit", json={"answer": answer})
    assert response.status_code == 422
    assert said in response.get_json()["error"]
    assert submitted_by("bot") == []


def test_the_hit_page_offers_the_positions_labelled_with_the_words_and_stores_the_chosen_one(login, make_user, cloze):
    make_user("ann")
    client = login("ann")
    page = open_hit_page(client, "cloze")
    html = page.get_data(as_text=True)
    assert page.status_code == 200
    for position in range(5):
        assert f'value="{position}"' in html
    lease = _submitted_lease("ann")
    word = lease.item.payload["options"][3]
    assert word in html
    action = f"/p/cloze/a/{lease.id}"
    response = client.post(action, data={"csrf_token": csrf_token(html), "q_option": "3", "q_difficulty": "hard"})
    assert response.status_code == 302, response.get_data(as_text=True)[:2000]
    [kept] = submitted_by("ann")
    assert kept.answer == {"option": "3", "difficulty": "hard"}


def _submitted_lease(username: str) -> Assignment:
    return db.session.scalars(select(Assignment).join(User, User.id == Assignment.user_id).where(
        User.username == username)).one()


def test_flask_export_of_the_cloze_holds_the_positions(app, make_user, run_shared, tmp_path):
    declared, _ = _kept_cloze(run_shared, make_user, k=4)
    out = tmp_path / "out"
    result = app.test_cli_runner().invoke(args=["export", "custom", "--project", declared.slug, "--out", str(out)])
    assert result.exit_code == 0, result.output
    votes = list(csv.DictReader(io.StringIO((out / "votes.csv").read_text(encoding="utf-8"))))
    assert votes and {v["option"] for v in votes} <= {"0", "1", "2", "3", "4"}
    assert {v["difficulty"] for v in votes} <= set(DIFFICULTIES)
    gold = list(csv.DictReader(io.StringIO((out / "gold.csv").read_text(encoding="utf-8"))))
    assert {g["gold"] for g in gold if g["question"] == "option"} <= {"0", "1", "2", "3", "4", UNDECIDED}
    assert {g["gold"] for g in gold if g["question"] == "difficulty"} <= {*DIFFICULTIES, UNDECIDED}
    card = (out / "dataset" / "README.md").read_text(encoding="utf-8")
    assert "stored by position" in card


# --- RuArg-2022 premise stage: one figure pooled over the three claims' questions ---------------------------------

PREMISE = SHARED_TASKS / "ruarg2022" / "premise.yaml"


def _pooled_premise_definition() -> Definition:
    """premise.yaml as it is: each claim's question pooled into one figure, as the built-in's "all labels"."""
    definition = definition_from_file(PREMISE)
    assert [q.pooled for q in definition.questions] == ["all_labels"] * 3
    return definition


def _premise_project(make_user: Callable[..., User], k: int) -> tuple[Project, Callable[[str, int], dict[str, int]]]:
    """A stance stage answered by k annotators, its premise stage made from its gold (a declared project of
    premise.yaml as it is), answered; and the premise codes annotator n gives a sentence."""
    stance = load_project("ruarg2022", DATA / "ruarg2022" / "train_excerpt.tsv", "st", k=k, stage="stance")
    users = _users(make_user, k)

    def relevant(item: str, claim: str) -> bool:
        return random.Random(f"{item}/{claim}/relevant").random() < 0.6

    def stance_answer(lease: Assignment, annotator: int) -> dict[str, Any]:
        item = lease.item.payload["id"]
        return {"claims": {claim: {"relevance": "relevant", "stance": str(_rng(item, annotator).choice(CODES))}
                           if relevant(item, claim) else {"relevance": "irrelevant"} for claim in CLAIMS}}
    _replay(stance, users, stance_answer)
    create_premise_stage("st", "pr", k=k, by=who())
    premise = db.session.scalar(select(Project).where(Project.slug == "pr"))
    assert premise is not None
    assert premise.definition == json.loads(json.dumps(_pooled_premise_definition().to_data()))
    asked = {item.external_id: item.payload["claims"] for item in premise.items}

    def codes(item: str, annotator: int) -> dict[str, int]:
        rng = _rng(item, annotator)
        return {claim: rng.choice(CODES) for claim in asked[item]}

    def declared_answer(lease: Assignment, annotator: int) -> dict[str, Any]:
        return {f"{c}_premise": str(code) for c, code in codes(lease.item.external_id, annotator).items()}
    assert _replay(premise, users, declared_answer) > 0
    return premise, codes


def test_ruarg2022_premise_stage_pooled_figure_is_the_textbook_figure_over_every_claim_s_premise(app, make_user):
    """The built-in's "all labels" of a premise stage: one figure over every (sentence, claim asked), worked out
    here by the textbook formulas from the votes."""
    premise, codes = _premise_project(make_user, k=3)
    found = _figures(premise)
    ratings = {f"{item.external_id}|{claim}": [str(codes(item.external_id, n)[claim]) for n in range(3)]
               for item in premise.items for claim in item.payload["claims"]}
    expected = (round(fleiss_kappa(ratings), 12), round(krippendorff_alpha(ratings), 12), len(ratings))
    assert found["all_labels (pooled)"] == pytest.approx(expected) and expected[1] is not None
    per_claim = [f for f in found if f.endswith("_premise")]
    assert len(per_claim) >= 2 and all(found[f] != found["all_labels (pooled)"] for f in per_claim)
