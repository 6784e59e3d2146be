"""A declared dataset's item field of objects has one field order whichever order the engine stored the keys in.

SQLite keeps an item's keys as the items file gave them and PostgreSQL's JSONB sorts them (shorter keys first), so a
project moved between the engines used to write the KPA check's `systems` entries as Parquet structs of another field
order (custom/dataset.py, `in_jsonb_order`).
"""
from __future__ import annotations

from annotator.declared.items import load_definition
from annotator.shared_tasks.custom.dataset import items_table
from annotator.shared_tasks.kpa2021.declared_gold import CHECK_DEFINITION

SYSTEMS_AS_READ = [{"name": "alpha", "key_point_id": "kp_3", "score": 0.9},
                   {"name": "beta", "key_point_id": "kp_1", "score": 0.4}]


def _payload(systems: list[dict[str, object]]) -> dict[str, object]:
    return {"id": "arg_1~x", "arg_id": "arg_1", "topic": "Uniforms", "stance": 1, "argument": "They are cheap.",
            "key_point": {"text": "Uniforms save money", "id": "x"}, "systems": systems}


def _systems_column(systems: list[dict[str, object]]):  # type: ignore[no-untyped-def]
    table = items_table(load_definition(CHECK_DEFINITION), [("arg_1~x", _payload(systems), False)]).table
    return table.schema.field("systems").type, table.column("systems").to_pylist()


def test_the_file_order_and_the_jsonb_order_of_the_same_objects_give_one_column():
    as_read = _systems_column(SYSTEMS_AS_READ)
    as_jsonb = _systems_column([{"name": s["name"], "score": s["score"], "key_point_id": s["key_point_id"]}
                                for s in SYSTEMS_AS_READ])
    assert as_read == as_jsonb


def test_the_struct_fields_follow_the_shorter_key_first():
    column_type, _ = _systems_column(SYSTEMS_AS_READ)
    assert [column_type.value_type.field(n).name for n in range(3)] == ["name", "score", "key_point_id"]


def test_the_values_are_kept_with_their_keys():
    _, values = _systems_column(SYSTEMS_AS_READ)
    assert values == [[{"name": "alpha", "score": 0.9, "key_point_id": "kp_3"},
                       {"name": "beta", "score": 0.4, "key_point_id": "kp_1"}]]
