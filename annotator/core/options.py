"""Declared options: one description of a parameter, read by the CLI, the admin forms and the code.

Why: a HIT type's project settings, a file format's import and export options and a scorer's options
would otherwise be spelled out three times (a click option, a WTForms field, a parser), and the
three drift apart. A module declares its options once; `cli/options.py` turns them into click
options, `web/forms.py` into form fields, and `parse` is the one place a value is checked, whether
it came from a command line, a form, a query string or JSON.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

TRUE, FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off", "")


class OptionError(ValueError):
    """A value that does not fit its option; the message names the option and says what fits."""


@dataclass(frozen=True)
class Option:
    """One named parameter: its type, default, limits and the words people see.

    `type` is str, int, float, bool or Path (a file or folder the caller names). `convert`, when
    given, turns the text form into a richer value (e.g. a list of claims) and raises ValueError
    with a message; `show` turns such a value back into text for a form.
    """

    name: str
    type: type = str
    default: Any = None
    help: str = ""
    label: str = ""
    choices: tuple[Any, ...] | None = None
    minimum: float | None = None
    maximum: float | None = None
    pattern: str | None = None
    rule: str = ""  # the pattern in words, for messages
    required: bool = False
    multiple: bool = False
    multiline: bool = False
    cli_only: bool = False  # e.g. a path on the server: not offered on web forms
    # A project setting that decides what the HIT asks, so the votes given mean something else once it
    # changes: refused after the first vote (campaigns/settings.py).
    fixed_once_voted: bool = False
    convert: Callable[[str], Any] | None = None
    show: Callable[[Any], str] | None = None

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def title(self) -> str:
        return self.label or self.help or self.name.replace("_", " ")

    def text(self, value: Any) -> str:
        """The value as a form shows it."""
        if value is None:
            return ""
        if self.show is not None:
            return self.show(value)
        return "\n".join(map(str, value)) if self.multiple else str(value)

    def parse(self, value: Any) -> Any:
        """The value as this option's type, checked against its limits; OptionError otherwise."""
        if self.multiple:
            values = value.splitlines() if isinstance(value, str) else list(value or ())
            return tuple(self._one(v) for v in values if not (isinstance(v, str) and not v.strip()))
        return self._one(value)

    def _one(self, value: Any) -> Any:
        if value is None or (isinstance(value, str) and value == "" and self.type is not bool):
            if self.required:
                raise OptionError(f"option {self.name} is required")
            return None
        converted = self._typed(value)
        if self.choices is not None and converted not in self.choices:
            raise OptionError(f"option {self.name} must be one of {self.choices}, not {value!r}")
        if isinstance(converted, (int, float)) and not isinstance(converted, bool):
            if self.minimum is not None and converted < self.minimum or \
                    self.maximum is not None and converted > self.maximum:
                raise OptionError(f"option {self.name} must be between {self.minimum:g} and {self.maximum:g}, "
                                  f"not {value!r}")
        if self.pattern is not None and isinstance(converted, str) and not re.fullmatch(self.pattern, converted):
            raise OptionError(f"option {self.name} must be {self.rule or 'text matching ' + self.pattern}, "
                              f"not {value!r}")
        return converted

    def _typed(self, value: Any) -> Any:
        if self.convert is not None:
            if not isinstance(value, str):
                return value
            try:
                return self.convert(value)
            except ValueError as error:
                raise OptionError(f"option {self.name}: {error}") from None
        kind = self.type
        if kind is bool:
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in TRUE + FALSE:
                return value.strip().lower() in TRUE
        elif kind is int:
            if isinstance(value, int) and not isinstance(value, bool):
                return value
            if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d{1,18}\s*", value):
                return int(value)
        elif kind is float:
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
            if isinstance(value, str):
                try:
                    number = float(value)
                except ValueError:
                    number = None
                if number is not None and number == number and abs(number) != float("inf"):
                    return number
        elif kind is Path:
            if isinstance(value, (str, Path)) and str(value):
                return Path(value)
        elif isinstance(value, str):
            return value
        raise OptionError(f"option {self.name} must be a {kind.__name__}, not {value!r}")


def parse_options(options: Iterable[Option], given: dict[str, Any], owner: str) -> dict[str, Any]:
    """Every declared option's value (its default when not given); unknown names are refused."""
    declared = {o.name: o for o in options}
    unknown = sorted(set(given) - set(declared))
    if unknown:
        raise OptionError(f"{owner}: unknown option(s) {', '.join(unknown)}; accepted: "
                          f"{', '.join(declared) or 'none'}")
    values = {}
    for name, option in declared.items():
        value = given.get(name)
        values[name] = option.default if value is None else option.parse(value)
    return values


def stored_with_changes(stored: Mapping[str, Any] | None, new: Mapping[str, Any], old: Mapping[str, Any],
                        options: Iterable[Option]) -> dict[str, Any]:
    """The stored values (a project's settings or quality settings) with only the options whose value changed
    from `old` to `new` (both complete, defaults included) written in; keys of no option are kept.

    Why not `new` itself: it holds every option, defaults included, so saving a settings form unchanged wrote
    the defaults into a project that had none stored: its settings were no longer as they were, and a default
    changed later would no longer reach it. A value already stored keeps its stored form unless it changed.
    """
    kept = dict(stored or {})
    for option in options:
        if option.name in new and option.text(new[option.name]) != option.text(old.get(option.name)):
            kept[option.name] = new[option.name]
    return kept
