"""The label frame read for speed (annotator/label_reader.py): the same rows, in the same order, as the plain query.

Data: the KPA excerpt of tests/data/kpa2021 (26 arguments of one test topic), every argument voted by
three annotators, each matching the argument's first key point or none.
"""
from __future__ import annotations

import pandas as pd
from sqlalchemy import select

from annotator import label_reader
from annotator.extensions import db
from annotator.models import Item, Label
from annotator.results import LABEL_COLUMNS, labels_frame
from tests.voting import vote_everywhere


def _voted_project(kpa_project, make_user):  # type: ignore[no-untyped-def]
    project = kpa_project(k=3)
    users = [make_user(name) for name in ("ann", "bob", "cyd")]
    vote_everywhere(project, users, lambda item, user: {
        "matches": [item.payload["key_points"][0]["id"]] if (item.position + user.id) % 2 else []})
    return project


def _by_the_plain_query(project) -> pd.DataFrame:  # type: ignore[no-untyped-def]
    """What labels_frame means: the counted label rows with their item's external id, in item then vote order."""
    rows = db.session.execute(
        select(Item.external_id, Item.position, Label.unit, Label.field, Label.value, Label.user_id,
               Label.assignment_id)
        .join(Item, Item.id == Label.item_id).where(Label.project_id == project.id)
        .order_by(Item.position, Label.assignment_id, Label.id)).all()
    return pd.DataFrame([tuple(row) for row in rows], columns=LABEL_COLUMNS)


def test_the_frame_read_in_small_chunks_is_the_plain_query_in_item_then_vote_order(kpa_project, make_user,
                                                                                    monkeypatch):
    project = _voted_project(kpa_project, make_user)
    monkeypatch.setattr(label_reader, "CHUNK", 7)  # many chunks, their edges inside votes
    frame = labels_frame(project)
    assert len(frame) > 7 * 3
    pd.testing.assert_frame_equal(frame, _by_the_plain_query(project), check_exact=True)


def test_equal_strings_of_the_frame_are_one_object(kpa_project, make_user, monkeypatch):
    project = _voted_project(kpa_project, make_user)
    monkeypatch.setattr(label_reader, "CHUNK", 7)  # shared across chunks too
    frame = labels_frame(project)
    for column in ("item", "unit", "field", "value"):
        values = frame[column].to_numpy(dtype=object)
        assert len({id(v) for v in values}) == len(set(values))
