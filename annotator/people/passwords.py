"""The password policy: one rule for every password a person chooses, on the web forms and on the command line.

It follows NIST SP 800-63B (section 3.1.1.2): a length of at least 8 characters, no composition rules (they
make passwords harder to remember, not to guess), and a refusal of the passwords an attacker tries first:
the commonest ones, repetitive or sequential characters, and the account's own name. Guessing one account
from many addresses is throttled per address only (annotator/web/throttle.py, so that nobody can lock an owner
out), which leaves this check as what protects an account from a guesser with many addresses.

The list of common passwords is Django's (common_passwords/README.md says where from), shipped with the package
and read from disk, so the check never asks anything of a network service. Passwords the app generates
(accounts.generate_password) are random and not checked.
"""
from __future__ import annotations

import functools
import gzip
import re
from pathlib import Path

MIN_LENGTH = 8
# Long enough for any passphrase; a longer one is refused rather than hashed (hashing cost grows with it).
MAX_LENGTH = 1024
COMMON_PASSWORDS = Path(__file__).resolve().parent / "common_passwords" / "common-passwords.txt.gz"
# A short group of characters said again and again: "aaaaaaaa", "abababab", "12341234".
# A name this long or longer counts inside a password; a shorter one ("al") is a part of too many words.
NAME_IN_PASSWORD = 3
REPEATED = re.compile(r"(.{1,4}?)\1+", re.DOTALL)


@functools.cache
def common_passwords() -> frozenset[str]:
    """The list, lower-cased as it is stored; read once per process (a few milliseconds), at the first check."""
    with gzip.open(COMMON_PASSWORDS, "rt", encoding="utf-8") as lines:
        return frozenset(line.strip() for line in lines if line.strip())


def password_problem(password: str, username: str = "") -> str | None:
    """Why `password` may not be chosen for the account `username`, in a sentence; None if it may."""
    if len(password) < MIN_LENGTH:
        return f"A password needs at least {MIN_LENGTH} characters; this one has {len(password)}."
    if len(password) > MAX_LENGTH:
        return f"A password may have at most {MAX_LENGTH} characters; this one has {len(password)}."
    folded = password.strip().lower()
    if folded in common_passwords():
        return ("This password is among the 20,000 most common ones, which are tried first: choose another "
                "(a few unrelated words make a good one).")
    if REPEATED.fullmatch(folded) or _sequential(folded):
        return "This password is a run or a repetition of characters, which is tried early: choose another."
    name = username.strip().lower()
    if len(name) >= NAME_IN_PASSWORD and len(folded.replace(name, "")) < MIN_LENGTH:
        return (f"This password is the user name with fewer than {MIN_LENGTH} other characters: "
                "choose one that does not contain it.")
    return None


def _sequential(text: str) -> bool:
    """Whether every character is the one after (or before) the one before it: "abcdefgh", "98765432"."""
    steps = {ord(b) - ord(a) for a, b in zip(text, text[1:])}
    return steps in ({1}, {-1})
