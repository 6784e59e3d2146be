"""ReCAM's selection rules as the task paper states them (Zheng et al. 2021, SemEval-2021 Task 4, section 3 and
appendix E), written out here for the tests, independently of the app's rules (shared_tasks/recam2021/rules.py).

An annotation is valid when a) its annotator's accuracy on the questions with a known answer is above
`min_accuracy` (an annotator with no such answer is not judged by it), b) both evidence spans are marked
(`require_spans`), c) it is not rated easy with a wrong answer to a question with a known answer
(`easy_must_be_right`). A question with a known answer is kept, with that answer, when at least `keep_share` of its
valid annotations chose it; one without, when a single most chosen option has more than `majority_share` of them.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

DEFAULTS = {"min_accuracy": 0.4, "require_spans": True, "easy_must_be_right": True, "keep_share": 0.5,
            "majority_share": 0.5}
UNDECIDED = "undecided"


@dataclass(frozen=True)
class Vote:
    annotator: Any
    option: int
    difficulty: str
    passage: bool    # a passage span marked
    question: bool   # a question span marked


@dataclass(frozen=True)
class Selection:
    verdicts: dict[str, str]   # item -> the kept question's answer ("2"), or "undecided"
    failed_b: int              # annotations dropped for a missing span
    failed_c: int              # annotations rated easy and answered wrong


def paper_selection(votes: Mapping[str, Sequence[Vote]], known: Mapping[str, int],
                    settings: Mapping[str, Any] | None = None) -> Selection:
    rules = {**DEFAULTS, **(settings or {})}
    answered: dict[Any, list[bool]] = {}
    for item, given in votes.items():
        for vote in given:
            if item in known:
                answered.setdefault(vote.annotator, []).append(vote.option == known[item])
    accuracy = {who: sum(right) / len(right) for who, right in answered.items()}
    verdicts, failed_b, failed_c = {}, 0, 0
    for item, given in votes.items():
        valid = []
        for vote in given:
            a = vote.annotator in accuracy and not accuracy[vote.annotator] > rules["min_accuracy"]
            b = rules["require_spans"] and not (vote.passage and vote.question)
            c = rules["easy_must_be_right"] and vote.difficulty == "easy" and item in known \
                and vote.option != known[item]
            failed_b, failed_c = failed_b + bool(b), failed_c + bool(c)
            if not (a or b or c):
                valid.append(vote.option)
        verdict = UNDECIDED
        if valid and item in known:
            verdict = str(known[item]) if valid.count(known[item]) / len(valid) >= rules["keep_share"] else verdict
        elif valid:
            (top, most), *rest = Counter(valid).most_common()
            single = not rest or rest[0][1] < most
            verdict = str(top) if single and most / len(valid) > rules["majority_share"] else verdict
        verdicts[item] = verdict
    return Selection(verdicts, failed_b, failed_c)
