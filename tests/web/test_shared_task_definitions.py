"""Each shared task's definition (annotator/shared_tasks/*/*.yaml) against its built-in HIT type, on the same votes.

For every definition a built-in project is imported from the task's files (tests/data excerpts; the full files of
../shared/data under the `shared_data` marker), a declared project of the definition gets the same items, and the
same annotators answer both: each answer is drawn by a generator seeded with (item, annotator), so an annotator gives
the same answer in both projects, written in each HIT's own shape. k is large enough that undecided units occur.
Then the declared gold must be the built-in gold unit by unit (undecided ones included) and the agreement the same
figures (Fleiss' kappa and Krippendorff's alpha of the fields both report). Where the built-in type is gone
(emphasis, ReCAM cloze, KPA-2021's three, RuArg-2022) the declared project alone is answered and its gold and
figures are worked out here from the votes (the paper's rule, a majority, the textbook formulas).

Every definition reads the built-in items as they are (key paths, kept fields and token objects:
docs/declared-item-paths.md; RuArg-2022's premise stage its `claims` through item conditions:
docs/declared-item-when.md). Each definition file's comment names the keys the format lacks (docs/one-engine.md lists
them all).

How the votes get in (`Annotators`): what is compared is gold and agreement, computed from the label rows that each
side's own answer check made of the same answers. So most tests store the votes in one bulk import
(campaigns/votes_import.import_votes), which runs every answer through the project's `labels()`, the check a live
submit runs (the declared engine's for a declared project), and refuses the whole import if one fails; a vote
replayed through `next_for` / `submit` instead costs a lease and a submit transaction per vote and per project (the
whole ReCAM test set and RuArg validation set took 40 s each on SQLite that way). One excerpt-sized test per
definition still has its annotators take and submit every HIT through the live engine, so the path an annotator
takes is covered for every definition; the engine's lease and submit rules themselves have their own tests
(tests/web/test_assignment.py). Bulk votes have no drawn presentation (A and B are the item's own order), live ones
do: the answers are written for the HIT as shown either way.
"""
from __future__ import annotations

import functools
import json
import random
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from annotator.analysis.agreement import FieldAgreement
from annotator.analysis.results import labels_frame, project_agreement
from annotator.campaigns.votes_import import import_votes
from annotator.core.audit import who
from annotator.core.extensions import db
from annotator.core.models import Item, Project, User
from annotator.declared.definition import NOT_ASKED, UNDECIDED
from annotator.declared.items import load_definition, read_items
from annotator.engine import assignment as engine
from annotator.figures.kept_gold import gold_frame
from annotator.shared_tasks.ruarg2022.stages import create_premise_stage
from annotator.tasks.base import HitItem
from tests.conftest import DATA, SHARED_DATA, load_project
from tests.support.declared_projects import make_declared_project
from tests.support.nominal_figures import fleiss_kappa, krippendorff_alpha

SHARED_TASKS = Path(__file__).resolve().parents[2] / "annotator" / "shared_tasks"
DEFINITIONS = ("kpa2021/match.yaml", "kpa2021/match_check.yaml", "kpa2021/set_compare.yaml",
               "emphasis2020/selection.yaml", "ruarg2022/stance_premise.yaml", "ruarg2022/stance.yaml",
               "ruarg2022/premise.yaml", "recam2021/cloze.yaml")
CLAIMS = ["masks", "quarantine", "vaccines"]   # RuArg-2022's
CODES = (2, 0, 1)                               # the data set's: for, against, other / no argument
Shown = Mapping[str, Any] | None   # the presentation drawn for a lease (which side is A), None when none was
Answer = Callable[[HitItem, Shown, int], dict[str, Any]]   # annotator n's answer to an item, as the HIT shows it


# --- helpers ------------------------------------------------------------------------------------------------------

def _rng(item: str, annotator: int, what: str = "") -> random.Random:
    return random.Random(f"{item}/{annotator}/{what}")


@functools.cache
def _chance(item: str, unit: str, chances: tuple[float, ...] = (0.05, 0.4, 0.6, 0.95)) -> float:
    """How likely every annotator is to pick `unit` of `item`: some units clear, others split. The same for every
    annotator, so drawn once per (item, unit, chances): seeding a generator with a string hashes it (SHA-512), and
    the whole splits' answers asked this 75,000 times."""
    return random.Random(f"{item}/{unit}").choice(chances)


@dataclass(frozen=True)
class Annotators:
    """k annotators who answer every item of a project: through the live engine when they are `users`, else
    stored as one bulk import of the same answers (the module docstring says why and when)."""

    k: int
    users: tuple[User, ...] | None = None

    @classmethod
    def live(cls, make_user: Callable[..., User], k: int) -> Annotators:
        return cls(k, tuple(make_user(f"ann{n}") for n in range(k)))

    def answer_all(self, project: Project, answer: Answer) -> int:
        """Every annotator's vote on every item, committed; the number of votes stored."""
        if self.users is None:
            items = db.session.scalars(select(Item).where(Item.project_id == project.id).order_by(Item.position))
            answers = {item.external_id: [answer(item, None, n) for n in range(self.k)] for item in items}
            votes = import_votes(project, answers).votes
            db.session.commit()
            return votes
        votes = 0
        for n, user in enumerate(self.users):
            while (lease := engine.next_for(user, project)) is not None:
                engine.submit(lease.id, user, answer(lease.item, lease.presentation, n))
                votes += 1
        return votes


def _declared(slug: str, definition: str, built_in: Project, k: int) -> Project:
    """A declared project of the definition holding the built-in project's items as they are, in order."""
    payloads = db.session.scalars(select(Item.payload).where(Item.project_id == built_in.id).order_by(Item.position))
    return make_declared_project(slug, SHARED_TASKS / definition, items=[dict(p) for p in payloads], k=k)


def _figures(project: Project) -> dict[str, tuple[float | None, float | None, int]]:
    """Per agreement field: Fleiss' kappa, Krippendorff's alpha and the units they were computed on."""
    def rounded(value: float | None) -> float | None:
        return None if value is None else round(value, 12)
    found: dict[str, FieldAgreement] = {f.field: f for f in project_agreement(project)}
    return {name: (rounded(f.fleiss_kappa.value), rounded(f.krippendorff_alpha.value), f.units)
            for name, f in found.items()}


def _declared_gold(project: Project, question: str) -> dict[tuple[str, str], Any]:
    gold = gold_frame(project)
    return {(row.item, row.unit): row.gold for row in gold[gold["question"] == question].itertuples()}


# --- every definition ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("definition", DEFINITIONS)
def test_the_definition_file_loads_without_error(app, definition):
    loaded = load_definition(SHARED_TASKS / definition)
    assert loaded.questions and all(q.gold is not None for q in loaded.questions)


@pytest.mark.parametrize("definition, fmt, path, options", [
    ("ruarg2022/stance_premise.yaml", "ruarg2022", DATA / "ruarg2022" / "train_excerpt.tsv", {}),
    ("recam2021/cloze.yaml", "recam2021", DATA / "recam2021" / "Task_1_test_excerpt.jsonl", {}),
])
def test_the_items_file_reader_reads_the_built_in_items_as_they_are(app, tmp_path, definition, fmt, path, options):
    built_in = load_project(fmt, path, "built-in", **options)
    payloads = [dict(p) for p in db.session.scalars(select(Item.payload).where(Item.project_id == built_in.id)
                                                    .order_by(Item.position))]
    items = tmp_path / "items.jsonl"
    items.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in payloads), encoding="utf-8")
    read = read_items(items, load_definition(SHARED_TASKS / definition))
    assert [(item.external_id, {"id": item.external_id, **item.payload}) for item in read] == \
        [(p["id"], p) for p in payloads]


# --- KPA-2021 Track 1: argument / key-point match -----------------------------------------------------------------
# The built-in types are gone (docs/one-engine.md): the expected values are the tasks' rules and the textbook
# figures worked out from the votes the declared projects store, as for emphasis below.

def _kpa_answer(item: HitItem, shown: Shown, annotator: int) -> dict[str, Any]:
    payload = item.payload
    rng = _rng(payload["id"], annotator)
    return {"matches": [kp["id"] for kp in payload["key_points"] if rng.random() < _chance(payload["id"], kp["id"])]}


def _stored_votes(project: Project, field: str) -> dict[tuple[str, str], list[str]]:
    """Each unit's values of `field` as stored, by (item, unit): the input of the figures worked out here."""
    rows = labels_frame(project)
    rows = rows[rows["field"] == field]
    votes: dict[tuple[str, str], list[str]] = {}
    for item, unit, value in zip(rows["item"], rows["unit"], rows["value"]):
        votes.setdefault((item, unit), []).append(str(value))
    return votes


def _textbook_figures(project: Project, field: str) -> tuple[float, float, int]:
    """Fleiss' kappa, Krippendorff's alpha and the units of `field` by the textbook formulas (nominal_figures)."""
    ratings = {f"{item} / {unit}": values for (item, unit), values in _stored_votes(project, field).items()}
    return round(fleiss_kappa(ratings), 12), round(krippendorff_alpha(ratings), 12), len(ratings)


def _kpa_project(path: Path, annotators: Annotators) -> Project:
    declared = load_project("kpa2021", path, "kpa-declared", split="test", k=annotators.k)
    assert annotators.answer_all(declared, _kpa_answer) > 0
    return declared


def _argkp_gold(project: Project) -> dict[tuple[str, str], str]:
    """ArgKP's rule (Bar-Haim et al., ACL 2020) on the stored votes: a pair matched by at least 60 % of its
    annotators is a match, by at most 15 % no match, undecided between."""
    expected = {}
    for key, values in _stored_votes(project, "matches").items():
        share = values.count("1") / len(values)
        expected[key] = "1" if share >= 0.6 else "0" if share <= 0.15 else UNDECIDED
    return expected


def test_kpa2021_match_gold_is_argkps_rule_pair_by_pair(app, make_user):
    declared = _kpa_project(DATA / "kpa2021", Annotators.live(make_user, 5))
    expected = _argkp_gold(declared)
    assert _declared_gold(declared, "matches") == expected
    assert set(expected.values()) == {"1", "0", UNDECIDED}


def test_kpa2021_match_agreement_is_the_textbook_figure(app, make_user):
    """Was: equal to a built-in project's "match" figure on the same votes."""
    declared = _kpa_project(DATA / "kpa2021", Annotators.live(make_user, 5))
    expected = _textbook_figures(declared, "matches")
    assert _figures(declared)["matches"] == pytest.approx(expected, abs=1e-9)
    assert -1 < expected[1] < 1


@pytest.mark.shared_data
def test_kpa2021_match_gold_and_agreement_on_the_whole_test_split(app):
    declared = _kpa_project(SHARED_DATA / "kpa2021" / "test_data", Annotators(3))
    expected = _argkp_gold(declared)
    pairs = sum(len(item.payload["key_points"]) for item in declared.items)   # 723 arguments, 3923 pairs
    assert len(declared.items) == 723 and len(expected) == pairs == 3923
    assert _declared_gold(declared, "matches") == expected
    assert _figures(declared)["matches"] == pytest.approx(_textbook_figures(declared, "matches"), abs=1e-9)


# --- KPA-2021 Track 2: the match check ----------------------------------------------------------------------------

VERDICTS = ("yes", "no", "faulty")


def _check_answer(item: HitItem, shown: Shown, annotator: int) -> dict[str, Any]:
    key = item.payload["id"]
    yes = _chance(key, "yes", (0.1, 0.5, 0.9))
    return {"verdict": _rng(key, annotator).choices(VERDICTS, weights=(yes, (1 - yes) * 0.7, (1 - yes) * 0.3))[0]}


def _check_project(annotators: Annotators) -> Project:
    declared = load_project("kpa2021-check", DATA / "kpa2021_track2", "chk-declared", split="test", k=annotators.k)
    assert annotators.answer_all(declared, _check_answer) > 0
    return declared


def test_kpa2021_match_check_gold_is_the_overviews_majority(app, make_user):
    """Friedman et al. 2021, 3.3.2: faulty counts as no match, a binary label by the judges' majority; at k = 4 two
    yes against a no and a faulty is a tie, no match."""
    declared = _check_project(Annotators.live(make_user, 4))
    votes = _stored_votes(declared, "verdict")
    expected = {key: "yes" if 2 * values.count("yes") > len(values) else "no" for key, values in votes.items()}
    assert _declared_gold(declared, "verdict") == expected
    assert any(2 * values.count("yes") == len(values) for values in votes.values())   # ties
    assert set(expected.values()) == {"yes", "no"}


def test_kpa2021_match_check_agreement_on_the_verdict_is_the_textbook_figure(app):
    declared = _check_project(Annotators(4))
    expected = _textbook_figures(declared, "verdict")
    assert _figures(declared)["verdict"] == pytest.approx(expected, abs=1e-9)
    assert expected[1] is not None


# --- KPA-2021 Track 2: the comparison of key-point sets -----------------------------------------------------------

STANCES = ("all_support", "all_contest", "most_support", "most_contest")
COMPARED = ("less_redundant", "more_central")


def _judgment(item: str, systems: tuple[str, str], annotator: int) -> dict[str, Any]:
    """One judge's answers in system names: each set's stance, and the winner (or equal) of each comparison."""
    rng = _rng(item, annotator, "compare")
    judged: dict[str, Any] = {"stance": {s: rng.choice(STANCES) for s in systems}}
    for question in COMPARED:
        favourite = systems[0] if _chance(item, question, (0.2, 0.5, 0.8)) > 0.5 else systems[1]
        roll = rng.random()
        judged[question] = favourite if roll < 0.6 else "equal" if roll < 0.75 else \
            next(s for s in systems if s != favourite)
    return judged


def _compare_declared_answer(item: HitItem, presentation: Shown, annotator: int) -> dict[str, Any]:
    payload = item.payload
    systems = (payload["systems"][0], payload["systems"][1])
    judged = _judgment(payload["id"], systems, annotator)
    swapped = set((presentation or {}).get("swapped") or ())
    shown = systems[::-1] if swapped else systems   # one order for the HIT: both comparisons or neither
    answer: dict[str, Any] = {"each_summary": {side: {"stance": judged["stance"][system]}
                                               for side, system in zip("AB", shown)}}
    for question in COMPARED:
        side = {systems[0]: "A", systems[1]: "B", "equal": "equal"}[judged[question]]
        answer[question] = {"A": "B", "B": "A"}.get(side, side) if question in swapped else side
    return answer


def _compare_project(annotators: Annotators) -> Project:
    declared = load_project("kpa2021-compare", DATA / "kpa2021_track2", "cmp-declared", split="test",
                            k=annotators.k)
    assert annotators.answer_all(declared, _compare_declared_answer) > 0
    return declared


def _declared_tally(project: Project) -> dict[tuple[str, str], Counter[str]]:
    """The declared gold's vote counts ("A: 2, equal: 1") in the built-in's terms: system names, and the stance of
    each side (its unit the system's name) with values naming the system ("alpha: all_support")."""
    items = {item.external_id: item.payload for item in project.items}
    found: dict[tuple[str, str], Counter[str]] = {}
    for row in gold_frame(project).itertuples():
        systems = {"A": items[row.item]["systems"][0], "B": items[row.item]["systems"][1]}
        field = row.question
        if field == "right_stance":   # derived from the stances
            continue
        counts = found.setdefault((row.item, field), Counter())
        for value, _, count in (part.rpartition(": ") for part in row.votes.split(", ")):
            if field == "stance":
                counts[f"{row.unit}: {value}"] += int(count)
            else:
                counts[systems.get(value, value)] += int(count)
    return found


def test_kpa2021_set_compare_tallies_are_the_judges_answers_item_by_item(app, make_user):
    """Whatever order each lease drew, the declared tallies in system names are the judgments the judges made
    (`_judgment`), as the built-in's gold tallied them ("alpha ×2, equal ×1"; "alpha: all_support ×1")."""
    annotators = Annotators.live(make_user, 5)
    declared = _compare_project(annotators)   # A and B drawn per lease
    expected: dict[tuple[str, str], Counter[str]] = {}
    for item in declared.items:
        systems = tuple(item.payload["systems"])
        for n in range(annotators.k):
            judged = _judgment(item.external_id, systems, n)
            for question in COMPARED:
                expected.setdefault((item.external_id, question), Counter())[judged[question]] += 1
            for system in systems:
                expected.setdefault((item.external_id, "stance"), Counter())[
                    f"{system}: {judged['stance'][system]}"] += 1
    assert _declared_tally(declared) == expected and len(expected) == 3 * len(declared.items)
    assert any(counts["equal"] for counts in expected.values())


# --- SemEval-2020 Task 10: emphasis selection ---------------------------------------------------------------------

def _emphasised(item: str, words: int, annotator: int) -> list[int]:
    rng = _rng(item, annotator)
    return [n for n in range(words) if rng.random() < _chance(item, str(n), (0.05, 0.3, 0.6, 0.9))]


def _emphasis_declared_answer(item: HitItem, shown: Shown, annotator: int) -> dict[str, Any]:
    return {"emphasis": _emphasised(item.payload["id"], len(item.payload["words"]), annotator)}


def _emphasis_project(path: Path, annotators: Annotators) -> Project:
    """The import's project (a declared project of selection.yaml: the built-in type is gone), every item voted."""
    declared = load_project("emphasis2020", path, "emph-declared", k=annotators.k)
    assert annotators.answer_all(declared, _emphasis_declared_answer) > 0
    return declared


def emphasis_votes(project: Project, field: str = "emphasis") -> dict[tuple[str, str], list[str]]:
    """Each word's values of `field` as stored, by (item, word id): the input of the figures worked out by hand."""
    rows = labels_frame(project)
    rows = rows[rows["field"] == field]
    votes: dict[tuple[str, str], list[str]] = {}
    for item, unit, value in zip(rows["item"], rows["unit"], rows["value"]):
        votes.setdefault((item, unit), []).append(str(value))
    return votes


def emphasis_expected_gold(project: Project) -> dict[tuple[str, str], float]:
    """The paper's gold (Shirani et al., SemEval-2020): a word's probability is the share of its annotators who
    selected it, as the built-in type computed it ((#B + #I) / n)."""
    return {key: values.count("1") / len(values) for key, values in emphasis_votes(project).items()}


def emphasis_expected_figures(project: Project, field: str) -> tuple[float, float, int]:
    """Fleiss' kappa, Krippendorff's alpha and the units of `field` by the textbook formulas (nominal_figures)."""
    ratings = {f"{item} / {unit}": values for (item, unit), values in emphasis_votes(project, field).items()}
    return round(fleiss_kappa(ratings), 12), round(krippendorff_alpha(ratings), 12), len(ratings)


def test_emphasis2020_gold_probabilities_equal_the_papers_rule_word_by_word(app, make_user):
    """Was: equal to a built-in emphasis project's gold on the same votes; the built-in type is gone, so the
    expected values are the paper's rule worked out from the stored votes."""
    declared = _emphasis_project(DATA / "emphasis2020" / "dev_excerpt.txt", Annotators.live(make_user, 9))
    expected = emphasis_expected_gold(declared)
    assert _declared_gold(declared, "emphasis") == expected
    assert {0.0, 1.0} & set(expected.values()) and any(0 < p < 1 for p in expected.values())


def test_emphasis2020_agreement_emphasised_or_not_is_the_textbook_figure(app):
    """Was: equal to the built-in's "emphasis" figure (emphasised or not); now the formulas' values."""
    declared = _emphasis_project(DATA / "emphasis2020" / "dev_excerpt.txt", Annotators(9))
    expected = emphasis_expected_figures(declared, "emphasis")
    assert _figures(declared)["emphasis"] == pytest.approx(expected, abs=1e-9)
    assert -1 < expected[0] < 1


@pytest.mark.shared_data
def test_emphasis2020_gold_and_agreement_on_the_whole_dev_set(app):
    declared = _emphasis_project(SHARED_DATA / "emphasis2020" / "train_dev_data" / "dev.txt", Annotators(3))
    expected = emphasis_expected_gold(declared)
    assert len(expected) == 4385 and _declared_gold(declared, "emphasis") == expected
    assert _figures(declared)["emphasis"] == pytest.approx(emphasis_expected_figures(declared, "emphasis"), abs=1e-9)


# --- RuArg-2022: stance and premise per claim, in one HIT ---------------------------------------------------------
# The built-in stance_premise type is gone: the expected gold is the paper's rules worked out from the votes
# (Kotelnikov et al., Dialogue 2022: a claim relevant when at least two annotators found it so, section 3.1; a label
# the one code at least m of the relevant votes gave, section 3.2), and the figures the textbook formulas'
# (nominal_figures), "irrelevant" a value of each claim's stance and premise as the paper counts it (section 3.4).

def _ruarg_votes(item: str, annotator: int) -> dict[str, tuple[int, int] | None]:
    """Per claim (stance, premise), or None when the annotator finds the claim irrelevant."""
    rng = _rng(item, annotator)
    return {claim: (rng.choice(CODES), rng.choice(CODES))
            if rng.random() < _chance(item, claim, (0.1, 0.4, 0.6, 0.9)) else None for claim in CLAIMS}


def _ruarg_declared_answer(item: HitItem, shown: Shown, annotator: int) -> dict[str, Any]:
    """The votes in the definition's terms: its repeat group `claims` asks relevance, then stance and premise of a
    relevant claim, once per claim."""
    claims: dict[str, dict[str, str]] = {}
    for claim, codes in _ruarg_votes(item.payload["id"], annotator).items():
        claims[claim] = {"relevance": "relevant" if codes else "irrelevant"}
        if codes:
            claims[claim] |= {"stance": str(codes[0]), "premise": str(codes[1])}
    return {"claims": claims}


def _ruarg_project(path: Path, annotators: Annotators) -> Project:
    """A declared project of stance_premise.yaml holding the file's sentences as the format reads them, answered."""
    read = load_project("ruarg2022", path, "ruarg", k=annotators.k)
    declared = _declared("ruarg-declared", "ruarg2022/stance_premise.yaml", read, annotators.k)
    assert annotators.answer_all(declared, _ruarg_declared_answer) == annotators.k * len(read.items)
    return declared


def _agreed(codes: list[int], m: int = 2) -> str:
    """The one code at least m votes gave, else undecided."""
    winners = [code for code, n in Counter(codes).items() if n >= m]
    return str(winners[0]) if len(winners) == 1 else UNDECIDED


def _ruarg_expected(items: list[str], k: int, labels: tuple[str, ...] = ("stance", "premise"),
                    votes: Callable[[str, int], dict[str, tuple[int, int] | None]] = _ruarg_votes,
                    ) -> dict[tuple[str, str], str]:
    """Each (sentence, claim)'s relevance and labels by the paper's rules, from the k votes `votes` draws."""
    expected: dict[tuple[str, str], str] = {}
    for item in items:
        given = [votes(item, n) for n in range(k)]
        for claim in CLAIMS:
            relevant = [codes for vote in given if (codes := vote[claim]) is not None]
            expected[(item, f"{claim}_relevance")] = "relevant" if len(relevant) >= 2 else "irrelevant"
            for position, label in enumerate(("stance", "premise")):
                if label in labels:
                    expected[(item, f"{claim}_{label}")] = NOT_ASKED if len(relevant) < 2 else \
                        _agreed([codes[position] for codes in relevant])
    return expected


def _ruarg_found(declared: Project) -> dict[tuple[str, str], Any]:
    """The declared gold keyed as _ruarg_expected keys it: the repeat group's unit is the claim."""
    return {(row.item, f"{row.unit}_{row.question}"): row.gold for row in gold_frame(declared).itertuples()}


def _items_of(project: Project) -> list[str]:
    return [item.external_id for item in project.items]


def _textbook(ratings: dict[str, list[str]]) -> tuple[float, float, int]:
    return round(fleiss_kappa(ratings), 12), round(krippendorff_alpha(ratings), 12), len(ratings)


def _label_ratings(items: list[str], k: int, claim: str, position: int) -> dict[str, list[str]]:
    """A claim's stance (position 0) or premise (1) of every sentence, "irrelevant" a value."""
    return {item: [str(codes[position]) if (codes := _ruarg_votes(item, n)[claim]) else "irrelevant"
                   for n in range(k)] for item in items}


def test_ruarg2022_gold_is_the_paper_s_rules(app, make_user):
    declared = _ruarg_project(DATA / "ruarg2022" / "train_excerpt.tsv", Annotators.live(make_user, 3))
    expected = _ruarg_expected(_items_of(declared), 3)
    assert _ruarg_found(declared) == expected
    assert {NOT_ASKED, UNDECIDED} <= set(expected.values()) and set(expected.values()) & {"2", "0", "1"}


def test_ruarg2022_declared_agreement_pools_each_question_over_the_three_claims(app):
    """The repeat group gives one figure per question over every (sentence, claim); with irrelevant counted as a
    value of stance and premise (`not_asked`), every sentence's three claims are units of all three."""
    declared = _ruarg_project(DATA / "ruarg2022" / "train_excerpt.tsv", Annotators(5))
    found = _figures(declared)
    assert {"relevance", "stance", "premise"} <= set(found)
    assert all(found[q][2] == 3 * len(declared.items) for q in ("relevance", "stance", "premise"))


def test_ruarg2022_agreement_on_each_claims_stance_is_the_textbook_figure_with_irrelevant_a_value(app):
    """RuArg-2022 counts "irrelevant" as a value of each claim's stance and premise (Kotelnikov et al., §3.2 and
    §3.4), as the built-in type did; the definition says so with `not_asked: irrelevant` and `per_element: true`
    (docs/declared-not-asked.md)."""
    declared = _ruarg_project(DATA / "ruarg2022" / "train_excerpt.tsv", Annotators(5))
    found, items = _figures(declared), _items_of(declared)
    for position, label in enumerate(("stance", "premise")):
        assert {claim: found[f"{label} / {claim}"] for claim in CLAIMS} == \
            {claim: pytest.approx(_textbook(_label_ratings(items, 5, claim, position))) for claim in CLAIMS}
    assert all(found[f"stance / {claim}"][1] is not None for claim in CLAIMS)


def test_ruarg2022_agreement_over_all_labels_is_the_textbook_figure(app):
    """One figure over every (sentence, claim, label), irrelevant a value: the paper's headline alpha."""
    declared = _ruarg_project(DATA / "ruarg2022" / "train_excerpt.tsv", Annotators(5))
    items = _items_of(declared)
    ratings = {f"{item}|{claim}|{position}": values for claim in CLAIMS for position in (0, 1)
               for item, values in _label_ratings(items, 5, claim, position).items()}
    assert _figures(declared)["all_labels (pooled)"] == pytest.approx(_textbook(ratings))


@pytest.mark.shared_data
def test_ruarg2022_gold_is_the_paper_s_rules_on_the_whole_validation_set(app):
    declared = _ruarg_project(SHARED_DATA / "ruarg2022" / "data" / "val_empty.tsv", Annotators(3))
    assert len(declared.items) == 1431 and _ruarg_found(declared) == _ruarg_expected(_items_of(declared), 3)


# --- RuArg-2022: the stance stage (relevance and stance) -----------------------------------------------------------

def _stance_project(annotators: Annotators) -> Project:
    read = load_project("ruarg2022", DATA / "ruarg2022" / "train_excerpt.tsv", "st", k=annotators.k,
                        stage="stance")
    declared = _declared("st-declared", "ruarg2022/stance.yaml", read, annotators.k)

    def declared_answer(item: HitItem, shown: Shown, annotator: int) -> dict[str, Any]:
        votes = _ruarg_votes(item.payload["id"], annotator)
        return {"claims": {claim: {"relevance": "relevant", "stance": str(codes[0])} if codes else
                           {"relevance": "irrelevant"} for claim, codes in votes.items()}}
    assert annotators.answer_all(declared, declared_answer) == annotators.k * len(read.items)
    return declared


def test_ruarg2022_stance_stage_gold_is_the_paper_s_rules(app, make_user):
    declared = _stance_project(Annotators.live(make_user, 3))
    expected = _ruarg_expected(_items_of(declared), 3, labels=("stance",))
    assert _ruarg_found(declared) == expected
    assert {NOT_ASKED, "relevant", "irrelevant"} <= set(expected.values())


def test_ruarg2022_stance_stage_agreement_is_the_textbook_figures(app):
    """Relevance of each (sentence, claim), each claim's stance with irrelevant a value, and all the stance labels
    together."""
    declared = _stance_project(Annotators(5))
    found, items = _figures(declared), _items_of(declared)
    stances = {claim: _label_ratings(items, 5, claim, 0) for claim in CLAIMS}
    relevance = {f"{item}|{claim}": ["irrelevant" if value == "irrelevant" else "relevant" for value in values]
                 for claim, ratings in stances.items() for item, values in ratings.items()}
    expected = {"relevance": _textbook(relevance),
                "all_labels (pooled)": _textbook({f"{item}|{claim}": values for claim, ratings in stances.items()
                                                  for item, values in ratings.items()}),
                **{f"stance / {claim}": _textbook(ratings) for claim, ratings in stances.items()}}
    assert {name: found[name] for name in expected} == {name: pytest.approx(value) for name, value in expected.items()}


# --- RuArg-2022: the premise stage --------------------------------------------------------------------------------

def _premise_project(annotators: Annotators) -> tuple[Project, Callable[[str, int], dict[str, int]]]:
    """A stance stage answered by k annotators, its premise stage made from its gold (`flask premise-stage`'s
    function: a declared project of premise.yaml, each sentence with the claims it asks, `when: {item.claims:
    ...}`), answered; and the premise codes annotator n gives a sentence.

    The stance stage's votes go in as one import: that stage is only the source of the premise stage's items."""
    k = annotators.k
    stance = load_project("ruarg2022", DATA / "ruarg2022" / "train_excerpt.tsv", "st", k=k, stage="stance")

    def stance_answer(item: HitItem, shown: Shown, annotator: int) -> dict[str, Any]:
        votes = _ruarg_votes(item.payload["id"], annotator)
        return {"claims": {claim: {"relevance": "relevant", "stance": str(codes[0])} if codes else
                           {"relevance": "irrelevant"} for claim, codes in votes.items()}}
    assert Annotators(k).answer_all(stance, stance_answer) == k * len(stance.items)
    create_premise_stage("st", "pr", k=k, by=who())
    premise = db.session.scalar(select(Project).where(Project.slug == "pr"))
    assert premise is not None
    asked = {item.external_id: item.payload["claims"] for item in premise.items}

    def codes(item: str, annotator: int) -> dict[str, int]:
        rng = _rng(item, annotator, "premise")
        return {claim: rng.choice(CODES) for claim in asked[item]}

    def declared_answer(item: HitItem, shown: Shown, annotator: int) -> dict[str, Any]:
        return {f"{claim}_premise": str(code) for claim, code in codes(item.external_id, annotator).items()}
    assert annotators.answer_all(premise, declared_answer) == k * len(asked) > 0
    return premise, codes


def test_ruarg2022_premise_stage_gold_is_m_of_n_of_each_claim_asked(app, make_user):
    premise, codes = _premise_project(Annotators.live(make_user, 4))
    expected = {(item.external_id, f"{claim}_premise"): _agreed([codes(item.external_id, n)[claim] for n in range(4)])
                for item in premise.items for claim in item.payload["claims"]}
    gold = gold_frame(premise)
    assert {(row.item, row.question): row.gold for row in gold.itertuples()} == expected
    assert UNDECIDED in expected.values() and set(expected.values()) & {"2", "0", "1"}


def test_ruarg2022_premise_stage_agreement_per_claim_is_the_textbook_figure(app):
    premise, codes = _premise_project(Annotators(5))
    found = _figures(premise)
    ratings = {claim: {item.external_id: [str(codes(item.external_id, n)[claim]) for n in range(5)]
                       for item in premise.items if claim in item.payload["claims"]} for claim in CLAIMS}
    claims = [claim for claim in CLAIMS if len(ratings[claim]) > 1]
    assert claims and {c: found[f"{c}_premise"] for c in claims} == \
        {c: pytest.approx(_textbook(ratings[c])) for c in claims}


# --- SemEval-2021 Task 4 (ReCAM): cloze validation ----------------------------------------------------------------

DIFFICULTIES = ("easy", "medium", "hard")


@functools.cache
def _favourite(item: str, options: int) -> int:
    """The option every annotator of `item` leans to (drawn once per item, as `_chance`)."""
    return random.Random(f"{item}/favourite").randrange(options)


def _cloze_votes(item: str, options: int, annotator: int) -> tuple[int, int]:
    """(option index, difficulty index): the options favour one per question, more or less strongly."""
    rng = _rng(item, annotator)
    favourite = _favourite(item, options)
    option = favourite if rng.random() < _chance(item, "option", (0.3, 0.5, 0.9)) else rng.randrange(options)
    return option, rng.choices(range(3), weights=(3, 2, 1))[0]


def _cloze_declared_answer(item: HitItem, shown: Shown, annotator: int) -> dict[str, Any]:
    options = item.payload["options"]
    option, difficulty = _cloze_votes(item.payload["id"], len(options), annotator)
    return {"option": option, "difficulty": DIFFICULTIES[difficulty]}


def _cloze_project(path: Path, annotators: Annotators) -> Project:
    """A declared project of cloze.yaml (no evidence, no selection rules) holding the file's questions as the
    format reads them, answered by the annotators."""
    read = load_project("recam2021", path, "cz", k=annotators.k)
    declared = _declared("cz-declared", "recam2021/cloze.yaml", read, annotators.k)
    assert annotators.answer_all(declared, _cloze_declared_answer) == annotators.k * len(read.items)
    return declared


def _cloze_expected(project: Project, k: int) -> dict[tuple[str, str], str]:
    """Each question's majority of the k votes _cloze_votes draws, worked out here: the single most chosen option,
    undecided on a tie."""
    expected = {}
    for item in project.items:
        chosen = Counter(_cloze_votes(item.payload["id"], len(item.payload["options"]), n)[0] for n in range(k))
        (top, most), *rest = chosen.most_common()
        expected[(item.external_id, "option")] = UNDECIDED if rest and rest[0][1] == most else str(top)
    return expected


def test_recam2021_option_gold_is_the_majority_of_the_votes(app, make_user):
    declared = _cloze_project(DATA / "recam2021" / "Task_1_test_excerpt.jsonl", Annotators.live(make_user, 4))
    expected = _cloze_expected(declared, 4)
    assert _declared_gold(declared, "option") == expected and len(expected) == 3


@pytest.mark.shared_data
def test_recam2021_option_gold_is_the_majority_of_the_votes_on_the_whole_test_set(app):
    declared = _cloze_project(SHARED_DATA / "recam2021" / "data" / "test_data" / "Task_1_test.jsonl", Annotators(3))
    expected = _cloze_expected(declared, 3)
    assert _declared_gold(declared, "option") == expected and UNDECIDED in expected.values()
