"""Named rules in a definition (annotator/declared/named_rules.py): a shared task's rule bound to the definition's
questions, checked when the definition is read, and deciding as the paper's rules (ReCAM's, worked out here from
the votes) and the built-in HIT type (RuArg's) do on the same votes.

The votes are on real items: the ReCAM dev excerpt (tests/data/recam2021, known answers 2, 4, 4, 4) and the
RuArg-2022 train excerpt (tests/data/ruarg2022). The built-in side goes through the built-in type's own answer
check (StancePremise.labels), the declared side through the declared answer check (labels_of).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from annotator.declared.definition import DefinitionError
from annotator.declared.definition_reader import definition_from_file, definition_from_text
from annotator.declared.gold import declared_gold, rule_checks
from annotator.declared.named_rules import bindings
from annotator.shared_tasks.recam2021 import selection_rule
from annotator.shared_tasks.ruarg2022 import files as ruarg_files
from tests.support.declared_labels import labels_of

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "tests" / "data"

RECAM = """\
name: ReCAM cloze validation
show:
  - {field: article, label: Passage}
  - {field: question, label: Question}
questions:
  - id: answer
    kind: choice
    prompt: Which option fills @placeholder?
    options: ["0", "1", "2", "3", "4"]
    gold: {rule: recam_selection, difficulty: difficulty, passage_span: passage_evidence,
           question_span: question_evidence}
  - id: passage_evidence
    kind: span
    of: article
    required: false
  - id: question_evidence
    kind: span
    of: question
    required: false
  - id: difficulty
    kind: choice
    options: [easy, medium, hard]
"""


def _refused(text: str) -> DefinitionError:
    with pytest.raises(DefinitionError) as caught:
        definition_from_text(text)
    return caught.value


# --- reading a definition ---------------------------------------------------------------------------------

def test_a_definition_names_a_rule_and_binds_its_inputs_to_its_questions() -> None:
    definition = definition_from_text(RECAM)
    assert definition.question("answer").gold is not None
    assert definition.question("answer").gold.rule == "recam_selection"


def test_an_unknown_rule_is_refused_with_its_path_line_and_the_known_rules() -> None:
    error = _refused(RECAM.replace("rule: recam_selection", "rule: recam_selectoin"))
    assert (error.path, error.line) == ("questions[0].gold.rule", 10)
    assert error.message == ("'recam_selectoin' is not a rule (did you mean 'recam_selection'?); for a choice "
                             "question use one of majority, share, agree, dawid_skene, median, or a named rule: "
                             "recam_selection")


def test_an_unknown_check_rule_is_refused_with_the_known_check_rules() -> None:
    error = _refused(RECAM + "checks:\n  - {rule: consistency}\n")
    assert (error.path, error.line) == ("checks[0].rule", 24)
    assert error.message == ("'consistency' is not a rule (did you mean 'ruarg_consistency'?); the named check rules: "
                             "ruarg_consistency")


def test_an_empty_list_of_checks_is_refused_with_the_known_check_rules() -> None:
    error = _refused(RECAM + "checks: []\n")
    assert (error.path, error.line) == ("checks", 23)
    assert error.message == ("must list the check rules the campaign uses, each {rule: <name>, ...} (the named "
                             "check rules: ruarg_consistency)")


def test_a_check_rule_written_as_gold_is_refused_with_where_it_belongs() -> None:
    error = _refused(RECAM.replace("gold: {rule: recam_selection,", "gold: {rule: ruarg_consistency,"))
    assert error.path == "questions[0].gold.rule"
    assert error.message == "ruarg_consistency is a checks rule; write it under checks: at the definition's top level"


def test_a_gold_rule_on_a_question_of_another_kind_is_refused() -> None:
    text = RECAM.replace("    options: [easy, medium, hard]\n",
                         "    options: [easy, medium, hard]\n  - id: sure\n    kind: scale\n"
                         "    gold: {rule: recam_selection}\n")
    error = _refused(text)
    assert (error.path, error.line) == ("questions[4].gold.rule", 25)
    assert error.message == "recam_selection is written on a choice question (its option), not on a scale one"


def test_an_input_bound_to_a_question_of_a_kind_the_rule_cannot_read_is_refused() -> None:
    error = _refused(RECAM.replace("passage_span: passage_evidence", "passage_span: difficulty")
                     .replace("question_span: question_evidence", "question_span: passage_evidence"))
    assert (error.path, error.line) == ("questions[0].gold.passage_span", 10)
    assert error.message == ("'difficulty' is a choice question; the evidence marked in the passage (rule b) must be "
                             "a spans or span question")


def test_an_input_bound_to_no_question_is_refused_with_the_questions() -> None:
    error = _refused(RECAM.replace("difficulty: difficulty", "difficulty: hardness"))
    assert error.path == "questions[0].gold.difficulty"
    assert error.message == ("'hardness' is not a question of the definition; name the choice question holding the "
                             "difficulty rating (rule c needs the answer easy) (questions: answer, passage_evidence, "
                             "question_evidence, difficulty)")


def test_a_rule_named_alone_is_refused_for_the_inputs_it_needs() -> None:
    bound = ("gold: {rule: recam_selection, difficulty: difficulty, passage_span: passage_evidence,\n"
             "           question_span: question_evidence}")
    assert bound in RECAM
    error = _refused(RECAM.replace(bound, "gold: recam_selection"))
    assert (error.path, error.line) == ("questions[0].gold.difficulty", 10)
    assert error.message.startswith("is required: the id of the choice question holding the difficulty rating")


def test_a_missing_input_is_refused() -> None:
    error = _refused(RECAM.replace(" difficulty: difficulty,", ""))
    assert error.path == "questions[0].gold.difficulty"
    assert error.message.startswith("is required: the id of the choice question holding the difficulty rating")


def test_an_input_lacking_an_answer_the_rule_needs_is_refused() -> None:
    error = _refused(RECAM.replace("options: [easy, medium, hard]", "options: [simple, medium, hard]"))
    assert (error.path, error.message) == ("questions[0].gold.difficulty",
                                           "'difficulty' must offer the answer easy (it offers simple, medium, hard)")


def test_one_question_bound_to_two_inputs_is_refused() -> None:
    error = _refused(RECAM.replace("question_span: question_evidence", "question_span: passage_evidence"))
    assert (error.path, error.message) == ("questions[0].gold.question_span", "'passage_evidence' is already bound to "
                                                                              "passage_span; bind each question once")


def test_a_parameter_out_of_range_and_an_unknown_key_are_refused() -> None:
    error = _refused(RECAM.replace("question_span: question_evidence}", "question_span: question_evidence, "
                                                                        "min_accuracy: 40}"))
    assert error.path == "questions[0].gold.min_accuracy"
    assert error.message.startswith("must be a number between 0 and 1 (")
    error = _refused(RECAM.replace("question_span: question_evidence}", "question_span: question_evidence, "
                                                                        "keep_shares: 0.6}"))
    assert (error.path, error.message) == ("questions[0].gold.keep_shares", "the recam_selection rule has no "
                                           "'keep_shares' (did you mean 'keep_share'?); its keys: rule, difficulty, "
                                           "passage_span, question_span, min_accuracy, require_spans, "
                                           "easy_must_be_right, keep_share, majority_share")


def test_a_claim_whose_stance_question_lacks_the_codes_is_refused() -> None:
    text = (ROOT / "examples" / "ruarg2022_consistency.yaml").read_text(encoding="utf-8")
    error = _refused(text.replace("stance: vaccines_stance", "stance: vaccines_relevance"))
    assert error.path == "checks[0].claims[2].stance"
    assert error.message == "'vaccines_relevance' must offer the answers 2, 0, 1 (it offers relevant, irrelevant)"
    assert error.line is not None and text.splitlines()[error.line - 1].lstrip().startswith("- {claim: vaccines")


def test_a_claim_named_twice_is_refused() -> None:
    text = (ROOT / "examples" / "ruarg2022_consistency.yaml").read_text(encoding="utf-8")
    error = _refused(text.replace("{claim: vaccines", "{claim: masks"))
    assert (error.path, error.message) == ("checks[0].claims[2].claim", "'masks' is named twice")


# --- ReCAM's selection rules: the verdicts of the paper's rules, worked out from the votes ----------------------

def _recam_items() -> dict[str, dict[str, Any]]:
    """The four dev questions (known answers 2, 4, 4, 4) and the first test question (no known answer)."""
    items = {}
    for name in ("Task_1_dev_excerpt.jsonl", "Task_1_test_excerpt.jsonl"):
        for n, line in enumerate((DATA / "recam2021" / name).read_text(encoding="utf-8").splitlines()):
            row = json.loads(line)
            if name.startswith("Task_1_test") and n > 0:
                break
            items[f"{name[7:11]}{n}"] = row
    return items


# (option, difficulty, passage words, question words) per annotator and item
RECAM_VOTES: dict[str, list[tuple[int, str, list[int], list[int]]]] = {
    "dev_0": [(2, "medium", [3, 4], [1]), (2, "easy", [5], [2]), (1, "hard", [3], [1]), (2, "medium", [], [1])],
    "dev_1": [(4, "medium", [0], [0]), (3, "easy", [1], [3]), (0, "medium", [2], [2]), (4, "hard", [7, 8], [1])],
    "dev_2": [(4, "hard", [2], [4]), (4, "medium", [1], [1]), (1, "easy", [1], [1]), (4, "easy", [4], [0])],
    "dev_3": [(1, "medium", [1], [1]), (1, "hard", [2], [2]), (1, "medium", [3], [3]), (4, "medium", [6], [])],
    "test0": [(1, "medium", [1], [2]), (1, "easy", [0], [1]), (3, "hard", [4], [4]), (1, "medium", [2], [])],
}


def _paper_selection(settings: dict[str, Any], known: dict[str, int]) -> list[tuple[str, str, int]]:
    """(item, gold, votes) of every voted question by ReCAM's rules as the paper states them (Zheng et al. 2021, §3),
    written out here: an annotation counts when a) its annotator's accuracy on the questions with a known answer is
    above min_accuracy, b) both evidence spans are marked (require_spans), c) it is not rated easy and answered wrong
    (easy_must_be_right); a question with a known answer is kept, with that answer, when at least keep_share of its
    valid annotations chose it; one without, when one option has more than majority_share of them."""
    rules = {"min_accuracy": 0.4, "require_spans": True, "easy_must_be_right": True, "keep_share": 0.5,
             "majority_share": 0.5, **settings}
    answered: dict[int, list[bool]] = {}
    for item, votes in RECAM_VOTES.items():
        for user, (option, _, _, _) in enumerate(votes, 1):
            if item in known:
                answered.setdefault(user, []).append(option == known[item])
    accuracy = {user: sum(right) / len(right) for user, right in answered.items()}
    found = []
    for item, votes in RECAM_VOTES.items():
        valid = [option for user, (option, difficulty, passage, question) in enumerate(votes, 1)
                 if accuracy[user] > rules["min_accuracy"]
                 and not (rules["require_spans"] and not (passage and question))
                 and not (rules["easy_must_be_right"] and difficulty == "easy" and item in known
                          and option != known[item])]
        gold = "undecided"
        if valid and item in known:
            gold = str(known[item]) if valid.count(known[item]) / len(valid) >= rules["keep_share"] else gold
        elif valid:
            counts = sorted(((valid.count(o), o) for o in set(valid)), reverse=True)
            single = len(counts) == 1 or counts[0][0] > counts[1][0]
            gold = str(counts[0][1]) if single and counts[0][0] / len(valid) > rules["majority_share"] else gold
        found.append((item, gold, len(votes)))
    return found


def _declared_cloze_labels(items: dict[str, dict[str, Any]]) -> pd.DataFrame:
    answers = {item: [{"answer": str(option), "difficulty": difficulty,
                       **({"passage_evidence": passage} if passage else {}),
                       **({"question_evidence": question} if question else {})}
                      for option, difficulty, passage, question in votes]
               for item, votes in RECAM_VOTES.items()}
    payloads = {item: {"article": row["article"], "question": row["question"]} for item, row in items.items()}
    return labels_of(definition_from_text(RECAM), answers, payloads)


@pytest.mark.parametrize("settings", [{}, {"min_accuracy": 0.2, "require_spans": False},
                                      {"easy_must_be_right": False, "keep_share": 0.75}], ids=str)
def test_recam_selection_keeps_and_drops_the_questions_the_paper_s_rules_do(settings: dict[str, Any]) -> None:
    items = _recam_items()
    known = {item: row["label"] for item, row in items.items() if "label" in row}
    parameters = "".join(f", {key}: {json.dumps(value)}" for key, value in settings.items())
    definition = definition_from_text(RECAM.replace("question_span: question_evidence}",
                                                    f"question_span: question_evidence{parameters}}}"))
    gold = declared_gold(definition, _declared_cloze_labels(items),
                         {item: {"answer": str(label)} for item, label in known.items()})
    expected = _paper_selection(settings, known)
    found = [(r.item, r.gold, r.n) for r in gold[gold["question"] == "answer"].itertuples()]
    assert found == expected
    assert {r[1] for r in expected} != {"undecided"} and "undecided" in {r[1] for r in expected}


def test_recam_selection_gold_rows_say_the_choices_and_the_verdict() -> None:
    items = _recam_items()
    gold = declared_gold(definition_from_text(RECAM), _declared_cloze_labels(items),
                         {item: {"answer": str(row["label"])} for item, row in items.items() if "label" in row})
    first = gold[gold["question"] == "answer"].iloc[0]
    assert (first["item"], first["question"], first["unit"], first["gold"], first["n"]) == ("dev_0", "answer",
                                                                                           "answer", "2", 4)
    # ann and bob chose 2 (valid); cat's accuracy fails rule a; dan marked no passage evidence (rule b)
    assert first["votes"] == ("1: 1, 2: 3; kept: 2 of 2 valid annotations chose the known answer (1.00 ≥ 0.50)")
    assert first["score"] == 1.0


def test_recam_selection_reads_evidence_given_as_label_rows_of_selected_words() -> None:
    """Evidence as a label frame built here, one row per word ("1" selected), the shape the span kind gives and
    an evidence kind will: the rule needs only whether any word is marked."""
    definition = definition_from_text(RECAM)
    rows = [("q1", "answer", "answer", "3", 1, 1, 1), ("q1", "difficulty", "difficulty", "easy", 1, 1, 2),
            ("q1", "passage_evidence", "0", "0", 1, 1, 3), ("q1", "passage_evidence", "1", "1", 1, 1, 4),
            ("q1", "question_evidence", "0", "1", 1, 1, 5),
            ("q1", "answer", "answer", "3", 2, 2, 6), ("q1", "difficulty", "difficulty", "hard", 2, 2, 7),
            ("q1", "passage_evidence", "0", "0", 2, 2, 8), ("q1", "question_evidence", "0", "1", 2, 2, 9)]
    labels = pd.DataFrame(rows, columns=["item", "field", "unit", "value", "user_id", "assignment_id", "id"])
    gold = declared_gold(definition, labels, {"q1": {"answer": "3"}})
    gold = gold[gold["question"] == "answer"]
    assert list(gold["gold"]) == ["3"]
    assert gold.iloc[0]["votes"] == ("3: 2; kept: 1 of 1 valid annotations chose the known answer (1.00 ≥ 0.50)")
    frame = selection_rule.cloze_labels(bindings(definition)[0], labels, {"3": 3})
    spans = frame[frame["field"].isin(["passage_span", "question_span"])]
    assert list(zip(spans["user_id"], spans["field"], spans["value"])) == [
        (1, "passage_span", "1:2"), (1, "question_span", "0:1"), (2, "passage_span", ""), (2, "question_span", "0:1")]


# --- RuArg-2022's consistency checks: the flags the paper's checks give, worked out from the votes ---------------

CLAIMS = ("masks", "quarantine", "vaccines")
# per sentence and annotator: per claim (stance, premise), -1 for irrelevant
RUARG_VOTES: dict[str, list[tuple[tuple[int, int], ...]]] = {
    "17024": [((-1, -1), (1, 1), (-1, -1)), ((-1, -1), (1, 1), (-1, -1)), ((-1, -1), (2, 0), (-1, -1))],
    "17027": [((-1, -1), (1, 1), (-1, -1)), ((-1, -1), (2, 0), (-1, -1)), ((-1, -1), (2, 0), (-1, -1))],
    "17030": [((0, 2), (0, 0), (-1, -1)), ((0, 2), (0, 0), (2, 2)), ((-1, -1), (0, 0), (2, 2))],
}


def _paper_gold() -> dict[tuple[str, str], tuple[int, int] | None]:
    """Per (sentence, claim) the gold of RUARG_VOTES by the paper's rules (a claim relevant when two of the three
    found it so; each label the one code at least two gave, else undecided: None), -1 for both of an irrelevant
    claim."""
    gold: dict[tuple[str, str], tuple[int, int] | None] = {}
    for item, votes in RUARG_VOTES.items():
        for n, claim in enumerate(CLAIMS):
            relevant = [vote[n] for vote in votes if vote[n][0] != -1]
            if len(relevant) < 2:
                gold[(item, claim)] = (-1, -1)
                continue
            codes = [[code for code in {c[i] for c in relevant} if sum(c[i] == code for c in relevant) >= 2]
                     for i in (0, 1)]
            gold[(item, claim)] = (codes[0][0], codes[1][0]) if all(len(c) == 1 for c in codes) else None
    return gold


def _declared_answer(codes: tuple[tuple[int, int], ...]) -> dict[str, Any]:
    answer: dict[str, Any] = {}
    for claim, (stance, premise) in zip(CLAIMS, codes):
        answer[f"{claim}_relevance"] = "irrelevant" if stance == -1 else "relevant"
        if stance != -1:
            answer[f"{claim}_stance"], answer[f"{claim}_premise"] = str(stance), str(premise)
    return answer


def _references() -> dict[str, dict[str, dict[str, int]]]:
    """The imported file's labels of the three sentences: the built-in type's reference answers."""
    found = {}
    for row in ruarg_files.read_file(DATA / "ruarg2022" / "train_excerpt.tsv").rows:
        if str(row.text_id) in RUARG_VOTES and row.labels is not None:
            found[str(row.text_id)] = {claim: {"stance": codes[0], "premise": codes[1]}
                                       for claim, codes in row.labels.items()}
    return found


def _known_answers(references: dict[str, dict[str, dict[str, int]]]) -> dict[str, dict[str, str]]:
    known: dict[str, dict[str, str]] = {}
    for item, claims in references.items():
        for claim, codes in claims.items():
            known.setdefault(item, {})[f"{claim}_relevance"] = "irrelevant" if codes["stance"] == -1 else "relevant"
            if codes["stance"] != -1:
                known[item][f"{claim}_stance"] = str(codes["stance"])
                known[item][f"{claim}_premise"] = str(codes["premise"])
    return known


def test_ruarg_consistency_flags_what_the_paper_s_checks_flag() -> None:
    """The built-in stance_premise type's checks (the type is gone), counted here from the votes: 27 votes of a
    claim, 5 of them for with a premise against or the reverse; the 9 (sentence, claim) all decided, 2 of opposite
    polarity; and the decided gold that differs from the file's labels."""
    references = _references()
    assert set(references) == set(RUARG_VOTES)
    definition = definition_from_file(ROOT / "examples" / "ruarg2022_consistency.yaml")
    labels = labels_of(definition, {item: [_declared_answer(codes) for codes in votes]
                                    for item, votes in RUARG_VOTES.items()})
    known = _known_answers(references)
    found = rule_checks(definition, labels, declared_gold(definition, labels, known), known)
    gold = _paper_gold()
    votes = [codes for item_votes in RUARG_VOTES.values() for vote in item_votes for codes in vote]
    decided = {key: codes for key, codes in gold.items() if codes is not None}
    differ = sum(codes != (references[item][claim]["stance"], references[item][claim]["premise"])
                 for (item, claim), codes in decided.items())
    assert [(c.name, c.flagged, c.of) for c in found] == [
        ("votes: irrelevant for one label only", 0, len(votes)),
        ("votes: stance and premise of opposite polarity", sum(c in ((2, 0), (0, 2)) for c in votes), len(votes)),
        ("gold: irrelevant for one label only", 0, len(decided)),
        ("gold: stance and premise of opposite polarity", sum(c in ((2, 0), (0, 2)) for c in decided.values()),
         len(decided)),
        ("gold differs from the imported reference labels", differ, len(decided))]
    assert (len(votes), len(decided)) == (27, 9) and differ > 0


def test_a_definition_without_check_rules_has_no_checks() -> None:
    definition = definition_from_text(RECAM)
    labels = _declared_cloze_labels(_recam_items())
    assert rule_checks(definition, labels, declared_gold(definition, labels), {}) == []


ONE_CLAIM = """\
name: One claim, irrelevance as a code
show: [text]
questions:
  - {id: stance, kind: choice, options: ["2", "0", "1", "-1"], gold: {rule: agree, m: 2}}
  - {id: premise, kind: choice, required: false, options: ["2", "0", "1", "-1"], gold: {rule: agree, m: 2}}
checks:
  - rule: ruarg_consistency
    claims:
      - {claim: masks, stance: stance, premise: premise}
"""


def test_ruarg_consistency_leaves_out_a_vote_that_left_a_label_out() -> None:
    definition = definition_from_text(ONE_CLAIM)
    labels = labels_of(definition, {"17024": [{"stance": "2", "premise": "0"}, {"stance": "2"},
                                              {"stance": "2", "premise": "0"}],
                                    "17027": [{"stance": "-1", "premise": "1"}, {"stance": "1", "premise": "1"}]})
    found = rule_checks(definition, labels, declared_gold(definition, labels), {})
    assert [(c.name, c.flagged, c.of, c.examples) for c in found] == [
        ("votes: irrelevant for one label only", 1, 4, ("17027 (masks)",)),
        ("votes: stance and premise of opposite polarity", 2, 4, ("17024 (masks)",)),
        ("gold: irrelevant for one label only", 0, 1, ()),
        ("gold: stance and premise of opposite polarity", 1, 1, ("17024 (masks)",))]
