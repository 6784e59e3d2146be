"""Accounts and API tokens by an admin: each action saves its change with its event, or refuses with nothing
changed."""
from __future__ import annotations

import pytest
from sqlalchemy import select

from annotator.actions import accounts
from annotator.core.extensions import db
from annotator.core.models import ApiToken, User
from annotator.people.accounts import AccountError, AccountsRefused, authenticate
from tests.actions.conftest import trail
from tests.conftest import stored
from tests.web.conftest import csrf_token


def _events(action: str) -> list[dict]:
    return [detail for name, _, detail in trail() if name == action]


def _tokens(user_id: int) -> int:
    db.session.remove()
    return len(db.session.scalars(select(ApiToken.id).where(ApiToken.user_id == user_id)).all())


def test_an_account_made_with_a_chosen_password_logs_in_with_it(app, admin):
    made = accounts.create_account("ann", "annotator", "a long unusual phrase", False, admin)
    db.session.remove()
    assert authenticate("ann", "a long unusual phrase") is not None
    assert _events("account.create") == [{"user_id": made.user.id, "role": "annotator"}]


def test_a_name_taken_already_is_refused_and_nothing_is_recorded(app, make_user, admin):
    make_user("ann")
    with pytest.raises(AccountError, match="there is already a user 'ann'"):
        accounts.create_account("ann", "annotator", None, True, admin)
    assert _events("account.create") == []


def test_a_pasted_list_with_one_bad_line_makes_no_account(app, admin):
    with pytest.raises(AccountsRefused, match="line 2"):
        accounts.create_accounts(["ann", "b c", "dan"], admin)
    assert stored(User, username="ann") is None and _events("account.create") == []


def test_deactivating_an_account_stops_its_logins_and_is_recorded(app, make_user, admin):
    ann = make_user("ann")
    assert accounts.set_active(ann, False, admin) == 0
    assert not stored(User, username="ann").active
    assert _events("account.deactivate") == [{"user_id": ann.id}]


def test_an_admin_cannot_deactivate_their_own_account(app, admin):
    me = db.session.get(User, admin[0])
    with pytest.raises(AccountError, match="you cannot deactivate your own account"):
        accounts.set_active(me, False, admin)
    assert stored(User, username="boss").active and _events("account.deactivate") == []


def test_a_chosen_password_is_not_one_time_and_revokes_the_tokens(app, make_user, admin):
    ann = make_user("ann")
    accounts.issue_token(ann, "laptop", admin)
    assert accounts.set_password(stored(User, username="ann"), "another long phrase", admin) == 1
    user = stored(User, username="ann")
    assert not user.must_change_password and _tokens(user.id) == 0
    assert _events("account.password") == [{"user_id": ann.id}]


def test_a_password_the_policy_refuses_changes_nothing(app, make_user, admin):
    ann = make_user("ann")
    with pytest.raises(AccountError):
        accounts.set_password(ann, "short", admin)
    db.session.remove()
    assert authenticate("ann", "short") is None and _events("account.password") == []


def test_a_generated_password_is_one_time(app, make_user, admin):
    ann = make_user("ann")
    password = accounts.reset_password(ann, admin)
    db.session.remove()
    assert authenticate("ann", password) is not None and stored(User, username="ann").must_change_password


def test_revoking_one_token_keeps_the_others(app, make_user, admin):
    ann = make_user("ann")
    accounts.issue_token(ann, "laptop", admin)
    accounts.issue_token(stored(User, username="ann"), "phone", admin)
    first = db.session.scalars(select(ApiToken.id).where(ApiToken.user_id == ann.id).order_by(ApiToken.id)).first()
    accounts.revoke_token(stored(User, username="ann"), first, admin)
    assert _tokens(ann.id) == 1 and _events("account.revoke_tokens") == [{"user_id": ann.id, "tokens": 1}]


def test_a_token_of_another_account_is_not_revoked(app, make_user, admin):
    make_user("ann")
    bea = make_user("bea")
    accounts.issue_token(bea, "", admin)
    theirs = db.session.scalars(select(ApiToken.id).where(ApiToken.user_id == bea.id)).one()
    with pytest.raises(AccountError, match="has no token"):
        accounts.revoke_token(stored(User, username="ann"), theirs, admin)
    assert _tokens(bea.id) == 1 and _events("account.revoke_tokens") == []


def test_revoking_every_token_says_how_many(app, make_user, admin):
    ann = make_user("ann")
    for note in ("laptop", "phone"):
        accounts.issue_token(stored(User, username="ann"), note, admin)
    assert accounts.revoke_tokens(stored(User, username="ann"), admin) == 2
    assert _tokens(ann.id) == 0 and _events("account.revoke_tokens") == [{"user_id": ann.id, "tokens": 2}]


def test_the_page_says_why_an_admin_may_not_deactivate_their_own_account(boss):
    url = f"/admin/annotators/{boss.user.id}"
    token = csrf_token(boss.get(url).get_data(as_text=True))
    assert boss.post(f"{url}/active", data={"csrf_token": token}).status_code == 302
    assert "Not deactivated: you cannot deactivate your own account." in boss.get(url).get_data(as_text=True)
    assert stored(User, username="boss").active and _events("account.deactivate") == []
