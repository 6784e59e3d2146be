"""The per-type sample data of tests/support/type_data.py covers every registered HIT type, with data that exists."""
from __future__ import annotations

from annotator.lookups.formats import file_format
from annotator.tasks import TASK_TYPES
from tests.support import type_data
from tests.support.type_data import MORE_FORMATS, TEST_DATA


def test_every_task_type_has_test_data() -> None:
    missing = sorted(set(TASK_TYPES) - set(TEST_DATA))
    assert not missing, f"add the test data of task type(s) {', '.join(missing)} to TEST_DATA in {type_data.__file__}"
    for name, data in TEST_DATA.items():
        assert file_format(data.format).task == name, f"{data.format} does not import {name} projects"
        assert data.path.exists(), data.path


def test_a_format_without_a_type_of_its_own_has_data_that_exists() -> None:
    for name, data in MORE_FORMATS.items():
        assert data.format == name and file_format(name).task in TASK_TYPES and data.path.exists(), name
        assert all(data.format != covered.format for covered in TEST_DATA.values()), name
