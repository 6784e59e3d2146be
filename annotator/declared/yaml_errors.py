"""A YAML syntax error in words an organiser can act on, with the line and column where to look.

Why: PyYAML says what its parser expected ("expected <block end>, but found '<block mapping start>'",
"mapping values are not allowed here"), which names its own tokens, not the organiser's mistake. Nearly
every such error in a hand-written definition is indentation (a key one space off, a tab) or an unclosed
bracket or quote; each is recognised here from the error and the text around it, and said as such, with
the line and column of the line's first character (where the indentation is to be fixed). Anything else
keeps PyYAML's words, placed the same way.
"""
from __future__ import annotations

from dataclasses import dataclass

import yaml

SPACES = "; use spaces consistently (the same number of them for every key of one mapping)"
OPENED = {"a flow sequence": "the list in brackets [ ] opened", "a flow mapping": "the mapping in braces { } opened",
          "a quoted scalar": "the quoted text opened", "a block scalar": "the block of text started"}


@dataclass(frozen=True)
class YamlProblem:
    """Where (1-based line and column, when known) and what, in words."""

    line: int | None
    column: int | None
    message: str


def explain(error: yaml.YAMLError, text: str) -> YamlProblem:
    """The problem of `error`, raised while reading `text`, in words."""
    mark = getattr(error, "problem_mark", None) or getattr(error, "context_mark", None)
    if mark is None:
        return YamlProblem(None, None, str(error))
    lines = text.splitlines()
    line, column = mark.line + 1, mark.column + 1
    here = lines[mark.line] if mark.line < len(lines) else ""
    problem = getattr(error, "problem", None) or ""
    if "\t" in here[:column] and ("'\\t'" in problem or _indent(here) < column):
        return _tab(line, here)
    if problem.startswith("expected <block end>") or problem == "mapping values are not allowed here":
        indented = _indentation(lines, mark.line)
        if indented is not None:
            return indented
        if problem == "mapping values are not allowed here":
            return YamlProblem(line, column, "a colon followed by a space inside a value, which YAML reads as a "
                                             "new key; put the value in quotes (\"...\")")
    context = getattr(error, "context", None) or ""
    context_mark = getattr(error, "context_mark", None)
    if context == "while scanning a simple key" and context_mark is not None:
        return YamlProblem(context_mark.line + 1, context_mark.column + 1,
                           "this line has no colon after its key; write it as key: value (or, if it continues "
                           "the text of the line above, put that text in quotes)")
    if problem == "but found another document":
        return YamlProblem(line, column, "a second document starts here (a line ---); a definition is one "
                                         "document: remove the ---")
    if problem.startswith("found undefined alias"):
        return YamlProblem(line, column, "a value starting with * is read as a YAML alias; put it in quotes "
                                         "(\"...\")")
    for what, words in OPENED.items():
        if what in context and context_mark is not None:
            return YamlProblem(line, column, f"{words} at line {context_mark.line + 1}, column "
                                             f"{context_mark.column + 1} is not closed ({problem})")
    return YamlProblem(line, column, problem or str(error))


def _tab(line: int, text: str) -> YamlProblem:
    at = text.index("\t") + 1
    if not text[:at - 1].strip():
        return YamlProblem(line, at, "a tab indents this line, and tabs cannot indent YAML; indent with spaces")
    return YamlProblem(line, at, f"a tab in column {at}, where YAML takes only spaces (tabs cannot indent YAML, "
                                 "nor separate a key from its value); use spaces")


def _indentation(lines: list[str], index: int) -> YamlProblem | None:
    """A line indented more or less than the line above it: which, and where it could start instead."""
    here = lines[index] if index < len(lines) else ""
    if not here.strip():
        return None
    above = next((n for n in range(index - 1, -1, -1) if lines[n].strip() and not lines[n].lstrip().startswith("#")),
                 None)
    if above is None:
        return None
    column, key = _indent(here) + 1, _key_column(lines[above])
    if column == key:
        return None
    how = "more" if column > key else "less"
    message = f"this line (column {column}) is indented {how} than line {above + 1} above it (its key: column {key})"
    dashes = [c for c, is_dash in _outer_columns(lines, above) if is_dash]
    if here.lstrip().startswith("- ") and dashes and column not in dashes:
        message += f"; a list entry starts where the entries above it start their - (column {dashes[0]})"
    elif how == "more" and _has_value(lines[above]):
        message += (f", which already has its value, so nothing can be nested under it; start this line in column "
                    f"{key} to make it a key beside line {above + 1}'s")
    elif how == "less":
        outer = [c for c, _ in _outer_columns(lines, above)]
        if column not in outer:
            others = " or ".join(str(c) for c in sorted(outer))
            message += (f", and no key or list entry above it starts in column {column}: start it in column {key} "
                        f"to make it a key beside line {above + 1}'s" + (f", or in column {others} to end that "
                                                                         "block" if others else ""))
    return YamlProblem(index + 1, column, message + SPACES)


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _key_column(line: str) -> int:
    """Where the line's key starts: after any "- " of a list entry."""
    stripped = line.lstrip(" ")
    column = _indent(line) + 1
    while stripped.startswith("- "):
        rest = stripped[2:]
        column += 2 + len(rest) - len(rest.lstrip(" "))
        stripped = rest.lstrip(" ")
    return column


def _has_value(line: str) -> bool:
    """A `key: value` line (not `key:` opening a nested block)."""
    body = line.split(" #", 1)[0].rstrip()
    return ": " in body and not body.endswith(":")


def _outer_columns(lines: list[str], index: int) -> list[tuple[int, bool]]:
    """The columns, nearest first, where the blocks enclosing line `index` start their keys or list entries
    (True for a list entry's -): where a line indented less than `index` may go on."""
    limit, columns = _key_column(lines[index]), []
    for line in reversed(lines[:index + 1]):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        key = _key_column(line)
        if key < limit:
            columns.append((key, False))
            limit = key
        if line.lstrip().startswith("- ") and _indent(line) + 1 < limit:
            columns.append((_indent(line) + 1, True))
            limit = _indent(line) + 1
    return columns
