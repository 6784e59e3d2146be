"""Flask test-client helpers: real forms with their CSRF tokens, as a browser would send them.

The `login` fixture lives in tests/conftest.py so that every folder can use it.
"""
from __future__ import annotations

import re


CSRF = re.compile(r'name="csrf_token" type="hidden" value="([^"]+)"|name="csrf_token" value="([^"]+)"')


def csrf_token(html: str) -> str:
    match = CSRF.search(html)
    assert match, "the page has no CSRF token"
    return match.group(1) or match.group(2)
