"""The password policy (NIST SP 800-63B): at least 8 characters, no composition rules, and none of the passwords
an attacker tries first: the commonest ones (Django's list, shipped), runs and repetitions, the user name."""
from __future__ import annotations

import gzip

import pytest

from annotator.people.accounts import generate_password
from annotator.people.passwords import COMMON_PASSWORDS, MIN_LENGTH, password_problem


@pytest.mark.parametrize("password", ["a", "aaaaaaa", "x1!Y2@z", ""])
def test_a_password_shorter_than_eight_characters_is_refused_with_its_length(password):
    assert password_problem(password, "ann") == (
        f"A password needs at least 8 characters; this one has {len(password)}.")


@pytest.mark.parametrize("password", ["correct horse battery", "sieben-zwerge", "Tr0ub4dor&3", "öäü ßøå ñ",
                                      "eight ch"])
def test_a_long_enough_uncommon_password_is_allowed_without_composition_rules(password):
    assert password_problem(password, "ann") is None


@pytest.mark.parametrize("password", ["password", "12345678", "iloveyou", "aaaaaaaa", "Password1", "QWERTYUIOP",
                                      " sunshine "])
def test_a_common_password_is_refused_whatever_its_case(password):
    assert "among the 20,000 most common" in password_problem(password, "ann")


def test_the_list_of_common_passwords_is_shipped_with_the_package():
    with gzip.open(COMMON_PASSWORDS, "rt", encoding="utf-8") as lines:
        assert sum(1 for _ in lines) == 19640
    assert (COMMON_PASSWORDS.parent / "LICENSE").read_text().startswith("Copyright (c) Django Software Foundation")


@pytest.mark.parametrize("password", ["zzzzzzzzzzzz", "xyzxyzxyzxyz", "kq7!kq7!kq7!", "lmnopqrstu", "zyxwvutsrq"])
def test_runs_and_repetitions_of_characters_are_refused(password):
    assert "a run or a repetition" in password_problem(password, "ann")


@pytest.mark.parametrize(("password", "username"), [
    ("annotator7", "annotator7"), ("Annotator7!!", "annotator7"), ("worker-0042", "worker-0042"),
    ("bob-and-bob", "bob")])
def test_the_user_name_with_fewer_than_eight_other_characters_is_refused(password, username):
    assert "the user name" in password_problem(password, username)


@pytest.mark.parametrize(("password", "username"), [
    ("admin-harbour-lights", "admin"), ("annie bakes bread", "ann"), ("banana split", "al")])
def test_a_password_containing_the_name_among_enough_else_is_allowed(password, username):
    assert password_problem(password, username) is None


def test_a_password_longer_than_1024_characters_is_refused():
    assert password_problem("long passphrase " * 65, "ann") == (
        "A password may have at most 1024 characters; this one has 1040.")


def test_generated_passwords_pass_the_policy():
    assert all(password_problem(generate_password(), "annotator1") is None for _ in range(200))
    assert MIN_LENGTH == 8
