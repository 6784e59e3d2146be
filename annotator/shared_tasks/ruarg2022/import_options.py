"""What a RuArg-2022 import asks for: the stage, the m of the rules, the claims and the HIT's language.

Why: these were the built-in stance_premise type's project settings; since the switch to one engine
(docs/one-engine.md) a RuArg project is a declared project whose definition holds them (declared_projects.py
`definition_for`), so they are the format's import options, with the settings' names, checks and defaults:
`flask import ruarg2022 --stage stance --agree 3 --claims ... --language ru` and the import page's fields ask for
the same as before. A further import into a project reads the options not given from its definition
(`declared_projects.settings_of_definition`).
"""
from __future__ import annotations

import re
from typing import Any

from annotator.core.options import Option

DEFAULT_CLAIMS = (
    {"key": "masks", "en": "Wearing masks is beneficial for society", "ru": "Ношение масок полезно для общества"},
    {"key": "quarantine", "en": "The introduction and observance of quarantine is beneficial for society",
     "ru": "Введение и соблюдение карантина полезно для общества"},
    {"key": "vaccines", "en": "Vaccination is beneficial for society", "ru": "Вакцинация полезна для общества"},
)
# The Russian HIT's words, as the built-in type's Russian HIT said them (declared_projects puts them on the
# definition's questions and options).
RU_WORDS: dict[Any, str] = {
    "relevant": "Релевантно", "irrelevant": "Нерелевантно", "stance": "Позиция автора", "premise": "Довод",
    2: "за", 0: "против", "stance 1": "другое", "premise 1": "нет довода",
    "choose relevance": "Укажите, относится ли предложение к этому утверждению.",
    "choose stance": "Выберите позицию автора.", "choose premise": "Выберите метку довода."}
STAGE_CHOICES = ("both", "stance", "premise")
PREMISE_FROM_A_FILE = (
    "a premise-stage project is not imported from a file: its sentences are the stance stage's decided ones that "
    "are relevant to a claim. Make it (or add to it) with flask premise-stage --from STANCE --project SLUG, or on "
    "the stance project's admin page (Create / extend the premise stage)")


def parse_claims(text: str) -> tuple[dict[str, str], ...]:
    """Claims from lines "key | English | Russian" (the Russian name may be left out)."""
    claims = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        parts = [p.strip() for p in line.split("|")]
        if len(parts) not in (2, 3) or not parts[1]:
            raise ValueError(f"line {number}: write a claim as key | English name | Russian name")
        if not re.fullmatch(r"[a-z][a-z0-9_]{0,30}", parts[0]):
            raise ValueError(f"line {number}: the key {parts[0]!r} must be lower-case letters, digits or _")
        claims.append({"key": parts[0], "en": parts[1], "ru": parts[2] if len(parts) == 3 and parts[2] else parts[1]})
    keys = [c["key"] for c in claims]
    if not claims or len(set(keys)) != len(keys):
        raise ValueError("give at least one claim, each key once")
    return tuple(claims)


def show_claims(claims: Any) -> str:
    """Claims as the lines `parse_claims` reads."""
    return "\n".join(f"{c['key']} | {c['en']} | {c['ru']}" for c in claims)


OPTIONS = (
    Option("agree", int, 2, label="A label needs the same code from at least this many annotators (m of n)",
           help="RuArg-2022: 2 of 3; 3 of 4 on the test set", minimum=1, maximum=100, required=True),
    Option("relevant_votes", int, 2, label="A claim is relevant when at least this many annotators marked it relevant",
           help="RuArg-2022: 2, whatever m the labels need (the paper, section 3.1)", minimum=1, maximum=100,
           required=True),
    Option("stage", str, "both", label="What the HIT asks per claim",
           help="both: relevance, stance and premise; stance: relevance and stance (RuArg's first stage); premise: "
                "made by flask premise-stage from a stance stage, not imported", choices=STAGE_CHOICES, required=True),
    Option("claims", str, DEFAULT_CLAIMS, label="Claims, one per line: key | English | Russian",
           help="the keys name the label columns of the export and the votes answer these claims",
           multiline=True, convert=parse_claims, show=show_claims, required=True),
    Option("language", str, "en", label="Interface language of the HIT", choices=("en", "ru"), required=True),
)
OPTION_NAMES = tuple(option.name for option in OPTIONS)
