"""How each part of a declared definition is checked: a mapping's keys and values (`Keys`), the shown fields,
and each question (its kind's keys, `when`, gold rule, agreement). definition.py reads the file and the
top-level keys, and is where the public names live; every error here is a DefinitionError whose path is the
key path in the document, and whose message says what is wrong and what would fit.
"""
from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from typing import Any

from annotator.declared import (
    also,
    best_worst,
    boundaries,
    derived,
    distribution,
    extractive,
    graded,
    groups,
    item_when,
    option_values,
    option_words,
    ranking,
    relations,
    spans,
    unasked,
)
from annotator.declared import shown as shown_kinds
from annotator.declared.definition import (
    DEFAULT_LEVEL,
    DEFAULT_RULE,
    FIELD_PATH,
    IDENTIFIER,
    KINDS,
    LEVELS,
    MAX_OPTIONS,
    NOT_ASKED,
    RESERVED_FIELDS,
    RULES,
    SHOW_AS,
    UNDECIDED,
    DefinitionError,
    GoldRule,
    OptionSpec,
    Question,
    Shown,
    answer_values,
    join_path,
    number_text,
)
from annotator.declared.item_view import field_problem, named, token_keys
from annotator.declared.keys import Keys, add_once, plain_text
from annotator.declared.keys import finite as _finite
from annotator.declared.keys import kind as _kind
from annotator.declared.keys import number_words as _num
from annotator.declared.named_rules import check_rules as check_rules  # definition.py's, beside the other checks
from annotator.declared.named_rules import gold_rule
from annotator.declared.rules import share_bounds

LANGUAGE = re.compile(r"^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*\Z")
MAX_LANGUAGES = 20


def languages(top: Keys) -> tuple[str, ...]:
    """`language: en` or `language: [en, de]`: ISO 639 codes (a region after a hyphen: pt-BR), each once."""
    value = top.data.get("language")
    if value is None:
        return ()
    entries = value if isinstance(value, list) else [value]
    path = top.at("language")
    if not entries or len(entries) > MAX_LANGUAGES:
        raise DefinitionError(path, f"must list 1 to {MAX_LANGUAGES} languages, not {len(entries)}")
    codes: list[str] = []
    for index, entry in enumerate(entries):
        where = f"{path}[{index}]" if isinstance(value, list) else path
        code = plain_text(entry, where, 20, "a language code such as en or pt-BR")
        if not LANGUAGE.match(code):
            raise DefinitionError(where, f"{code!r} is not a language code: two or three lower-case letters "
                                         "(ISO 639: en, de, ru), with a region after a hyphen if needed (pt-BR)")
        add_once(codes, code, where)
    return tuple(codes)


def show_fields(top: Keys) -> tuple[Shown, ...]:
    entries = top.listed("show", required=True)
    if not entries:
        raise DefinitionError("show", "must list at least one field of the item to show")
    shown: list[Shown] = []
    for index, entry in enumerate(entries):
        path = f"show[{index}]"
        if isinstance(entry, str):
            entry = {"field": entry}
        keys = Keys(entry, path, ("field", "as", "label", *shown_kinds.KEYS), "a field name or {field, as, label}")
        name = named(keys, "field")
        if name in RESERVED_FIELDS:
            raise DefinitionError(keys.at("field"), f"{name!r} is {RESERVED_FIELDS[name]}; show another field")
        if any(s.field == name for s in shown):
            raise DefinitionError(keys.at("field"), f"{name!r} is shown twice")
        kind = keys.text("as", "text")
        if kind not in SHOW_AS:
            raise DefinitionError(keys.at("as"), f"{kind[:40]!r} is not one of {', '.join(SHOW_AS)}")
        spec = shown_kinds.spec(keys, kind, name)
        shown.append(Shown(name, kind, keys.text("label", ""), spec, shown_kinds.reads(spec)))
    shown_kinds.check_show(tuple(shown))
    return tuple(shown)


QUESTION_KEYS = {
    "choice": ("options", "options_from", *option_values.KEYS),
    "multi": ("options", "options_from", "none", *option_values.KEYS),
    "scale": ("min", "max", "step", "anchors", option_words.LABELS),
    "span": ("of", "token_id", "token_text", boundaries.KEY),
    "pairwise": ("a", "b", "players", "allow_equal", derived.KEY, graded.KEY),
    "text": ("max_length",),
    "spans": spans.KEYS,
    "ranking": ranking.KEYS,
    "best_worst": best_worst.KEYS,
    "extractive": extractive.KEYS,
    "distribution": distribution.KEYS,
    "relations": relations.KEYS,
}
COMMON_KEYS = ("id", "kind", "prompt", "required", "when", "gold", "agreement")
GOLD_KEYS = {"majority": ("rule", "ties", *groups.GOLD_KEYS), "share": ("rule", "value", "positive", "negative"),
             "agree": ("rule", "m", "value", "otherwise")}


def question(entry: Any, path: str, fields: Mapping[str, Shown], earlier: list[Question],
             k: int | None = None) -> Question:
    if not isinstance(entry, dict):
        raise DefinitionError(path, f"must be a mapping with id and kind, not {_kind(entry)}")
    kind = Keys({"kind": entry.get("kind")}, path, ("kind",)).text("kind")
    if kind not in KINDS:
        raise DefinitionError(join_path(path, "kind"), f"{kind[:40]!r} is not one of {', '.join(KINDS)}")
    known = COMMON_KEYS + QUESTION_KEYS[kind]
    for key in entry:
        owners = [other for other, keys in QUESTION_KEYS.items() if key in keys and key not in known]
        if owners:
            named = f"{', '.join(owners[:-1])} and {owners[-1]}" if len(owners) > 1 else owners[0]
            raise DefinitionError(join_path(path, key), f"is a key of {named} questions, not of a "
                                                        f"{kind} one; known here: {', '.join(known)}")
    keys = Keys(entry, path, known)
    qid = keys.text("id", pattern=IDENTIFIER, what="an id (lower-case letters, digits and _, starting with a "
                                                    "letter, at most 40)")
    if any(q.id == qid for q in earlier):
        raise DefinitionError(keys.at("id"), f"{qid!r} is the id of an earlier question; ids must differ")
    spec: dict[str, Any] = {"id": qid, "kind": kind, "prompt": keys.text("prompt", qid, limit=1000),
                            "required": keys.flag("required", True)}
    if kind == "pairwise" and keys.has(derived.KEY):   # not asked: derived from other answers (derived.py)
        if keys.has(graded.KEY):   # nobody answers it, so nobody grades it (graded.py)
            raise DefinitionError(keys.at(graded.KEY), "a derived question is answered by no one, so it has no "
                                                       "grades; leave grades out")
        spec.update(derived.parts(keys, fields, earlier))
    elif kind == "relations":   # relates the marks of an earlier spans question (relations.py)
        spec.update(relations.kind_parts(keys, earlier))
    else:
        spec.update(_KIND_PARTS[kind](keys, fields))
    spec["when"] = _when(keys, qid, earlier)
    if kind == "relations":   # asked with its spans question: a condition of its own is refused (relations.py)
        relations.refuse_when(keys)
    spec["item_when"] = item_when.item_part(keys)   # `item.<field>` keys of `when` (item_when.py)
    if kind == "relations":   # asked of the items its spans question is asked of (relations.py)
        spec["item_when"] = relations.item_condition(spec["relations"], earlier)
    shown_kinds.check_reads(fields, path, {"options_from": (spec.get("options_from"),), "players": spec.get("players")})
    partial = Question(**spec)
    done = Question(**{**spec, "gold": _gold(keys, partial, k, earlier), "agreement": _agreement(keys, partial)})
    made = dataclasses.replace(done, merged=groups.merged_part(keys, done), pooled=groups.pooled_part(keys, done),
                               not_asked=unasked.not_asked_part(keys, done, earlier),
                               per_element=unasked.per_element_part(keys, done))
    item_when.refuse_with_not_asked(made, keys)
    return made


def _options(keys: Keys, fields: Mapping[str, Shown]) -> dict[str, Any]:
    if keys.has("options") == keys.has("options_from"):
        raise DefinitionError(keys.path, "give the options (options: [...]) or the item field holding them "
                                         "(options_from: field), one of the two")
    if keys.has("options_from"):
        name = named(keys, "options_from")
        if name in RESERVED_FIELDS:
            raise DefinitionError(keys.at("options_from"), f"{name!r} is {RESERVED_FIELDS[name]}; name another field")
        return {"options_from": name, **option_values.values_part(keys)}
    entries = keys.listed("options")
    if len(entries) < 2:
        raise DefinitionError(keys.at("options"), f"must list at least two options, not {len(entries)}")
    if len(entries) > MAX_OPTIONS:
        raise DefinitionError(keys.at("options"), f"lists {len(entries)} options; at most {MAX_OPTIONS}")
    options: list[OptionSpec] = []
    for index, entry in enumerate(entries):
        path = f"{keys.at('options')}[{index}]"
        if isinstance(entry, dict):
            option = Keys(entry, path, option_words.OPTION_KEYS)
            value, label = option.text("value", limit=100), option.text("label", "", limit=500)
            description = option_words.description_part(option)   # shown under the option (option_words.py)
            path = option.at("value")
        else:
            value, label = plain_text(entry, path, 100, "text, a number or {value, label, description}"), ""
            description = ""
        if not value.strip():
            raise DefinitionError(path, "an option's value must not be blank")
        if value in (UNDECIDED, NOT_ASKED):
            raise DefinitionError(path, f"{value!r} is what gold says when it is not decided; "
                                        "name the option otherwise")
        if any(o.value == value for o in options):
            raise DefinitionError(path, f"{value!r} is listed twice")
        options.append(OptionSpec(value, label or value, description))
    return {"options": tuple(options), **option_values.values_part(keys)}


def _multi(keys: Keys, fields: Mapping[str, Shown]) -> dict[str, Any]:
    return {**_options(keys, fields), "none": keys.text("none", "", limit=200) or None}


def _scale(keys: Keys, fields: Mapping[str, Shown]) -> dict[str, Any]:
    low = keys.number("min", 1, low=-1e6, high=1e6)
    high = keys.number("max", 5, low=-1e6, high=1e6)
    step = keys.number("step", 1, low=1e-6, high=2e6)
    if high <= low:
        raise DefinitionError(keys.at("max" if keys.has("max") else "min"),
                              f"max ({_num(high)}) must be above min ({_num(low)})")
    steps = (high - low) / step
    if abs(steps - round(steps)) > 1e-9 * max(1.0, steps) or round(steps) < 1:
        nearest = (high - low) / max(1, round(steps))
        raise DefinitionError(keys.at("step"), f"{_num(step)} does not divide max - min ({_num(high - low)}) into "
                                               f"whole steps; the nearest step that does is {_num(nearest)}")
    if round(steps) > 100:
        raise DefinitionError(keys.at("step"), f"{_num(step)} gives {round(steps) + 1} points from {_num(low)} to "
                                               f"{_num(high)}; at most 101")
    anchors = keys.listed("anchors")
    if anchors and len(anchors) != 2:
        raise DefinitionError(keys.at("anchors"), f"lists {len(anchors)}; must be two words or phrases: "
                                                  "[lowest end, highest end]")
    texts = tuple(plain_text(a, f"{keys.at('anchors')}[{i}]", 100) for i, a in enumerate(anchors))
    points = Question("", "scale", "", minimum=low, maximum=high, step=step).scale_values()
    return {"minimum": low, "maximum": high, "step": step, "anchors": texts if texts else ("", ""),
            "point_labels": option_words.point_labels_part(keys, points)}   # words on every point (option_words.py)


def _span(keys: Keys, fields: Mapping[str, Shown]) -> dict[str, Any]:
    of = named(keys, "of")
    texts = [name for name, s in fields.items() if s.kind in ("text", "title")]
    if of not in texts:
        raise DefinitionError(keys.at("of"), f"{of!r} must be a shown field drawn as text or title "
                                             f"({', '.join(texts) or 'show has none'})")
    return {"of": of, **token_keys(keys), **boundaries.key_part(keys)}


def _pairwise(keys: Keys, fields: Mapping[str, Shown]) -> dict[str, Any]:
    a = named(keys, "a")
    b = named(keys, "b")
    for key, name in (("a", a), ("b", b)):
        if name not in fields:
            raise DefinitionError(keys.at(key), f"{name!r} must be one of the shown fields ({', '.join(fields)})")
    if a == b:
        raise DefinitionError(keys.at("b"), f"must be another shown field than a ({a!r})")
    players = keys.listed("players")
    if players and (len(players) != 2 or not all(isinstance(p, str) and FIELD_PATH.match(p) for p in players)
                    or players[0] == players[1] or any(p in RESERVED_FIELDS for p in players)):
        raise DefinitionError(keys.at("players"), "must be two different item fields naming what A and B are: "
                                                  "[a_id, b_id]")
    for side, player in enumerate(players):
        if (problem := field_problem(player)) is not None:
            raise DefinitionError(f"{keys.at('players')}[{side}]", problem)
    return {"a": a, "b": b, "players": tuple(players) if players else None,
            "allow_equal": keys.flag("allow_equal", True), **graded.key_part(keys)}   # grades (graded.py)


def _text(keys: Keys, fields: Mapping[str, Shown]) -> dict[str, Any]:
    return {"max_length": int(keys.number("max_length", 500, low=1, high=10_000, integer=True))}


def _ranking(keys: Keys, fields: Mapping[str, Shown]) -> dict[str, Any]:
    return ranking.kind_parts(keys, fields, _options)   # declared options are read as a choice's


def _distribution(keys: Keys, fields: Mapping[str, Shown]) -> dict[str, Any]:
    return distribution.kind_parts(keys, fields, _options)   # declared options are read as a choice's


_KIND_PARTS = {"choice": _options, "multi": _multi, "scale": _scale, "span": _span, "pairwise": _pairwise,
               "text": _text, "spans": spans.kind_parts, "ranking": _ranking,
               "best_worst": best_worst.kind_parts, "extractive": extractive.kind_parts, "distribution": _distribution}


def _values(question: Question) -> tuple[str, ...] | None:
    """What an answer (or gold) of the question can be; None when the item gives the options."""
    return question.option_values() or None if question.kind == "multi" else answer_values(question)


def _answer_text(value: Any, path: str, question: Question) -> str:
    """An answer written in the definition (`when`, gold's ties / value / otherwise) as labels store it."""
    what = "an answer" + (" (a number on the scale)" if question.kind == "scale" else "")
    if question.kind == "scale" and isinstance(value, (int, float)) and not isinstance(value, bool) \
            and _finite(value):
        return number_text(value)
    return plain_text(value, path, 100, what)


def _when(keys: Keys, qid: str, earlier: list[Question]) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not keys.has("when"):
        return ()
    condition = keys.data["when"]
    if not isinstance(condition, dict) or not condition:
        raise DefinitionError(keys.at("when"), "must map an earlier question's id to the answer(s) that show "
                                               "this one, e.g. when: {sarcastic: \"yes\"}")
    parts = []
    for parent_id, wanted in condition.items():
        if item_when.is_item_key(parent_id):
            continue   # an item condition (item_when.py)
        if not isinstance(parent_id, str):
            raise DefinitionError(keys.at("when"), f"its keys must be ids of earlier questions, not {_kind(parent_id)}")
        path = join_path(keys.at("when"), parent_id)
        parent = next((q for q in earlier if q.id == parent_id), None)
        if parent is None:
            before = ", ".join(q.id for q in earlier) or "none: this is the first question"
            reason = "a question cannot depend on itself" if parent_id == qid else \
                f"{parent_id[:40]!r} is not an earlier question"
            raise DefinitionError(path, f"{reason} (earlier questions: {before})")
        if parent.kind not in ("choice", "multi", "scale", "pairwise"):
            raise DefinitionError(path, f"a {parent.kind} question cannot decide whether another is shown; "
                                        "only choice, multi, scale and pairwise ones")
        if parent.grades:   # its answers are grades, its gold a side: neither reads as the other (graded.py)
            raise DefinitionError(path, "a graded pairwise question cannot decide whether another is shown; "
                                        "only choice, multi, scale and ungraded pairwise ones")
        values = wanted if isinstance(wanted, list) else [wanted]
        if not values:
            raise DefinitionError(path, "must be an answer, or a list of answers")
        texts = tuple(_answer_text(v, f"{path}[{i}]" if isinstance(wanted, list) else path, parent)
                      for i, v in enumerate(values))
        allowed = _values(parent)
        for text in texts:
            if allowed is not None and text not in allowed:
                raise DefinitionError(path, f"{text[:40]!r} is not an answer of {parent_id!r} ({', '.join(allowed)})")
        parts.append((parent_id, texts))
    return tuple(parts)


def _gold(keys: Keys, question: Question, k: int | None, earlier: list[Question]) -> GoldRule | None:
    kind = question.kind
    if kind == "text":
        if keys.has("gold"):
            raise DefinitionError(keys.at("gold"), "a text question has no gold (free text is not aggregated)")
        return None
    raw = keys.data.get("gold")
    raw = {"rule": DEFAULT_RULE[kind]} if raw is None else {"rule": raw} if isinstance(raw, str) else raw
    named = gold_rule(raw, keys.at("gold"), question)   # a shared task's rule (named_rules.py)
    if named is not None:
        return named
    gold = Keys(raw, keys.at("gold"), ("rule", "ties", "value", "positive", "negative", "m", "otherwise",
                                       *groups.GOLD_KEYS, also.KEY),
                "a rule's name or a mapping {rule: ...}")
    rule = gold.text("rule")
    if rule not in RULES[kind]:
        raise DefinitionError(gold.at("rule"), f"{rule[:40]!r} does not apply to a {kind} question; "
                                               f"use one of {', '.join(RULES[kind])}")
    further = also.decisions(gold, question, k, earlier, _answer_text, _values(question))   # declared/also.py
    if kind == "spans":
        return spans.gold_rule(gold, rule, k)
    if kind == "ranking":
        return GoldRule(rule=ranking.gold_rule(gold, rule))
    if kind == "best_worst":
        return GoldRule(rule=best_worst.gold_rule(gold, rule))
    if kind == "extractive":
        return extractive.gold_rule(gold, rule)
    if kind == "distribution":
        return GoldRule(rule=distribution.gold_rule(gold, rule))
    if kind == "relations":
        return relations.gold_rule(gold, rule, k)
    graded.gold_rule_check(gold.at("rule"), question, rule)   # mean_grade: a graded pairwise question's
    option_values.check_rule(keys, gold, question, rule)
    allowed = (*GOLD_KEYS.get(rule, ("rule",)), *((also.KEY,) if kind in also.KINDS else ()))
    for key in gold.data:
        if key not in allowed:
            raise DefinitionError(gold.at(key), f"the {rule} rule has no {key!r}; its keys: {', '.join(allowed)}")
    values = _values(question)

    def option(key: str, default: str, extra: tuple[str, ...] = ()) -> str:
        text = _answer_text(gold.data[key], gold.at(key), question) if gold.has(key) else default
        if text in extra or (values is None and text != NOT_ASKED) or values is not None and text in values:
            return text
        fits = ", ".join((*extra, *(values or ())))
        raise DefinitionError(gold.at(key), f"{text[:40]!r} is not an answer of this question ({fits})")

    spec: dict[str, Any] = {"rule": rule}
    if rule == "majority":
        spec["ties"] = option("ties", UNDECIDED, (UNDECIDED,))
        spec.update(groups.gold_parts(gold, question))
    elif rule == "share":
        positive, negative = share_bounds(gold)
        spec.update(positive=positive, negative=negative)
        if kind == "choice":
            if not gold.has("value"):
                raise DefinitionError(gold.at("value"), "is required: the option whose share is counted")
            spec["value"] = option("value", "")
        elif gold.has("value"):
            raise DefinitionError(gold.at("value"), f"a {kind} question's share is counted per "
                                                     f"{'option' if kind == 'multi' else 'word'}; leave value out")
    elif rule == "agree":
        spec["m"] = int(gold.number("m", 2, low=1, high=100, integer=True))
        if k is not None and spec["m"] > k:
            raise DefinitionError(gold.at("m" if gold.has("m") else "rule"),
                                  f"m ({spec['m']}) is more than the k ({k}) annotators an item gets; at most {k}")
        if gold.has("value"):
            spec["value"] = option("value", "")
        spec["otherwise"] = option("otherwise", UNDECIDED, (UNDECIDED,))
    return GoldRule(**spec, also=further)


def _agreement(keys: Keys, question: Question) -> str | None:
    if question.kind == "text":
        if keys.has("agreement"):
            raise DefinitionError(keys.at("agreement"), "a text question has no agreement (free text)")
        return None
    level = groups.agreement_level(keys, DEFAULT_LEVEL[question.kind])
    at = keys.at("agreement") + (".level" if isinstance(keys.data.get("agreement"), dict) else "")
    if level not in LEVELS:
        raise DefinitionError(at, f"{level[:40]!r} is not one of {', '.join(LEVELS)}")
    return option_values.check_level(keys, question, level, at)  # ordinal on a choice (option_values.py)
