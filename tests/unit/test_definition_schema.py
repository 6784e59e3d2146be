"""The definition format's JSON Schema (annotator/declared/definition.schema.json) agrees with the validator
(annotator/declared/definition_reader.py): every example and every shared task's definition is accepted by both;
each broken definition below (one thing wrong) is refused by both, the schema at the validator's key path or one of
its parents; each validator-only one (a check across the definition, which a schema cannot express) is accepted by
the schema and refused by the validator, and names the line of the schema's description that says so. The keys,
kinds, rules and levels the schema knows are those the validator's own refusals list, and definitions drawn over the
whole format (tests/properties) are never marked by the schema while the validator accepts them.

The schema is checked with jsonschema_rs (a test requirement, pinned in requirements.txt), a draft 2020-12
implementation of its own: nothing of the validator's code is used to decide what the schema says.
"""
from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
import yaml
from hypothesis import given

from annotator.declared import spans
from annotator.declared.definition import KINDS, LEVELS, RULES, SHOW_AS, DefinitionError
from annotator.declared.definition_reader import definition_from_data, definition_from_file
from annotator.declared.definition_schema import schema
from annotator.declared.named_rules import named_rules
from tests.properties.test_declared_definition_properties import FAST, certainly_broken, definitions

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = schema()
VALIDATOR = jsonschema_rs.Draft202012Validator(SCHEMA)
DEFINITIONS = sorted((ROOT / "examples").glob("*.yaml")) + \
    sorted((ROOT / "annotator" / "shared_tasks").glob("*/*.yaml"))

# One question of every kind and a repeat group: each broken case changes one thing of a copy.
BASE: dict[str, Any] = {
    "name": "Quotes: tone, cues and pairs",
    "k": 3,
    "language": "en",
    "show": ["text", {"field": "other", "as": "title", "label": "Other quote"}],
    "questions": [
        {"id": "sentiment", "kind": "choice", "prompt": "What is the tone?",
         "options": ["negative", "neutral", {"value": "positive", "label": "Positive",
                                             "description": "The speaker approves of what the quote is about."}],
         "gold": {"rule": "majority", "ties": "neutral"}},
        {"id": "themes", "kind": "multi", "options": ["life", "work"], "none": "None of these"},
        {"id": "intensity", "kind": "scale", "min": 1, "max": 5,
         "labels": ["Very calm", "Calm", "Neither", "Intense", "Very intense"], "agreement": "ordinal"},
        {"id": "cues", "kind": "span", "of": "text", "when": {"sentiment": "positive"}},
        {"id": "better", "kind": "pairwise", "a": "text", "b": "other", "players": ["text_id", "other_id"]},
        {"id": "entities", "kind": "spans", "of": "text", "labels": ["PER", {"value": "LOC", "label": "Place"}]},
        {"id": "comment", "kind": "text", "required": False, "max_length": 200},
        {"repeat": "aspects", "label": "Aspect", "elements": [{"id": "tone", "text": "The tone of the quote"}],
         "questions": [{"id": "clear", "kind": "scale", "min": 0, "max": 2}]},
        {"id": "memorable", "kind": "ranking", "prompt": "Rank the quotes, the more memorable first.",
         "fields": ["text", "other"], "gold": {"rule": "mean_rank"}, "agreement": "ordinal"},
        {"id": "speaker", "kind": "extractive", "prompt": "Who is quoted? Mark the name.", "of": "text",
         "unanswerable": "The quote does not name its speaker", "gold": "majority", "agreement": "nominal"},
        {"id": "mix", "kind": "distribution", "prompt": "Share 10 points among the tones.",
         "options": ["calm", "warm", {"value": "bitter", "label": "Bitter"}], "total": 10, "gold": "mean",
         "agreement": "interval"},
        {"id": "closer", "kind": "pairwise", "a": "text", "b": "other", "players": ["text_id", "other_id"],
         "grades": ["A much closer", "A closer", "As close", "B closer", "B much closer"],
         "gold": {"rule": "mean_grade"}},
        {"id": "links", "kind": "relations", "prompt": "Link the names.", "of": "entities", "required": False,
         "labels": [{"value": "lives_in", "label": "lives in", "from": ["PER"], "to": "LOC"}, "mentions"],
         "max": 10, "gold": {"rule": "agree", "m": 2}, "agreement": "nominal"},
    ],
}
SENTIMENT, THEMES, INTENSITY, CUES, BETTER, ENTITIES, COMMENT, GROUP, MEMORABLE, SPEAKER, MIX, CLOSER, LINKS = \
    range(13)
TONES = ["calm", "warm", "bitter", "ironic", "proud", "sad", "angry", "hopeful", "wistful", "dry", "playful",
         "stern", "tender", "weary", "bold", "shy", "grim", "gentle", "smug", "eager", "cold"]   # 21: one too many


# A best-worst question is the project's only one reading an item field (its tuples are the items): a base of its own.
BWS_BASE: dict[str, Any] = {
    "name": "Most and least positive",
    "show": [{"field": "text", "label": "Review"}],
    "questions": [
        {"id": "readable", "kind": "choice", "options": ["yes", "no"]},
        {"id": "positive", "kind": "best_worst", "prompt": "Most and least positive?", "text": "text", "size": 4,
         "appearances": 8, "seed": 7, "best": "Most positive", "worst": "Least positive",
         "when": {"readable": "yes"}, "gold": {"rule": "counting"}, "agreement": "ordinal"},
    ],
}
POSITIVE = 1


def changed(change: Callable[[dict[str, Any]], Any], base: dict[str, Any] = BASE) -> dict[str, Any]:
    data = copy.deepcopy(base)
    change(data)
    return data


def question(index: int, **values: Any) -> Callable[[dict[str, Any]], Any]:
    return lambda d: d["questions"][index].update(values)


def top(**values: Any) -> Callable[[dict[str, Any]], Any]:
    return lambda d: d.update(values)


def refusal(data: Any) -> DefinitionError:
    with pytest.raises(DefinitionError) as caught:
        definition_from_data(copy.deepcopy(data))
    return caught.value


def schema_paths(data: Any) -> list[str]:
    """The key paths (questions[2].gold.m) where the schema finds something wrong, in the validator's notation."""
    return [_notation(error.instance_path) for error in VALIDATOR.iter_errors(data)]


def _notation(steps: Any) -> str:
    path = ""
    for step in steps:
        path += f"[{step}]" if isinstance(step, int) else f".{step}" if path else str(step)
    return path


def _within(inner: str, outer: str) -> bool:
    """Whether key path `inner` is `outer` or lies inside it."""
    return inner == outer or outer == "" or inner.startswith(outer) and inner[len(outer)] in ".["


def test_the_schema_is_a_draft_2020_12_schema() -> None:
    assert SCHEMA["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert jsonschema_rs.meta.is_valid(SCHEMA)


def test_the_base_of_the_broken_cases_is_accepted_by_both() -> None:
    definition_from_data(copy.deepcopy(BASE))
    assert schema_paths(BASE) == []


def test_the_best_worst_base_is_accepted_by_both() -> None:
    definition_from_data(copy.deepcopy(BWS_BASE))
    assert schema_paths(BWS_BASE) == []


@pytest.mark.parametrize("path", DEFINITIONS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_example_and_shared_task_definition_is_accepted_by_both(path: Path) -> None:
    definition_from_file(path)
    assert schema_paths(yaml.safe_load(path.read_text(encoding="utf-8"))) == []


def test_the_examples_and_shared_tasks_are_all_there() -> None:
    names = {p.name for p in DEFINITIONS}
    assert {"claim_stance_likert.yaml", "ner_spans.yaml", "stance_premise.yaml", "selection.yaml"} <= names
    assert len(DEFINITIONS) >= 24


# (case, the change, the validator's key path): one thing wrong each, which the schema can see.
BROKEN: list[tuple[str, Callable[[dict[str, Any]], Any], str]] = [
    ("unknown top-level key", top(questoins=[]), "questoins"),
    ("no name", lambda d: d.pop("name"), "name"),
    ("blank name", top(name="   "), "name"),
    ("no show", lambda d: d.pop("show"), "show"),
    ("no questions", top(questions=[]), "questions"),
    ("k of 0", top(k=0), "k"),
    ("k as text", top(k="three"), "k"),
    ("language not a code", top(language="English"), "language"),
    ("licence and license", top(licence="CC0-1.0", license="CC-BY-4.0"), "license"),
    ("summary_items as text", top(summary_items="yes"), "summary_items"),
    ("pairwise_order unknown", top(pairwise_order="random"), "pairwise_order"),
    ("keep the id field", top(keep=["id"]), "keep[0]"),
    ("stopping at confidence 1", top(stopping={"confidence": 1}), "stopping.confidence"),
    ("control_score unknown key", top(control_score={"weights": [1]}), "control_score.weights"),
    ("a check rule that is none", top(checks=[{"rule": "kappa_check"}]), "checks[0].rule"),
    ("show as video", lambda d: d["show"][1].update({"as": "video"}), "show[1].as"),
    ("show key of another display kind", lambda d: d["show"][1].update(placeholder="@x"), "show[1].placeholder"),
    ("table without columns", lambda d: d["show"][1].update({"as": "table", "columns": []}), "show[1].columns"),
    ("table column twice", lambda d: d["show"][1].update({"as": "table", "columns": ["a", "a"]}),
     "show[1].columns[1]"),
    ("dialogue key on a table", lambda d: d["show"][1].update({"as": "table", "speaker": "who"}),
     "show[1].speaker"),
    ("unknown question key", question(SENTIMENT, colour="red"), "questions[0].colour"),
    ("question without id", lambda d: d["questions"][SENTIMENT].pop("id"), "questions[0].id"),
    ("question id not an id", question(SENTIMENT, id="Bad Id"), "questions[0].id"),
    ("unknown kind", question(SENTIMENT, kind="choise"), "questions[0].kind"),
    ("a scale key on a choice", question(SENTIMENT, min=1), "questions[0].min"),
    ("required as text", question(COMMENT, required="yes"), "questions[6].required"),
    ("one option", question(THEMES, options=["life"]), "questions[1].options"),
    ("option value undecided", question(SENTIMENT, options=["undecided", "neutral"]), "questions[0].options[0]"),
    ("option as true", question(SENTIMENT, options=[True, "neutral"]), "questions[0].options[0]"),
    ("unknown option key", lambda d: d["questions"][SENTIMENT]["options"][2].update(help="x"),
     "questions[0].options[2].help"),
    ("blank option description", lambda d: d["questions"][SENTIMENT]["options"][2].update(description=" "),
     "questions[0].options[2].description"),
    ("option description too long", lambda d: d["questions"][SENTIMENT]["options"][2].update(description="x" * 501),
     "questions[0].options[2].description"),
    ("options and options_from", question(SENTIMENT, options_from="choices"), "questions[0]"),
    ("values: index without options_from", question(SENTIMENT, values="index"), "questions[0].values"),
    ("gold rule of another kind", question(SENTIMENT, gold="mean"), "questions[0].gold.rule"),
    ("gold key of another rule", question(SENTIMENT, gold={"rule": "majority", "m": 2}), "questions[0].gold.m"),
    ("share above 1", question(THEMES, gold={"rule": "share", "positive": 1.6}), "questions[1].gold.positive"),
    ("share without its value on a choice", question(SENTIMENT, gold={"rule": "share"}), "questions[0].gold.value"),
    ("further decisions on a multi", question(THEMES, gold={"rule": "majority", "also": {"x": {"value": "life"}}}),
     "questions[1].gold.also"),
    ("agreement level unknown", question(INTENSITY, agreement="ratio"), "questions[2].agreement"),
    ("interval agreement on a choice", question(SENTIMENT, agreement="interval"), "questions[0].agreement"),
    ("point labels and anchors", question(INTENSITY, anchors=["calm", "intense"]), "questions[2].labels"),
    ("a point label as true", lambda d: d["questions"][INTENSITY]["labels"].__setitem__(1, True),
     "questions[2].labels[1]"),
    ("a blank point label", lambda d: d["questions"][INTENSITY]["labels"].__setitem__(2, " "),
     "questions[2].labels[2]"),
    ("scale step of 0", question(INTENSITY, step=0), "questions[2].step"),
    ("when answer true", question(CUES, when={"sentiment": True}), "questions[3].when.sentiment"),
    ("span without of", lambda d: d["questions"][CUES].pop("of"), "questions[3].of"),
    ("span token_id alone", question(CUES, token_id="id"), "questions[3].token_text"),
    ("three players", question(BETTER, players=["a_id", "b_id", "c_id"]), "questions[4].players"),
    ("spans edges unknown", question(ENTITIES, edges="tokens"), "questions[5].edges"),
    ("spans label O", question(ENTITIES, labels=["O"]), "questions[5].labels[0]"),
    ("spans whole_words with character edges", question(ENTITIES, edges="characters", whole_words=True),
     "questions[5].whole_words"),
    ("spans share of 0", question(ENTITIES, gold={"rule": "share", "positive": 0}), "questions[5].gold.positive"),
    ("text max_length 0", question(COMMENT, max_length=0), "questions[6].max_length"),
    ("gold on a text question", question(COMMENT, gold="majority"), "questions[6].gold"),
    ("group with elements and elements_from", question(GROUP, elements_from="turns"), "questions[7]"),
    ("a span question in a group",
     lambda d: d["questions"][GROUP]["questions"].__setitem__(0, {"id": "w", "kind": "span", "of": "text"}),
     "questions[7].questions[0].kind"),
    ("group element without text", lambda d: d["questions"][GROUP]["elements"][0].pop("text"),
     "questions[7].elements[0].text"),
    ("unknown ranking key", question(MEMORABLE, order="best first"), "questions[8].order"),
    ("a pairwise key on a ranking", question(MEMORABLE, allow_equal=False), "questions[8].allow_equal"),
    ("ranking options and fields both", question(MEMORABLE, options=["calm", "warm"]), "questions[8]"),
    ("ranking without options or fields", lambda d: d["questions"][MEMORABLE].pop("fields"), "questions[8]"),
    ("ranking of one field", question(MEMORABLE, fields=["text"]), "questions[8].fields"),
    ("ranking fields as text", question(MEMORABLE, fields="text"), "questions[8].fields"),
    ("ranking a field twice", question(MEMORABLE, fields=["text", "text"]), "questions[8].fields[1]"),
    ("ranking of 21 options", lambda d: d["questions"][MEMORABLE].update(fields=None, options=TONES) or
     d["questions"][MEMORABLE].pop("fields"), "questions[8].options"),
    ("ranking option as true", lambda d: d["questions"][MEMORABLE].update(options=[True, "calm"]) or
     d["questions"][MEMORABLE].pop("fields"), "questions[8].options[0]"),
    ("ranking gold rule of another kind", question(MEMORABLE, gold="majority"), "questions[8].gold.rule"),
    ("ranking gold rule unknown", question(MEMORABLE, gold={"rule": "kemeny"}), "questions[8].gold.rule"),
    ("ranking gold with a key besides rule", question(MEMORABLE, gold={"rule": "borda", "ties": "text"}),
     "questions[8].gold.ties"),
    ("ranking agreement level unknown", question(MEMORABLE, agreement="ratio"), "questions[8].agreement"),
    ("ranking merged agreement",
     question(MEMORABLE, agreement={"level": "nominal", "merged": {"first": {"text": ["text"]}}}),
     "questions[8].agreement.merged"),
    ("ranking pooled agreement", question(MEMORABLE, agreement={"level": "nominal", "pooled": "quotes"}),
     "questions[8].agreement.pooled"),
    ("ranking per_element agreement", question(MEMORABLE, agreement={"per_element": True}),
     "questions[8].agreement.per_element"),
    ("a ranking in a group",
     lambda d: d["questions"][GROUP]["questions"].__setitem__(0, {"id": "w", "kind": "ranking",
                                                                  "options": ["calm", "warm"]}),
     "questions[7].questions[0].kind"),
    ("a span attribute of one value", question(ENTITIES, attributes=[{"id": "severity", "values": ["minor"]}]),
     "questions[5].attributes[0].values"),
    ("a span attribute named label", question(ENTITIES, attributes=[{"id": "label", "values": ["a", "b"]}]),
     "questions[5].attributes[0].id"),
    ("a span attribute's unknown key",
     question(ENTITIES, attributes=[{"id": "severity", "values": ["a", "b"], "colour": "red"}]),
     "questions[5].attributes[0].colour"),
    ("a span score rule unknown", question(ENTITIES, attributes=[{"id": "severity", "values": ["a", "b"]}],
                                           score={"rule": "sum", "weights": {"a": 1, "b": 2}}),
     "questions[5].score.rule"),
    ("a span score's negative weight", question(ENTITIES, attributes=[{"id": "severity", "values": ["a", "b"]}],
                                                score={"rule": "mqm", "weights": {"a": -1, "b": 2}}),
     "questions[5].score.weights.a"),
    ("unknown extractive key", question(SPEAKER, answer_max=3), "questions[9].answer_max"),
    ("a spans key on an extractive question", question(SPEAKER, labels=["PER"]), "questions[9].labels"),
    ("extractive without of", lambda d: d["questions"][SPEAKER].pop("of"), "questions[9].of"),
    ("extractive unanswerable as a number", question(SPEAKER, unanswerable=3), "questions[9].unanswerable"),
    ("extractive unanswerable blank", question(SPEAKER, unanswerable="  "), "questions[9].unanswerable"),
    ("extractive whole_words as text", question(SPEAKER, whole_words="yes"), "questions[9].whole_words"),
    ("extractive gold rule of another kind", question(SPEAKER, gold="share"), "questions[9].gold.rule"),
    ("extractive gold with ties", question(SPEAKER, gold={"rule": "majority", "ties": "undecided"}),
     "questions[9].gold.ties"),
    ("extractive agreement ordinal", question(SPEAKER, agreement="ordinal"), "questions[9].agreement"),
    ("extractive not_asked agreement", question(SPEAKER, when={"sentiment": "positive"},
                                                agreement={"level": "nominal", "not_asked": "none"}),
     "questions[9].agreement.not_asked"),
    ("an extractive question in a group",
     lambda d: d["questions"][GROUP]["questions"].__setitem__(0, {"id": "w", "kind": "extractive", "of": "text"}),
     "questions[7].questions[0].kind"),
    ("distribution without options", lambda d: d["questions"][MIX].pop("options"), "questions[10].options"),
    ("distribution of one option", question(MIX, options=["calm"]), "questions[10].options"),
    ("distribution total 0", question(MIX, total=0), "questions[10].total"),
    ("distribution total 2.5", question(MIX, total=2.5), "questions[10].total"),
    ("distribution total above 1000", question(MIX, total=1001), "questions[10].total"),
    ("distribution options from the item", question(MIX, options_from="tones"), "questions[10].options_from"),
    ("distribution gold rule of another kind", question(MIX, gold="majority"), "questions[10].gold.rule"),
    ("distribution gold with a key besides rule", question(MIX, gold={"rule": "mean", "ties": "calm"}),
     "questions[10].gold.ties"),
    ("distribution agreement level unknown", question(MIX, agreement="ratio"), "questions[10].agreement"),
    ("a distribution in a group",
     lambda d: d["questions"][GROUP]["questions"].__setitem__(0, {"id": "w", "kind": "distribution",
                                                                  "options": ["calm", "warm"]}),
     "questions[7].questions[0].kind"),
    ("unknown relations key", question(LINKS, overlap=True), "questions[12].overlap"),
    ("relations without labels", lambda d: d["questions"][LINKS].pop("labels"), "questions[12].labels"),
    ("a relation type that is no identifier", question(LINKS, labels=["lives in"]), "questions[12].labels[0]"),
    ("a relation type named undecided", question(LINKS, labels=["undecided"]), "questions[12].labels[0]"),
    ("an unknown key of a relation type", question(LINKS, labels=[{"value": "a", "colour": "red"}]),
     "questions[12].labels[0].colour"),
    ("relations max of 0", question(LINKS, max=0), "questions[12].max"),
    ("relations with a when of their own", question(LINKS, when={"sentiment": "positive"}), "questions[12].when"),
    ("relations gold majority", question(LINKS, gold="majority"), "questions[12].gold.rule"),
    ("relations gold agree with value", question(LINKS, gold={"rule": "agree", "value": "1"}),
     "questions[12].gold.value"),
    ("relations agreement ordinal", question(LINKS, agreement="ordinal"), "questions[12].agreement"),
    ("grades with allow_equal", question(CLOSER, allow_equal=True), "questions[11].allow_equal"),
    ("two grades", question(CLOSER, grades=["A", "B"]), "questions[11].grades"),
    ("twelve grades", question(CLOSER, grades=[f"grade {n}" for n in range(12)]), "questions[11].grades"),
    ("a blank grade", question(CLOSER, grades=["A closer", " ", "B closer"]), "questions[11].grades[1]"),
    ("a grade twice", question(CLOSER, grades=["A closer", "A closer", "B closer"]), "questions[11].grades[1]"),
    ("a grade as true", question(CLOSER, grades=["A closer", True, "B closer"]), "questions[11].grades[1]"),
    ("grades as text", question(CLOSER, grades="seven"), "questions[11].grades"),
    ("grades on a derived comparison",
     lambda d: d["questions"].append({"id": "derived_closer", "kind": "pairwise", "grades": ["A", "Same", "B"],
                                      "derived": {"from": "clear", "wins": 2}}),
     "questions[13].grades"),
]


BROKEN_BEST_WORST: list[tuple[str, Callable[[dict[str, Any]], Any], str]] = [
    ("unknown best_worst key", question(POSITIVE, tuples=4), "questions[1].tuples"),
    ("a ranking key on a best_worst question", question(POSITIVE, fields=["text"]), "questions[1].fields"),
    ("best_worst without text", lambda d: d["questions"][POSITIVE].pop("text"), "questions[1].text"),
    ("best_worst tuples of two", question(POSITIVE, size=2), "questions[1].size"),
    ("best_worst tuples of eleven", question(POSITIVE, size=11), "questions[1].size"),
    ("best_worst size as text", question(POSITIVE, size="4"), "questions[1].size"),
    ("best_worst no appearances", question(POSITIVE, appearances=0), "questions[1].appearances"),
    ("best_worst a seed below 0", question(POSITIVE, seed=-1), "questions[1].seed"),
    ("best_worst a seed of 1.5", question(POSITIVE, seed=1.5), "questions[1].seed"),
    ("best_worst gold rule of another kind", question(POSITIVE, gold="majority"), "questions[1].gold.rule"),
    ("best_worst gold with a key besides rule", question(POSITIVE, gold={"rule": "counting", "ties": "a"}),
     "questions[1].gold.ties"),
    ("best_worst agreement level unknown", question(POSITIVE, agreement="ratio"), "questions[1].agreement"),
    ("best_worst pooled agreement", question(POSITIVE, agreement={"level": "ordinal", "pooled": "x"}),
     "questions[1].agreement.pooled"),
]


@pytest.mark.parametrize("change,path", [(c, p) for _, c, p in BROKEN_BEST_WORST],
                         ids=[name for name, _, _ in BROKEN_BEST_WORST])
def test_a_broken_best_worst_question_is_refused_by_both_at_the_same_place(change: Callable[[dict[str, Any]], Any],
                                                                          path: str) -> None:
    data = changed(change, BWS_BASE)
    assert refusal(data).path == path
    found = schema_paths(data)
    assert found, f"the schema accepts what the validator refuses at {path}"
    assert any(_within(path, where) for where in found), (path, found)


@pytest.mark.parametrize("change,path,words", [
    (question(POSITIVE, text="body"), "questions[1].text", "a best_worst question's `text` naming the right shown"),
    (lambda d: d["questions"].append({"id": "again", "kind": "best_worst", "text": "text"}), "questions[2]",
     "at most one best_worst question"),
    (lambda d: d["questions"].append({"id": "cue", "kind": "span", "of": "text"}), "questions[2]",
     "beside it no question reading an item field"),
    (lambda d: d["questions"].append({"id": "why", "kind": "text", "when": {"positive": "x"}}),
     "questions[2].when.positive", "a `when` key naming an earlier question (a choice, multi, scale or pairwise"),
], ids=["text not shown", "two best_worst questions", "a span beside it", "when names it"])
def test_a_best_worst_check_across_the_definition_is_the_validators_and_the_schema_says_so(
        change: Callable[[dict[str, Any]], Any], path: str, words: str) -> None:
    data = changed(change, BWS_BASE)
    assert refusal(data).path == path
    assert schema_paths(data) == []
    assert words in SCHEMA["description"]


@pytest.mark.parametrize("change,path", [(c, p) for _, c, p in BROKEN], ids=[name for name, _, _ in BROKEN])
def test_a_broken_definition_is_refused_by_both_at_the_same_place(change: Callable[[dict[str, Any]], Any],
                                                                  path: str) -> None:
    data = changed(change)
    assert refusal(data).path == path
    found = schema_paths(data)
    assert found, f"the schema accepts what the validator refuses at {path}"
    assert any(_within(path, where) for where in found), (path, found)


def test_there_are_at_least_fifteen_broken_cases_each_its_own() -> None:
    assert len(BROKEN) >= 15
    assert len({name for name, _, _ in BROKEN}) == len(BROKEN)


# (case, the change, the validator's key path, the words of the schema's description naming what it cannot check)
VALIDATOR_ONLY: list[tuple[str, Callable[[dict[str, Any]], Any], str, str]] = [
    ("a question id twice", question(THEMES, id="sentiment"), "questions[1].id", "ids unique"),
    ("when names a later question", question(CUES, when={"better": "A"}), "questions[3].when.better",
     "a `when` key naming an earlier question"),
    ("when with an answer the question has not", question(CUES, when={"sentiment": "angry"}),
     "questions[3].when.sentiment", "its answers being that question's"),
    ("ties that is no option", question(SENTIMENT, gold={"rule": "majority", "ties": "angry"}),
     "questions[0].gold.ties", "answers written in gold"),
    ("a span of a field not shown", question(CUES, of="body"), "questions[3].of", "naming the right shown"),
    ("a pairwise question comparing a field with itself", question(BETTER, b="text"), "questions[4].b",
     "naming the right shown"),
    ("an option twice", question(THEMES, options=["life", "life"]), "questions[1].options[1]",
     "option and label values each once"),
    ("a scale's max below its min", question(INTENSITY, min=5, max=1, labels=None), "questions[2].max",
     "a scale's max above min"),
    ("a step that does not divide the scale", question(INTENSITY, step=3, labels=None), "questions[2].step",
     "its step dividing the range"),
    ("four point labels on five points", question(INTENSITY, labels=["a", "b", "c", "d"]), "questions[2].labels",
     "`labels` counting its points"),
    ("agree's m above k", question(SENTIMENT, gold={"rule": "agree", "m": 4}), "questions[0].gold.m",
     "m and min_votes at most k"),
    ("share's negative above its positive", question(THEMES, gold={"rule": "share", "positive": 0.3,
                                                                  "negative": 0.5}),
     "questions[1].gold.negative", "share's negative below positive"),
    ("a median on a nominal choice", question(SENTIMENT, gold="median"), "questions[0].gold.rule",
     "rules that need declared options"),
    ("control_score naming no question", top(control_score={"questions": ["tone"]}), "control_score.questions[0]",
     "control_score's questions"),
    ("a named rule's input naming no question",
     question(SENTIMENT, gold={"rule": "recam_selection", "difficulty": "nope", "passage_span": "entities",
                               "question_span": "cues"}), "questions[0].gold.difficulty",
     "named rules' inputs naming questions"),
    ("a ranking of a field not shown", question(MEMORABLE, fields=["text", "body"]), "questions[8].fields[1]",
     "a ranking's `fields` naming the right shown"),
    ("a ranking option twice", lambda d: d["questions"][MEMORABLE].update(fields=None, options=["calm", "calm"]),
     "questions[8].options[1]", "option and label values each once"),
    ("when names a ranking question",
     lambda d: d["questions"].append({"id": "why", "kind": "text", "when": {"memorable": ["text", "other"]}}),
     "questions[13].when.memorable", "a `when` key naming an earlier question (a choice, multi, scale or pairwise"),
    ("a span score without attributes", question(ENTITIES, score={"rule": "mqm", "weights": {"a": 1}}),
     "questions[5].score", "a spans question's `score` needing `attributes`"),
    ("an extractive question of a field not shown", question(SPEAKER, of="body"), "questions[9].of",
     "`of`, `a`, `b`"),
    ("when names an extractive question",
     lambda d: d["questions"].append({"id": "why", "kind": "text", "when": {"speaker": "unanswerable"}}),
     "questions[13].when.speaker", "a `when` key naming an earlier question (a choice, multi, scale or pairwise"),
    ("when names a graded pairwise question",
     lambda d: d["questions"].append({"id": "why", "kind": "text", "when": {"closer": "A"}}),
     "questions[13].when.closer", "never a graded pairwise one"),
    ("a distribution's option named as its question", question(MIX, options=["calm", "mix"]),
     "questions[10].options[1]", "a distribution's options other than its question's id"),
    ("relations of a question that is no spans question", question(LINKS, of="sentiment"), "questions[12].of",
     "a relations question's `of` naming an earlier spans question"),
    ("a relation type's end naming no label of the spans question",
     question(LINKS, labels=[{"value": "lives_in", "from": ["ORG"]}]), "questions[12].labels[0].from[0]",
     "its types' `from` and `to` naming that question's labels"),
    ("mean_grade on a pairwise question without grades", question(BETTER, gold="mean_grade"),
     "questions[4].gold.rule", "mean_grade only on a pairwise question with grades"),
]


@pytest.mark.parametrize("change,path,words", [(c, p, w) for _, c, p, w in VALIDATOR_ONLY],
                         ids=[name for name, _, _, _ in VALIDATOR_ONLY])
def test_a_check_across_the_definition_is_the_validators_and_the_schema_says_so(
        change: Callable[[dict[str, Any]], Any], path: str, words: str) -> None:
    data = changed(change)
    data = json.loads(json.dumps(data))
    for entry in data["questions"]:       # `labels=None` above: the key taken out (None is a key left out)
        for key in [key for key, value in entry.items() if value is None]:
            del entry[key]
    assert refusal(data).path == path
    assert schema_paths(data) == []
    assert words in SCHEMA["description"]


def test_a_key_set_to_null_is_left_out_for_the_validator_and_marked_by_the_schema() -> None:
    """The one place the schema is stricter, said in its description: an editor marks `prompt: null`, which the
    validator takes as the key left out (docs/declared-campaigns.md)."""
    data = changed(question(COMMENT, prompt=None))
    assert definition_from_data(copy.deepcopy(data)).question("comment").prompt == "comment"
    assert set(schema_paths(data)) == {"questions[6].prompt"}
    assert "a key set to null" in SCHEMA["description"]


# --- the same keys, kinds, rules and levels ------------------------------------------------------------------------

def known_here(data: dict[str, Any]) -> set[str]:
    """The keys the validator's refusal of an unknown key lists as known there."""
    message = refusal(data).message
    return set(re.search(r"known here: (.*)$", message).group(1).split(", "))  # type: ignore[union-attr]


def resolved(node: dict[str, Any]) -> dict[str, Any]:
    while "$ref" in node:
        node = SCHEMA["$defs"][node["$ref"].rsplit("/", 1)[1]]
    return node


def test_the_top_level_keys_are_the_validators() -> None:
    assert set(SCHEMA["properties"]) == known_here(changed(top(zzz=1)))


def test_a_shown_fields_keys_are_the_validators() -> None:
    entry = next(e for e in SCHEMA["$defs"]["shown"]["anyOf"] if e.get("type") == "object")
    assert set(entry["properties"]) == known_here(changed(lambda d: d["show"][1].update(zzz=1)))
    assert entry["properties"]["as"]["enum"] == list(SHOW_AS)


def test_each_kinds_keys_rules_and_levels_are_the_validators() -> None:
    question_schema = SCHEMA["$defs"]["question"]
    assert question_schema["properties"]["kind"]["enum"] == list(KINDS)
    branches = {b["if"]["properties"]["kind"]["const"]: resolved(b["then"]) for b in question_schema["allOf"]}
    assert set(branches) == set(KINDS)
    index = {q.get("kind"): n for n, q in enumerate(BASE["questions"])}
    for kind in KINDS:
        assert branches[kind]["additionalProperties"] is False, kind   # marked by editors that ignore unevaluated*
        keys = set(branches[kind]["properties"])   # a text's gold and agreement: false (known, and refused)
        assert set(question_schema["properties"]) <= keys, kind
        unknown = changed(question(POSITIVE, zzz=1), BWS_BASE) if kind == "best_worst" else \
            changed(question(index[kind], zzz=1))
        assert keys == known_here(unknown), kind
        if kind == "text":
            continue
        gold = resolved(branches[kind]["properties"]["gold"])
        assert gold["anyOf"][0]["enum"] == list(RULES[kind]), kind
        rules = {resolved(m)["properties"]["rule"]["const"] for m in gold["anyOf"][1:]}
        named = {name for name, rule in named_rules().items() if rule.used_as == "gold" and kind in rule.carrier}
        assert rules == set(RULES[kind]) | named, kind
        levels = resolved(branches[kind]["properties"]["agreement"])["anyOf"][0]["enum"]
        assert levels == (list(LEVELS) if kind in ("scale", "ranking", "best_worst", "distribution") else
                          ["nominal", "ordinal"] if kind == "choice" else ["nominal"]), kind
    assert branches["spans"]["properties"]["edges"]["enum"] == list(spans.EDGES)


def test_the_named_rules_are_the_shared_tasks() -> None:
    """A named rule a shared task adds must be added to the schema (its keys are the rule's own)."""
    for name, rule in named_rules().items():
        if rule.used_as == "gold":
            assert set(SCHEMA["$defs"][f"gold_{name}"]["properties"]) == set(rule.keys), name
        else:
            assert name in SCHEMA["properties"]["checks"]["items"]["properties"]["rule"]["enum"]
            one_by_one = SCHEMA["$defs"][f"check_{name}"]["anyOf"][0]
            assert set(one_by_one["properties"]) == set(rule.keys), name


# --- drawn over the whole format -----------------------------------------------------------------------------------

@FAST
@given(definitions())
def test_a_definition_the_validator_accepts_is_never_marked_by_the_schema(data: dict[str, Any]) -> None:
    definition_from_data(copy.deepcopy(data))
    assert schema_paths(data) == []


@FAST
@given(certainly_broken())
def test_a_fault_in_keys_or_kinds_is_marked_by_the_schema_where_the_validator_refuses(
        broken: tuple[dict[str, Any], str]) -> None:
    data, path = broken
    found = schema_paths(data)
    if path.endswith(".when.no_such_question"):     # naming no question: the validator's alone
        return
    assert any(_within(path, where) for where in found), (path, found)
