"""ReCAM's selection rules over cloze votes: which annotations are valid, which questions are kept.

The task paper (Zheng et al., SemEval-2021 Task 4, §3) kept an annotation when "a) the average accuracy
is higher than 40%; b) both text spans should not be empty; c) if the difficulty level is rated as easy,
then this data sample should be answered correctly". Read as rules over our rows:

a) the annotator's accuracy over every question of the project with a known answer that they answered is
   above ``min_accuracy`` (strictly); an annotator who answered no such question has no accuracy, and the
   rule cannot hold against them (the reason says so);
b) with ``require_spans``, both the passage span and the question span are marked;
c) with ``easy_must_be_right``, an annotation rated easy gives the known answer (no known answer: n/a).

A question with a known answer is kept when at least one annotation is valid and the share of valid
annotations that chose the known answer is at least ``keep_share``. A question without one is kept when
one option has more than ``majority_share`` of the valid annotations, and that option is its answer.
Every annotation and every question carries the reason for its fate, in words.

Pure functions of label rows and the known answers, so the admin page, the export and the tests see the
same decisions. `SELECTION_OPTIONS` are the rules' parameters with their defaults: the `recam_selection` rule's
parameters (selection_rule.py) and the import options that set them (exchange.py).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from annotator.core.options import Option

if TYPE_CHECKING:
    import pandas as pd

UNIT = "question"
FIELDS = ("option", "difficulty", "passage_span", "question_span")
DIFFICULTIES = ("easy", "medium", "hard")
ANNOTATION_COLUMNS = ["item", "assignment_id", "user_id", "option", "difficulty", "passage_span", "question_span",
                      "known", "correct", "accuracy", "valid", "reasons"]
ANNOTATOR_COLUMNS = ["user_id", "answered", "with_known_answer", "correct", "accuracy", "passes"]
QUESTION_COLUMNS = ["item", "unit", "known", "votes", "valid", "valid_correct", "share", "majority",
                    "majority_votes", "majority_share", "kept", "reason", "failed_a", "failed_b", "failed_c"]


def _share(name: str, default: float, label: str, help: str) -> Option:
    return Option(name, float, default, help, label=label, minimum=0.0, maximum=1.0, required=True)


SELECTION_OPTIONS = (
    _share("min_accuracy", 0.40, "Rule a: an annotator's accuracy must be above",
           "over the project's questions with a known answer; the task paper's 40%"),
    Option("require_spans", bool, True, "both the passage and the question span must be marked",
           label="Rule b: both spans marked"),
    Option("easy_must_be_right", bool, True, "an annotation rated easy must give the known answer",
           label="Rule c: easy means answered right"),
    _share("keep_share", 0.5, "Keep a question with a known answer when at least this share of its valid "
           "annotations chose it", "the task paper keeps questions whose annotators mostly answered right"),
    _share("majority_share", 0.5, "Keep a question without a known answer when one option has more than "
           "this share of its valid annotations", "its answer is then that option"),
)


@dataclass(frozen=True)
class Evaluation:
    """One run of the rules: per annotation, per annotator and per question."""

    annotations: pd.DataFrame
    annotators: pd.DataFrame
    questions: pd.DataFrame


def known_answers(references: Mapping[str, Any]) -> dict[str, int]:
    """Item external id -> the known option, from the items' reference answers ({"label": n})."""
    return {item: int(ref["label"]) for item, ref in references.items()
            if isinstance(ref, dict) and isinstance(ref.get("label"), int)}


def annotation_frame(labels: pd.DataFrame) -> pd.DataFrame:
    """One row per vote (item, assignment_id, user_id and the four fields), in vote order."""
    import pandas as pd
    votes = labels[labels["unit"] == UNIT]
    if votes.empty:
        return pd.DataFrame(columns=["item", "assignment_id", "user_id", *FIELDS])
    wide = votes.pivot_table(index=["item", "assignment_id", "user_id"], columns="field", values="value",
                             aggfunc="first", sort=False).reset_index()
    wide = wide.reindex(columns=["item", "assignment_id", "user_id", *FIELDS])
    wide["option"] = wide["option"].astype(int)
    return wide


def _span(value: Any) -> tuple[int, int] | None:
    if not isinstance(value, str) or not value:
        return None
    start, end = value.split(":")
    return int(start), int(end)


def annotator_accuracy(annotations: pd.DataFrame, known: Mapping[str, int], min_accuracy: float) -> pd.DataFrame:
    """Per annotator: answers, answers to questions with a known answer, correct ones, accuracy, rule a."""
    import pandas as pd
    rows = []
    for user, mine in annotations.groupby("user_id", sort=True):
        answers = [(option, known[item]) for item, option in zip(mine["item"], mine["option"]) if item in known]
        correct = sum(option == answer for option, answer in answers)
        accuracy = correct / len(answers) if answers else None
        rows.append((int(user), len(mine), len(answers), correct, accuracy,
                     None if accuracy is None else accuracy > min_accuracy))
    return pd.DataFrame(rows, columns=ANNOTATOR_COLUMNS)


def _reasons(row: Any, settings: Mapping[str, Any], passes: bool | None) -> list[str]:
    reasons = []
    if passes is not None and not passes:
        reasons.append(f"a) the annotator's accuracy {row.accuracy:.2f} is not above {settings['min_accuracy']:.2f}")
    if settings["require_spans"]:
        empty = [name for name, value in (("passage", row.passage_span), ("question", row.question_span))
                 if _span(value) is None]
        if empty:
            reasons.append(f"b) no {' and no '.join(empty)} span marked")
    if settings["easy_must_be_right"] and row.difficulty == "easy" and row.correct is not None \
            and not row.correct:
        reasons.append("c) rated easy but answered wrongly")
    return reasons


def judge(annotations: pd.DataFrame, known: Mapping[str, int], settings: Mapping[str, Any]) -> Evaluation:
    """Rules a-c on every annotation; the annotators' accuracy on the way."""
    import pandas as pd
    annotators = annotator_accuracy(annotations, known, settings["min_accuracy"])
    if annotations.empty:
        return Evaluation(pd.DataFrame(columns=ANNOTATION_COLUMNS), annotators, pd.DataFrame(columns=QUESTION_COLUMNS))
    by_user = annotators.set_index("user_id")
    judged = annotations.copy()
    judged["known"] = [known.get(item) for item in judged["item"]]
    judged["correct"] = [None if answer is None else int(option) == answer
                         for option, answer in zip(judged["option"], judged["known"])]
    judged["accuracy"] = [by_user.at[int(u), "accuracy"] for u in judged["user_id"]]
    passes = {int(u): (None if p is None or pd.isna(p) else bool(p)) for u, p in by_user["passes"].items()}
    reasons = [_reasons(row, settings, passes[int(row.user_id)]) for row in judged.itertuples()]
    judged["valid"] = [not r for r in reasons]
    judged["reasons"] = ["; ".join(r) if r else
                         ("valid" if passes[int(u)] is not None
                          else "valid (the annotator answered no question with a known answer, so rule a "
                               "could not be checked)")
                         for r, u in zip(reasons, judged["user_id"])]
    return Evaluation(judged[ANNOTATION_COLUMNS], annotators, pd.DataFrame(columns=QUESTION_COLUMNS))


def _decide(item: str, votes: list[tuple[int, bool, str]], known: int | None,
            settings: Mapping[str, Any]) -> tuple:
    """One question's fate from its votes, each (option, valid, reasons), in plain Python: a pandas selection and
    count per question cost about 1.5 ms, which a whole test set's 2,000 questions paid on every gold figure."""
    valid = [option for option, is_valid, _ in votes if is_valid]
    counts = Counter(valid)
    most = max(counts.values(), default=0)
    top = [option for option, count in counts.items() if count == most]
    majority = top[0] if len(top) == 1 else None
    majority_votes = most
    majority_share = majority_votes / len(valid) if valid else None
    correct = sum(option == known for option in valid) if known is not None else None
    share = correct / len(valid) if correct is not None and valid else None
    if not valid:
        kept, reason = False, f"no valid annotation among {len(votes)}"
    elif known is not None:
        kept = share >= settings["keep_share"]
        reason = (f"{correct} of {len(valid)} valid annotations chose the known answer "
                  f"({share:.2f} {'≥' if kept else '<'} {settings['keep_share']:.2f})")
    else:
        kept = majority is not None and majority_share > settings["majority_share"]
        if majority is None:
            reason = f"no single most chosen option among {len(valid)} valid annotations"
        else:
            reason = (f"{majority_votes} of {len(valid)} valid annotations chose option {majority} "
                      f"({majority_share:.2f} {'>' if kept else '≤'} {settings['majority_share']:.2f})")
    return (item, UNIT, known, len(votes), len(valid), correct, share, majority, majority_votes, majority_share,
            bool(kept), ("kept: " if kept else "dropped: ") + reason,
            *(sum(f"{rule})" in reasons for _, _, reasons in votes) for rule in "abc"))


def evaluate(labels: pd.DataFrame, references: Mapping[str, Any], settings: Mapping[str, Any]) -> Evaluation:
    """The whole selection: judged annotations, annotators' accuracy, and each voted question's fate."""
    import pandas as pd
    known = known_answers(references)
    judged = judge(annotation_frame(labels), known, settings)
    if judged.annotations.empty:
        return judged
    by_item: dict[str, list[tuple[int, bool, str]]] = {}   # in the order of each question's first vote
    annotations = judged.annotations
    for item, option, valid, reasons in zip(annotations["item"], annotations["option"], annotations["valid"],
                                            annotations["reasons"]):
        by_item.setdefault(item, []).append((int(option), bool(valid), reasons))
    questions = [_decide(item, votes, known.get(item), settings) for item, votes in by_item.items()]
    return Evaluation(judged.annotations, judged.annotators, pd.DataFrame(questions, columns=QUESTION_COLUMNS))
