"""The bridge from a built-in HIT type to its definition: what every type must give before it is switched over.

The six built-in HIT types (annotator/tasks/) are to be served by the declared engine from their shared task's
definition (docs/one-engine.md). Two things every existing project and API client relies on must survive the switch,
and a bridge holds both for one type:

- `answer`: today's JSON API answer of the type turned into the definition's answer shape, so the API keeps taking
  what clients send (tests/data/api_answer_shapes/); the declared engine's own check then runs on the result. A
  converter refuses (annotator.tasks.base.AnswerError, naming what is wrong) only what it cannot convert; anything
  else it passes on for the declared check to refuse, so a refusal today stays a refusal.
- `labels`: a stored vote's built-in label rows turned into the rows the declared engine would have stored for the
  same vote, so a migration can move a project's votes and its gold, agreement and exports come out equal
  (tests/data/before_one_engine/).

Where the types draw how an item is shown per annotator (which side is "A"), `presentation` turns the built-in
assignment's presentation into the declared one, so that a converted answer means, in the declared engine's terms,
what the annotator meant on the page they saw; types that draw nothing keep the default (no presentation).

Each is a pure function of its arguments (no database, no request), so the mapping can be proven on kept data and
run by a migration alike. What the definition cannot express is not dropped silently: `not_carried_over` says it in
words (what is lost, or which gap of docs/one-engine.md must close first).

A shared task registers its bridges by reference on its SHARED_TASK (`bridges=("bridge:MATCH", ...)`), read by
`bridges_of`. This module imports nothing of the engine, so the declaration stays free of import cycles.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple

from annotator.core.options import Option

if TYPE_CHECKING:
    from annotator.plugins.shared_task import SharedTask


class LabelRow(NamedTuple):
    """One label row as the analyses read it, built-in or declared: the `value` given for `field` of `unit`.

    A tuple, so rows compare equal to the `[unit, field, value]` lists of the kept JSON files once made tuples.
    """

    unit: str
    field: str
    value: str


AnswerConverter = Callable[[Mapping[str, Any], Mapping[str, Any], Mapping[str, Any] | None], dict[str, Any]]
"""(built-in answer, item payload, built-in presentation or None) -> the definition's answer."""

LabelMapper = Callable[[Sequence[LabelRow], Mapping[str, Any]], list[LabelRow]]
"""(one vote's built-in label rows, item payload) -> that vote's declared label rows."""

ItemKeys = Callable[[Mapping[str, Any], Mapping[str, Any] | None], dict[str, Any]]
"""(item payload, the declared engine's presentation of the lease or None) -> today's API item keys, as the built-in
type gave them, that the definition's item gives otherwise."""

KnownScore = Callable[[Any, Any, Mapping[str, Any]], float | None]
"""(the definition's stored answer, an item's known answer, item payload) -> the built-in type's control score, or
None when the known answer is not in the built-in's shape."""

KnownWords = Callable[[Any, Mapping[str, Any]], str | None]
"""(an item's known answer, item payload) -> the built-in type's words for it, or None when not in its shape."""

PresentationMapper = Callable[[Mapping[str, Any] | None, Mapping[str, Any]], dict[str, Any] | None]
"""(built-in presentation or None, item payload) -> the declared presentation, or None where nothing is drawn."""


def no_presentation(built_in: Mapping[str, Any] | None, payload: Mapping[str, Any]) -> dict[str, Any] | None:
    """The presentation of a type and definition that draw nothing per annotator."""
    return None


@dataclass(frozen=True)
class Bridge:
    """One built-in HIT type's bridge to its definition.

    `task_type` is the built-in type's name (annotator/tasks/, or a type removed since, whose answers API clients
    may still send), `definition` the definition file, named relative to
    the shared task's folder as in `SharedTask.definitions`. `answer`, `labels` and `presentation` are described in
    the module's docstring; `answer` may raise annotator.tasks.base.AnswerError. `labels` takes the rows of ONE vote
    (one assignment's answer), since a vote's rows can depend on each other (a set comparison's sides).
    `not_carried_over` lists, in words, each thing the built-in type stores that the definition does not (empty
    when the mapping is complete); a test of each is a strict xfail naming the gap.
    How a declared project of the definition tells today's answers from its own (declared/earlier_answers.py):
    `todays_shape(answer)` says whether an API answer is the built-in type's, for a definition whose question ids
    are the built-in's answer keys too (None: an answer is today's when it holds none of the definition's question
    ids); `earlier_keys`: where the shapes share some keys, the keys only today's shape has; `shared_keys`: the
    keys today's answers use that name a group of the definition too (RuArg's "claims"), so that an answer with
    such a key that the definition's check refuses is read as today's; `reads_declared_presentation`: the
    converter reads the declared engine's drawn order of the lease.
    `kept_settings` are the built-in settings a declared project keeps (not rules, so not the definition's), as
    options with the built-in's names, checks and defaults (the bridge holds them: the built-in type may be gone);
    `item_keys` gives today's API item keys, served beside the definition's.
    """

    task_type: str
    definition: str
    answer: AnswerConverter
    labels: LabelMapper
    presentation: PresentationMapper = no_presentation
    not_carried_over: tuple[str, ...] = ()
    todays_shape: Callable[[Any], bool] | None = None
    shared_keys: frozenset[str] = frozenset()
    # Where today's answer shares keys with the definition's (a set comparison's less_redundant), the keys only
    # today's shape has: an answer holding one is today's (declared/earlier_answers.py).
    earlier_keys: frozenset[str] = frozenset()
    # Whether `answer` also reads the declared engine's presentation of a lease (its drawn order), so a declared
    # project that draws one can take today's answers in that order (declared/earlier_answers.py).
    reads_declared_presentation: bool = False
    # The built-in type's settings that are no rules of the definition but what the shared task's own exports and
    # rankings read (a linked project, a figure's variant): a declared project of the definition keeps them as
    # its project settings, under the built-in's names, options and defaults (the declared type bound to it).
    kept_settings: tuple[Option, ...] = ()
    # Today's API item keys where the definition's item differs (a key point with its id and text, two summaries in
    # the order shown): a declared project of the definition serves them beside its own, so an API client reading
    # today's keys keeps working (the declared type's public_item). None: the items are alike.
    item_keys: ItemKeys | None = None
    # Where a project's definition may differ from the file in what its answers hold (RuArg's claims, set per
    # project), `adapts(definition)` gives today's converter bound to such a definition (its checked data), or None
    # when the bridge does not take it; the file's own definition needs none (declared/earlier_answers.py).
    adapts: Callable[[Mapping[str, Any]], AnswerConverter | None] | None = None
    # Where the shared task's files give known answers in the built-in type's shape, which a declared import keeps
    # as they are because the task's own readers read them so (KPA's labels: {key point id: 1 / 0}), `known_score`
    # scores a control answer against such a known answer as the built-in type did, and `known_words` says it as
    # the built-in did; both give None for a known answer in the definition's shape (the definition's scoring then).
    known_score: KnownScore | None = None
    known_words: KnownWords | None = None

    def declared_answer(self, built_in: Mapping[str, Any], payload: Mapping[str, Any],
                        built_in_presentation: Mapping[str, Any] | None = None
                        ) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """The definition's answer and the presentation it is to be read with, from one built-in answer."""
        return (self.answer(built_in, payload, built_in_presentation),
                self.presentation(built_in_presentation, payload))


def bridges_of(task: SharedTask) -> list[Bridge]:
    """The bridges a shared task declares (`SharedTask.bridges`), in its order."""
    return task.load(task.bridges, Bridge, "bridge")
