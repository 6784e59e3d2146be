"""Votes cast after a big project's figures were kept, through the engine as submits store them: the state an
export meets during a campaign (`python -m bench.votes_since --project SLUG --annotators N --each M`).

Why: `bench.synthetic` writes a finished project (every item with its k votes) in bulk; what an export costs
while annotators keep voting depends on the votes that came after the kept figures, which only real submits
make (leases, counters, targets). Run it after `python -m bench.synthetic --items N` added unvoted items and
`flask refresh-figures` kept the figures. N annotators (`since1`.., made if missing) each answer up to M HITs with the
task type's `example_answer`; prints one JSON line: votes cast, items they completed, seconds.
"""
from __future__ import annotations

import argparse
import json
import random
import time

from sqlalchemy import func, select

from annotator import create_app
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Item, Project, User
from annotator.engine import assignment as engine
from annotator.people.accounts import create_user
from annotator.tasks import project_settings, project_task


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--project", required=True)
    parser.add_argument("--annotators", type=int, default=9)
    parser.add_argument("--each", type=int, default=300, help="HITs each annotator answers at most")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    with create_app().app_context():
        project = db.session.scalars(select(Project).filter_by(slug=args.project)).one()
        task, settings = project_task(project), project_settings(project)
        complete_before = _complete(project)
        started, votes = time.perf_counter(), 0
        for n in range(1, args.annotators + 1):
            name = f"since{n}"
            user = db.session.scalars(select(User).filter_by(username=name)).one_or_none()
            if user is None:
                user = create_user(name, "annotator", f"since-password-{n}").user
                db.session.commit()
            for _ in range(args.each):
                lease = engine.next_for(user, project)
                if lease is None:
                    break
                shown = task.public_item(lease.item, settings, lease.presentation)
                engine.submit(lease.id, user, task.example_answer(shown, rng))
                votes += 1
        print(json.dumps({"votes": votes, "completed": _complete(project) - complete_before,
                          "seconds": round(time.perf_counter() - started, 1)}))


def _complete(project: Project) -> int:
    return db.session.scalar(select(func.count(func.distinct(Assignment.item_id)))
                             .where(Assignment.project_id == project.id, Assignment.status == SUBMITTED)
                             .where(Assignment.item_id.in_(select(Item.id).where(Item.project_id == project.id,
                                                                                 Item.done_count >= project.k))))


if __name__ == "__main__":
    main()
