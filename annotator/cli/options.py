"""Declared options (annotator/core/options.py) as click options, so commands are built, not written."""
from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from annotator.core.options import Option, OptionError


class OptionType(click.ParamType):
    """Checks a command-line value with the option's own parser, so the CLI and the web agree."""

    def __init__(self, option: Option) -> None:
        self.option = option
        self.name = {str: "text", int: "integer", float: "number"}.get(option.type, option.type.__name__)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        if not isinstance(value, str):
            return value
        try:
            return self.option._one(value)
        except OptionError as error:
            self.fail(str(error), param, ctx)


def click_option(option: Option) -> click.Option:
    """A click option for `option`: a flag for a bool, a choice list, an existing path, a repeatable one."""
    help_text = "; ".join(part for part in (option.label, option.help) if part)
    if option.default not in (None, False, ()):
        help_text += f"  [default: {option.text(option.default)}]"
    if option.type is bool:
        # --x/--no-x: a setting that is on by default (or was switched on) can be switched off.
        return click.Option([f"{option.flag}/--no-{option.flag[2:]}", option.name], default=None, help=help_text)
    if option.type is Path:
        kind: click.ParamType = click.Path(exists=True, path_type=Path)
    elif option.choices is not None:
        kind = click.Choice([str(c) for c in option.choices])
    else:
        kind = OptionType(option)
    return click.Option([option.flag, option.name], type=kind, multiple=option.multiple,
                        default=() if option.multiple else None, help=help_text)


def given(values: dict[str, Any]) -> dict[str, Any]:
    """The values the command line set (click gives None or () for the others)."""
    return {k: v for k, v in values.items() if v is not None and v != ()}
