"""The audit trail of the accounts page: creating, activating, token and bulk actions from the browser name the admin.

(The command line's account actions and the page's one-time password are in test_audit.py.)
"""
from __future__ import annotations

from sqlalchemy import select

from annotator.core.extensions import db
from annotator.core.models import ApiToken, User
from tests.conftest import stored
from tests.people.conftest import events
from tests.web.conftest import csrf_token


def _token(client, url: str) -> str:  # type: ignore[no-untyped-def]
    return csrf_token(client.get(url).get_data(as_text=True))


def _by(event, boss) -> bool:  # type: ignore[no-untyped-def]
    return (event.actor_id, event.actor) == (boss.user.id, "boss")


def test_an_account_made_on_the_page_records_its_id_and_role(boss):
    response = boss.post("/admin/annotators", data={"csrf_token": _token(boss, "/admin/annotators"),
                                                    "username": "ann", "role": "annotator", "password": ""})
    assert response.status_code == 200
    [event] = events("account.create")
    assert _by(event, boss) and event.detail == {"user_id": stored(User, username="ann").id, "role": "annotator"}


def test_accounts_made_from_a_pasted_list_record_one_event_each(boss):
    response = boss.post("/admin/annotators/bulk", data={"csrf_token": _token(boss, "/admin/annotators"),
                                                         "usernames": "worker-001\nworker-002"})
    assert response.status_code == 200
    made = [stored(User, username=name).id for name in ("worker-001", "worker-002")]
    assert [(e.detail["user_id"], _by(e, boss)) for e in events("account.create")] == [(made[0], True),
                                                                                       (made[1], True)]


def test_deactivating_and_activating_again_record_both(boss, make_user):
    ann = make_user("ann")
    url = f"/admin/annotators/{ann.id}"
    for _ in range(2):
        assert boss.post(f"{url}/active", data={"csrf_token": _token(boss, url)}).status_code == 302
    [off], [on] = events("account.deactivate"), events("account.activate")
    assert _by(off, boss) and _by(on, boss) and off.detail == on.detail == {"user_id": ann.id}
    assert off.id < on.id


def test_a_token_issued_and_revoked_on_the_page_records_both(boss, make_user):
    ann = make_user("ann")
    url = f"/admin/annotators/{ann.id}"
    assert boss.post(f"{url}/tokens", data={"csrf_token": _token(boss, url), "note": "bot"}).status_code == 200
    db.session.remove()
    token_id = db.session.scalar(select(ApiToken.id).where(ApiToken.user_id == ann.id))
    assert boss.post(f"{url}/tokens/{token_id}/revoke", data={"csrf_token": _token(boss, url)}).status_code == 302
    [issued], [revoked] = events("account.token"), events("account.revoke_tokens")
    assert _by(issued, boss) and issued.detail == {"user_id": ann.id}
    assert _by(revoked, boss) and revoked.detail == {"user_id": ann.id, "tokens": 1}
