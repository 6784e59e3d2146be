"""How many crowd accounts a study link may make: a rate per client address and a cap per link.

Why: a study link is handed to a platform's workers, and whoever holds it can invent worker ids; each
invented id would be a new account. The rate per address (CROWD_NEW_ACCOUNTS_PER_ADDRESS in
CROWD_NEW_ACCOUNTS_WINDOW_MINUTES) stops one machine from making many; the cap per link (the workers the
project needs at the link's HITs per study, times CROWD_ACCOUNTS_PER_LINK_FACTOR, at least
CROWD_ACCOUNTS_PER_LINK_MIN) bounds what many machines can make. A worker who has an account already is
never counted again.

The counts are rows of crowd_account_creations, in the database every gunicorn worker and host shares (the
app keeps no state in its processes); the caller holds the link's row lock, so two entries through one
link are counted one after the other. The address is kept as a keyed hash (HMAC-SHA256 with SECRET_KEY) and
only for the window: a later account creation clears the keys that have left it.
"""
from __future__ import annotations

import hashlib
import hmac
import math
from datetime import datetime, timedelta

from flask import current_app
from sqlalchemy import func, select, update

from annotator.core.extensions import db
from annotator.core.models import CrowdAccountCreation, CrowdLink, Item, Project
from annotator.people.crowd import CrowdError
from annotator.people.crowd_filters import crowd_settings


class TooManyAccounts(CrowdError):
    """A new account the limits refuse: the address's rate (status 429, `retry_after` seconds until it may
    make one again) or the link's cap (409, which waiting does not lift: `retry_after` None)."""

    def __init__(self, message: str, status: int, retry_after: int | None = None) -> None:
        super().__init__(message)
        self.status, self.retry_after = status, retry_after


def address_key(address: str) -> str:
    """The keyed hash a client address is counted under: equal addresses meet, and the table names none."""
    secret = current_app.config["SECRET_KEY"]
    secret = secret.encode() if isinstance(secret, str) else secret
    return hmac.new(secret, f"crowd-address:{address}".encode(), hashlib.sha256).hexdigest()


def workers_needed(project: Project, hits: int) -> int:
    """Workers the project needs through a link of `hits` HITs per study: the MTurk setting max_assignments
    when the admin set it, else enough for every ordinary item's k votes (at least 1)."""
    chosen = crowd_settings(project)["max_assignments"]
    if chosen:
        return int(chosen)
    items = db.session.scalar(select(func.count()).select_from(Item)
                              .where(Item.project_id == project.id, Item.is_control.is_(False))) or 0
    return max(1, math.ceil(items * project.k / hits))


def account_cap(link: CrowdLink) -> int:
    """The most accounts `link` may make."""
    config = current_app.config
    return max(int(config["CROWD_ACCOUNTS_PER_LINK_MIN"]),
               math.ceil(float(config["CROWD_ACCOUNTS_PER_LINK_FACTOR"]) * workers_needed(link.project, link.hits)))


def accounts_made(link: CrowdLink) -> int:
    """The accounts `link` has made so far (what its cap counts)."""
    return db.session.scalar(select(func.count()).select_from(CrowdAccountCreation)
                             .where(CrowdAccountCreation.link_id == link.id)) or 0


def count_new_account(link: CrowdLink, address: str, now: datetime) -> None:
    """Count one new account made through `link` from `address`, or refuse it (TooManyAccounts) counting
    nothing. The caller holds the link's lock and commits."""
    config = current_app.config
    if accounts_made(link) >= account_cap(link):
        raise TooManyAccounts("This study takes no new workers any more. Please return it on your platform.", 409)
    window = timedelta(minutes=int(config["CROWD_NEW_ACCOUNTS_WINDOW_MINUTES"]))
    key = address_key(address)
    recent = select(CrowdAccountCreation.created_at).where(CrowdAccountCreation.address_key == key,
                                                           CrowdAccountCreation.created_at > now - window)
    times = db.session.scalars(recent.order_by(CrowdAccountCreation.created_at)).all()
    if len(times) >= int(config["CROWD_NEW_ACCOUNTS_PER_ADDRESS"]):
        wait = max(1, math.ceil((times[0] + window - now).total_seconds()))
        raise TooManyAccounts(f"Too many new worker accounts were made from your network address: please try "
                              f"again in {math.ceil(wait / 60)} minute(s).", 429, retry_after=wait)
    db.session.execute(update(CrowdAccountCreation)
                       .where(CrowdAccountCreation.address_key.is_not(None),
                              CrowdAccountCreation.created_at <= now - window)
                       .values(address_key=None).execution_options(synchronize_session=False))
    db.session.add(CrowdAccountCreation(link_id=link.id, address_key=key, created_at=now))
    db.session.flush()
