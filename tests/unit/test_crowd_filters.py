"""Crowd filters as the shared tasks' papers used them, turned into MTurk qualification requirements and
Prolific screeners; bad values refused with the setting's name.

The papers' figures: Shirani et al., SemEval-2020 Task 10 (../shared/papers/emphasis2020-semeval-task10.txt,
section 3, Data): nine MTurk annotators per text, and only Masters were allowed to take part. Zheng et al.,
SemEval-2021 Task 4 (recam2021-semeval-task4.txt, section 3, where MTurk workers select the data): only workers from
English-speaking countries, and only with previous HITs' approval rates above 90%. The paper does not list
the countries; US, GB, CA, AU, NZ and IE are our reading of "English-speaking".
"""
from __future__ import annotations

from typing import Any

import pytest

from annotator.core.models import Project
from annotator.core.options import OptionError
from annotator.people.crowd_filters import (
    MAX_COUNTRIES,
    checked_crowd,
    crowd_settings,
    prolific_screeners,
    store_crowd,
)
from annotator.people.mturk_request import qualification_requirements

ENGLISH_SPEAKING = ("US", "GB", "CA", "AU", "NZ", "IE")


def _settings(**given: Any) -> dict[str, Any]:
    return checked_crowd(Project(quality={}), given)


def test_the_emphasis_papers_masters_only_is_the_masters_qualification_in_production() -> None:
    assert qualification_requirements(_settings(masters=True)) == [
        {"QualificationTypeId": "2F1QJWKUDD8XADTFD2Q0G6UTO95ALH", "Comparator": "Exists"}]


def test_masters_in_the_sandbox_is_the_sandboxs_own_qualification_id() -> None:
    assert qualification_requirements(_settings(masters=True), "sandbox") == [
        {"QualificationTypeId": "2ARFPLSP75KLA8M8DH1HTEQVJT3SY6", "Comparator": "Exists"}]


def test_the_recam_papers_approval_rate_above_90_percent_is_greater_than_90() -> None:
    assert qualification_requirements(_settings(approval_rate_above="90")) == [
        {"QualificationTypeId": "000000000000000000L0", "Comparator": "GreaterThan", "IntegerValues": [90]}]


def test_the_recam_papers_english_speaking_countries_are_one_locale_requirement_in_them() -> None:
    assert qualification_requirements(_settings(countries="\n".join(ENGLISH_SPEAKING))) == [
        {"QualificationTypeId": "00000000000000000071", "Comparator": "In",
         "LocaleValues": [{"Country": code} for code in ENGLISH_SPEAKING]}]


def test_one_country_is_equal_to_it() -> None:
    assert qualification_requirements(_settings(countries=["gb"])) == [
        {"QualificationTypeId": "00000000000000000071", "Comparator": "EqualTo", "LocaleValues": [{"Country": "GB"}]}]


def test_a_minimum_of_approved_hits_is_greater_than_or_equal_to_it() -> None:
    assert qualification_requirements(_settings(min_approved="1000")) == [
        {"QualificationTypeId": "00000000000000000040", "Comparator": "GreaterThanOrEqualTo",
         "IntegerValues": [1000]}]


def test_no_filter_is_no_requirement() -> None:
    assert qualification_requirements(_settings()) == []


def test_the_recam_papers_filters_together_are_two_requirements_that_must_all_hold() -> None:
    requirements = qualification_requirements(_settings(approval_rate_above=90, countries=ENGLISH_SPEAKING))
    assert [r["QualificationTypeId"] for r in requirements] == ["000000000000000000L0", "00000000000000000071"]


@pytest.mark.parametrize("value", ["-1", "100", "101", "ninety", "90.5"])
def test_an_approval_rate_outside_0_to_99_percent_is_refused_by_name(value: str) -> None:
    with pytest.raises(OptionError, match="approval_rate_above"):
        _settings(approval_rate_above=value)


@pytest.mark.parametrize("code, hint", [("UK", "GB"), ("XX", "ISO 3166-1 alpha-2"), ("USA", "alpha-2")])
def test_an_unknown_country_code_is_refused_with_the_code(code: str, hint: str) -> None:
    with pytest.raises(OptionError, match=f"countries.*{code}.*{hint}"):
        _settings(countries=["US", code])


def test_more_countries_than_mturk_takes_in_one_requirement_are_refused() -> None:
    from annotator.people.countries import COUNTRIES
    with pytest.raises(OptionError, match=f"at most {MAX_COUNTRIES}"):
        _settings(countries=sorted(COUNTRIES)[:MAX_COUNTRIES + 1])


def test_a_country_given_twice_counts_once() -> None:
    assert _settings(countries=["US", "us", "GB"])["countries"] == ("US", "GB")


@pytest.mark.parametrize("value", ["0.505", "$1", "1,50", "-1"])
def test_a_reward_that_is_not_dollars_and_cents_is_refused(value: str) -> None:
    with pytest.raises(OptionError, match="reward.*US dollars"):
        _settings(reward=value)


def test_an_unknown_setting_is_refused() -> None:
    with pytest.raises(OptionError, match="unknown option.*masterz"):
        _settings(masterz=True)


def test_stored_settings_sit_beside_the_quality_options_and_read_back() -> None:
    project = Project(quality={"control_rate": 0.2})
    store_crowd(project, checked_crowd(project, {"approval_rate_above": "90", "countries": "US\nGB"}))
    assert project.quality["control_rate"] == 0.2
    settings = crowd_settings(project)
    assert (settings["approval_rate_above"], settings["countries"], settings["masters"]) == (90, ("US", "GB"), False)


def test_a_form_clears_what_it_leaves_empty_and_the_command_line_keeps_what_it_does_not_give() -> None:
    project = Project(quality={})
    store_crowd(project, checked_crowd(project, {"approval_rate_above": 90, "masters": True}))
    assert checked_crowd(project, {"masters": False})["approval_rate_above"] == 90
    assert checked_crowd(project, {"masters": False, "approval_rate_above": None}, replace=True)[
        "approval_rate_above"] is None


def test_prolific_gets_the_matching_screeners_and_is_told_masters_has_none() -> None:
    settings = _settings(masters=True, approval_rate_above=90, min_approved=500, countries=["GB", "IE"])
    lines = prolific_screeners(settings)
    assert lines == ["Approval Rate: above 90%", "Approval Numbers: at least 500 approved submissions",
                     "Current Country of Residence: United Kingdom (GB), Ireland (IE)",
                     "(MTurk Masters has no Prolific screener; Approval Rate and Approval Numbers come closest)"]


def test_prolific_without_filters_gets_no_screener() -> None:
    assert prolific_screeners(_settings()) == []
