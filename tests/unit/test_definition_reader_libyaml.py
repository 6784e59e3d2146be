"""A definition is read with libyaml's parser when its text is in the subset both parsers read alike, and with
PyYAML's own otherwise (annotator/declared/definition_reader.py): what libyaml reads is what PyYAML's parser reads
(the data and every key path's line), and whatever it refuses is refused in PyYAML's words."""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotator.declared import definition_reader as reader
from annotator.declared.definition import DefinitionError

ROOT = Path(__file__).resolve().parents[2]
DEFINITIONS = sorted({*ROOT.glob("examples/**/*.yaml"), *ROOT.glob("annotator/shared_tasks/**/*.yaml")})
TEXTS = [path.read_text(encoding="utf-8") for path in DEFINITIONS]


def _read(text: str, loader_class: Any) -> tuple[str, Any, Any]:
    """What `_parse` reads from the text with one parser: ("ok", data, lines) or ("refused", the error's type)."""
    data: Any = reader._NOTHING
    if text.lstrip(" \t\r\n").startswith(("{", "[")):
        try:
            data, text = json.loads(text), text.replace("\t", " ")
        except (ValueError, RecursionError):
            data = reader._NOTHING
    try:
        read, lines = reader._read(text, data, loader_class)
    except Exception as error:   # any refusal: _parse reads the text again with PyYAML's parser
        return "refused", type(error).__name__, None
    return "ok", read, lines


def _read_alike(text: str) -> None:
    """A text libyaml may read and reads is read alike by PyYAML's parser."""
    if not reader._fast_reads(text):
        return
    fast = _read(text, yaml.CSafeLoader)
    if fast[0] == "ok":
        assert _read(text, yaml.SafeLoader) == fast, text


def test_pyyaml_here_has_libyaml() -> None:
    assert yaml.__with_libyaml__


@pytest.mark.parametrize("path", DEFINITIONS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_example_and_shared_task_definition_is_read_by_libyaml_as_pyyaml_reads_it(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    assert reader._fast_reads(text)
    fast = _read(text, yaml.CSafeLoader)
    assert fast[0] == "ok"
    assert fast == _read(text, yaml.SafeLoader)
    assert reader._parse(text, "d") == (fast[1], fast[2])


# Texts libyaml reads otherwise than PyYAML's parser (each found by comparing the two): left to PyYAML's parser.
READ_OTHERWISE = [
    "e\t\t\t", "- a1- \t", "\r---", "\n1:\x85\ufeff1`:`", "\u2028::\t", "\ufeffa\ufeff", "!", "- !", "1111: !",
    "---", "--- ", "\n---", "%YAML 1.1\n---", ">#", "a: |#\n  b", "{label: Why? }", "players: [m?odel_a, b]",
    "gold: {rule?: agree, m: 2}", "- {field: a, label: Ne? }",
]


@pytest.mark.parametrize("text", READ_OTHERWISE)
def test_a_text_libyaml_reads_otherwise_is_read_by_pyyaml_s_parser(text: str) -> None:
    _read_alike(text)
    slow = _read(text, yaml.SafeLoader)
    try:
        parsed: Any = ("ok", *reader._parse(text, "d"))
    except DefinitionError as error:
        parsed = ("refused", error.path, error.message, error.line, error.column)
    if slow[0] == "ok":
        assert parsed == slow
    else:
        assert parsed[0] == "refused"
        original = reader._fast_reads
        try:
            reader._fast_reads = lambda text: False   # PyYAML's parser alone: the words are the same
            with pytest.raises(DefinitionError) as alone:
                reader._parse(text, "d")
        finally:
            reader._fast_reads = original
        assert parsed[1:] == (alone.value.path, alone.value.message, alone.value.line, alone.value.column)


PIECES = [*"ab:- \n\t#{}[],'\"&*!|>?%@`.\\0x1e\r", "\x85", "\u2028", "\ufeff", "é", "\x7f", "\ud800", "  ", "- ",
          ": ", "\n  ", "---", "...", "!!str ", "&a ", "*a", "<<: ", "%YAML 1.1\n", "\\u", "d83d", "\\/", "\\N",
          "1e3", "0o7", "0x1F", "1_000", "2024-13-01", ".inf", "yes", "~", "null", "\U0001F600", "\u3000", "a" * 1030]


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
def test_random_text_libyaml_reads_is_read_alike_by_pyyaml_s_parser(text: str) -> None:
    _read_alike(text)


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(TEXTS), st.lists(st.tuples(st.floats(0, 1), st.sampled_from([0, 0, 1, 2, 5, 20]),
                                                  st.sampled_from([*PIECES, "? ", "\n- ", "{a: [b, {c: d}]}", ""])),
                                        min_size=1, max_size=4))
def test_an_example_changed_here_and_there_is_read_alike_by_both_parsers(text: str, changes: Any) -> None:
    for where, length, piece in changes:
        start = int(where * len(text))
        text = text[:start] + piece + text[start + length:]
    _read_alike(text)
