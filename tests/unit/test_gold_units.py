"""Each task type's gold per agreement unit, in the agreement units' own terms (what Dawid-Skene is compared with)."""
from __future__ import annotations

import pandas as pd

from annotator.analysis.results import LABEL_COLUMNS
from annotator.declared.items import load_definition
from annotator.tasks import TaskType, settings_with_defaults, task_type
from annotator.tasks.custom import DeclaredTask
from tests.conftest import TESTS

SHARED_TASKS = TESTS.parent / "annotator" / "shared_tasks"


def _labels(rows: list[tuple[str, str, str, str, int]]) -> pd.DataFrame:
    return pd.DataFrame([(item, 0, unit, field, value, user, n) for n, (item, unit, field, value, user)
                         in enumerate(rows)], columns=LABEL_COLUMNS)


def _gold_units(name: str | TaskType, labels: pd.DataFrame) -> dict[str, dict[str, str]]:
    task = task_type(name) if isinstance(name, str) else name
    units = task.gold_units(task.gold(labels, settings_with_defaults(task, None)))
    agreement = task.agreement_units(labels)
    assert set(units) <= set(agreement)  # only fields the agreement units have
    for field, series in units.items():
        assert set(series.index) <= set(agreement[field]["unit"])
    return {field: dict(series.items()) for field, series in units.items()}


def _kpa(definition: str) -> DeclaredTask:
    """KPA-2021's definitions: every KPA project is a declared project of one (the built-in types are gone)."""
    return DeclaredTask(load_definition(SHARED_TASKS / "kpa2021" / definition))


def test_kp_match_gold_units_leave_undecided_pairs_out() -> None:
    """match.yaml's share rule: 2 of 2 a match, 0 of 2 no match, 1 of 2 undecided (left out)."""
    labels = _labels([("a1", "kp1", "matches", "1", 1), ("a1", "kp1", "matches", "1", 2),
                      ("a1", "kp2", "matches", "0", 1), ("a1", "kp2", "matches", "0", 2),
                      ("a1", "kp3", "matches", "1", 1), ("a1", "kp3", "matches", "0", 2)])
    assert _gold_units(_kpa("match.yaml"), labels) == {"matches": {"a1 / kp1": "1", "a1 / kp2": "0"}}


def test_kp_match_check_gold_units_say_match_or_no_match() -> None:
    """match_check.yaml: the verdict by strict majority (a tie no match), and the merged "match" figure's unit with
    faulty counted as no."""
    labels = _labels([("p1", "verdict", "verdict", "yes", 1), ("p1", "verdict", "verdict", "yes", 2),
                      ("p2", "verdict", "verdict", "faulty", 1), ("p2", "verdict", "verdict", "no", 2)])
    assert _gold_units(_kpa("match_check.yaml"), labels) == {
        "verdict": {"p1 / verdict": "yes", "p2 / verdict": "no"},
        "verdict: match": {"p1 / verdict": "match", "p2 / verdict": "no match"}}


def test_emphasis_gold_units_are_emphasised_by_most() -> None:
    """The declared project of the shared task's definition (the built-in type is gone): a word is emphasised in gold
    when more than half its annotators selected it (2 of 2 yes, 1 of 2 no)."""
    labels = _labels([("s1", "s1_0", "emphasis", "1", 1), ("s1", "s1_0", "emphasis.bio", "B", 1),
                      ("s1", "s1_0", "emphasis", "1", 2), ("s1", "s1_0", "emphasis.bio", "B", 2),
                      ("s1", "s1_1", "emphasis", "0", 1), ("s1", "s1_1", "emphasis.bio", "O", 1),
                      ("s1", "s1_1", "emphasis", "1", 2), ("s1", "s1_1", "emphasis.bio", "I", 2)])
    task = DeclaredTask(load_definition(SHARED_TASKS / "emphasis2020" / "selection.yaml"))
    assert _gold_units(task, labels) == {"emphasis": {"s1 / s1_0": "1", "s1 / s1_1": "0"}}
