"""A crowd worker's steps on the HIT pages through the test client. Entering a study leases nothing, so the
first HIT page shows Start; these press it when it is there, as a worker would."""
from __future__ import annotations

import re
from typing import Any

from tests.web.conftest import csrf_token


def start_hit(client: Any, slug: str) -> str:
    """The HIT page's HTML with a HIT on it: Start pressed first when the page offers it."""
    html = client.get(f"/p/{slug}/").get_data(as_text=True)
    if 'id="start-form"' in html:
        assert client.post(f"/p/{slug}/next", data={"csrf_token": csrf_token(html)}).status_code == 302
        html = client.get(f"/p/{slug}/").get_data(as_text=True)
    return html


def answer_hit(client: Any, slug: str, answer: dict[str, str] | None = None) -> None:
    """Take the worker's HIT (Start first if needed) and send `answer` (default: the KPA match's "None of these key
    points" box, `q_matches__none` of the declared form of match.yaml)."""
    html = start_hit(client, slug)
    action = re.search(rf'action="(/p/{slug}/a/\d+)"', html).group(1)  # type: ignore[union-attr]
    response = client.post(action, data={"csrf_token": csrf_token(html), **(answer or {"q_matches__none": "y"})})
    assert response.status_code == 302
