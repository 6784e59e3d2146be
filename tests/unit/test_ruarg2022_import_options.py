"""RuArg-2022's import options, the built-in stance_premise type's settings of before: the claims read from lines
"key | English | Russian", and the m of the two rules within their limits (checked as any option is, before a
file is read)."""
from __future__ import annotations

import pytest

from annotator.core.options import OptionError, parse_options
from annotator.declared.definition_reader import definition_from_data
from annotator.lookups.formats import file_format
from annotator.shared_tasks.ruarg2022.claims import claim_keys
from annotator.shared_tasks.ruarg2022.declared_projects import definition_for

OPTIONS = file_format("ruarg2022").import_options


def parsed(**given: str) -> dict:  # type: ignore[type-arg]
    return parse_options(OPTIONS, given, "ruarg2022")


def test_the_defaults_are_the_paper_s_and_the_data_set_s_three_claims() -> None:
    # Kotelnikov et al. 2022, section 3.1: relevant when at least two annotators found it so; section 3.2: a label
    # by at least two of three annotators (train and validation)
    values = parsed()
    assert (values["stage"], values["agree"], values["relevant_votes"], values["language"]) == ("both", 2, 2, "en")
    assert [claim["key"] for claim in values["claims"]] == ["masks", "quarantine", "vaccines"]
    assert values["declared"] is True


def test_claims_are_read_from_lines_and_the_project_asks_them() -> None:
    values = parsed(claims="bikes | Cycling is good | Велосипед полезен\nmasks | Masks")
    assert values["claims"] == ({"key": "bikes", "en": "Cycling is good", "ru": "Велосипед полезен"},
                                {"key": "masks", "en": "Masks", "ru": "Masks"})
    definition = definition_from_data(definition_for("both", claims=values["claims"])).to_data()
    assert claim_keys(definition) == ("bikes", "masks")


@pytest.mark.parametrize("bad", ["Bikes | x", "a | x\na | y", "just a key", ""])
def test_claims_that_are_not_lines_of_key_and_names_are_refused(bad: str) -> None:
    with pytest.raises(OptionError):
        parsed(claims=bad)


def test_relevance_needs_its_own_number_of_annotators_within_limits() -> None:
    with pytest.raises(OptionError, match="relevant_votes must be between 1 and 100"):
        parsed(relevant_votes="0")
    assert parsed(agree="3", relevant_votes="3")["relevant_votes"] == 3


def test_only_the_three_stages_and_two_languages_are_taken() -> None:
    with pytest.raises(OptionError, match="stage must be one of"):
        parsed(stage="premises")
    with pytest.raises(OptionError, match="language must be one of"):
        parsed(language="de")
