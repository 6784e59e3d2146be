"""Declared options: one parser for values from command lines, forms, query strings and JSON."""
from __future__ import annotations

from pathlib import Path

import pytest

from annotator.core.options import Option, OptionError, parse_options

SHARE = Option("share", float, 0.6, minimum=0.0, maximum=1.0)
COUNT = Option("count", int, 2, minimum=1, maximum=9)
FLAG = Option("flag", bool, False)
SPLIT = Option("split", str, "dev", pattern=r"[a-z]{1,5}", rule="1 to 5 lower-case letters")
KIND = Option("kind", str, "a", choices=("a", "b"))


@pytest.mark.parametrize("option, text, value", [
    (SHARE, "0.75", 0.75), (SHARE, 1, 1.0), (COUNT, " 3 ", 3), (FLAG, "yes", True), (FLAG, "off", False),
    (FLAG, "", False), (SPLIT, "test", "test"), (KIND, "b", "b"), (Option("p", Path), "a/b", Path("a/b")),
])
def test_text_and_typed_values_are_parsed_to_the_options_type(option: Option, text: object, value: object) -> None:
    assert option.parse(text) == value and type(option.parse(text)) is type(value)


@pytest.mark.parametrize("option, text, message", [
    (SHARE, "1.5", "option share must be between 0 and 1, not '1.5'"),
    (SHARE, "nan", "option share must be a float, not 'nan'"),
    (SHARE, "inf", "option share must be a float"),
    (COUNT, "2.5", "option count must be a int, not '2.5'"),
    (COUNT, True, "option count must be a int"),
    (COUNT, "1" * 30, "option count must be a int"),
    (FLAG, "maybe", "option flag must be a bool, not 'maybe'"),
    (SPLIT, "../x", "option split must be 1 to 5 lower-case letters, not '../x'"),
    (KIND, "c", "option kind must be one of ('a', 'b'), not 'c'"),
])
def test_values_that_do_not_fit_are_refused_naming_the_option(option: Option, text: object, message: str) -> None:
    with pytest.raises(OptionError) as caught:
        option.parse(text)
    assert message in str(caught.value)


def test_empty_text_means_unset_unless_required() -> None:
    assert SHARE.parse("") is None
    with pytest.raises(OptionError, match="option need is required"):
        Option("need", str, required=True).parse("")


def test_multiple_values_come_one_per_line_or_as_a_list() -> None:
    many = Option("names", str, multiple=True)
    assert many.parse("a\n\n b\n") == ("a", " b") and many.parse(["x", "y"]) == ("x", "y")
    assert many.text(("a", "b")) == "a\nb"


def test_a_converter_makes_rich_values_from_text_and_a_shower_turns_them_back() -> None:
    pairs = Option("pairs", str, convert=lambda text: dict(line.split("=") for line in text.splitlines()),
                   show=lambda value: "\n".join(f"{k}={v}" for k, v in value.items()))
    value = pairs.parse("a=1\nb=2")
    assert value == {"a": "1", "b": "2"} and pairs.text(value) == "a=1\nb=2"
    with pytest.raises(OptionError, match="option pairs: "):
        pairs.parse("no equals sign")


def test_parse_options_fills_defaults_and_refuses_unknown_names() -> None:
    assert parse_options((SHARE, COUNT), {"count": "4"}, "task") == {"share": 0.6, "count": 4}
    with pytest.raises(OptionError, match="task: unknown option\\(s\\) other; accepted: share, count"):
        parse_options((SHARE, COUNT), {"other": 1}, "task")


def test_the_flag_and_title_are_derived_from_the_name() -> None:
    assert Option("lease_minutes").flag == "--lease-minutes"
    assert Option("x", label="Shown").title == "Shown" and Option("x", help="helps").title == "helps"
