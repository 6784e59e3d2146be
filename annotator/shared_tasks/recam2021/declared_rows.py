"""A ReCAM project's votes read as one row per annotation, for the format's writers and tables.

Why: a ReCAM project is a declared project of cloze_selection.yaml (the built-in cloze type of before the switch to
one engine is gone, docs/one-engine.md). Its exports (the kept questions' lines, questions.csv, dropped.csv,
annotators.csv, evidence.csv, agreement.json), the leaderboard's scoring gold and the dataset table are those the
built-in type wrote for the same votes. The definition's `recam_selection` rule runs ReCAM's selection on the
declared votes (selection_rule.py); its evaluation (each annotation with its evidence and verdict, each annotator's
accuracy, each question's fate) is what the writers read, by the rule's parameters.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from annotator.analysis.results import item_references, labels_frame, project_agreement
from annotator.core.errors import FormatError
from annotator.declared.definition_reader import definition_from_data
from annotator.declared.named_rules import bindings
from annotator.shared_tasks.recam2021.bridge import KEYS
from annotator.shared_tasks.recam2021.rules import Evaluation
from annotator.shared_tasks.recam2021.selection_rule import RECAM_SELECTION, selection

if TYPE_CHECKING:
    from annotator.analysis.agreement import FieldAgreement
    from annotator.core.models import Project
    from annotator.declared.rule_base import Bound

AGREEMENT_FIELDS = ("option", "difficulty")   # the built-in's figures: the option (nominal), the difficulty (ordinal)


def selection_of(project: Project) -> Bound:
    """The project's definition's `recam_selection` rule, bound to its questions; FormatError when it has none."""
    found = [bound for bound in bindings(definition_from_data(project.definition or {}))
             if bound.rule.name == RECAM_SELECTION.name]
    if not found:
        raise FormatError(f"project {project.slug!r} is a declared project whose definition has no "
                          f"{RECAM_SELECTION.name} rule, so ReCAM's selection cannot be written for it")
    return found[0]


def evaluation(project: Project, include_incomplete: bool = False) -> Evaluation:
    """ReCAM's selection (rules.evaluate) on the project's votes, by its rule's parameters."""
    return selection(selection_of(project), labels_frame(project, include_incomplete), item_references(project))[0]


def agreement(project: Project, include_incomplete: bool = False) -> list[FieldAgreement]:
    """The option's and the difficulty's agreement, the built-in's two figures (the evidence questions' per-character
    figures are the declared project's own, on its pages)."""
    bound = selection_of(project)
    fields = {bound.inputs[key].id: key for key in AGREEMENT_FIELDS}
    return [figure for figure in project_agreement(project, include_incomplete=include_incomplete)
            if figure.field in fields]


def known_option(reference: Any) -> int | None:
    """An item's known answer (the position of the right option) from its reference, the definition's
    `{"option": "n"}` (bridge.map_reference)."""
    if not isinstance(reference, Mapping):
        return None
    option = reference.get(KEYS[0])
    return int(option) if isinstance(option, str) and option.isdigit() else None
