"""Set-up step of bench/pages.py, run in the app (`python -m bench.pages_setup`): annotators with API tokens and
an admin account. Prints one JSON line: the annotators' tokens and the project's count of items."""
from __future__ import annotations

import argparse
import json

from sqlalchemy import func, select

from annotator import create_app
from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.people.accounts import create_user

from .provision import annotators

ADMIN, ADMIN_PASSWORD = "bench-admin", "bench-admin-password"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--annotators", type=int, default=0, help="make ann1..annN with a token each")
    parser.add_argument("--admin", action="store_true", help=f"make the admin account {ADMIN}")
    parser.add_argument("--project", help="the slug of the project whose items to count")
    args = parser.parse_args()
    with create_app().app_context():
        tokens = annotators(args.annotators) if args.annotators else {}
        if args.admin:
            create_user(ADMIN, "admin", ADMIN_PASSWORD)
            db.session.commit()
        items = db.session.scalar(select(func.count()).select_from(Item).join(Project)
                                  .where(Project.slug == args.project)) if args.project else None
    print(json.dumps({"tokens": tokens, "items": items}))


if __name__ == "__main__":
    main()
