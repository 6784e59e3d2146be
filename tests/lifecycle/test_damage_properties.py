"""Whatever byte of a backup is flipped or wherever it is cut, a restore either refuses with a message (exit
status 1, nothing written) or, when the damage touched nothing that matters (a zip header's timestamp), loads
exactly what was backed up."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from annotator.core.extensions import db
from tests.conftest import _empty_postgres, _empty_sqlite, all_rows
from tests.lifecycle.conftest import counts
from tests.support.property_checks import SETTINGS

DAMAGE = st.one_of(
    st.tuples(st.just("flip"), st.floats(0, 1, exclude_max=True), st.integers(1, 255)),
    st.tuples(st.just("cut"), st.floats(0, 1, exclude_max=True), st.just(0)),
)


def _rows() -> dict[str, list[dict]]:
    """Every table's rows in one order whatever order the engine reads them in."""
    return {name: sorted(rows, key=lambda row: repr(sorted(row.items()))) for name, rows in all_rows().items()}


def assert_restored_exactly(original: dict[str, list[dict]]) -> None:
    """Every row as backed up, and one audit event more: the restore's own."""
    restored = _rows()
    events = restored.pop("audit_events")
    assert restored == {name: rows for name, rows in original.items() if name != "audit_events"}
    [own] = [event for event in events if event not in original["audit_events"]]
    assert [e for e in events if e != own] == original["audit_events"] and own["action"] == "restore"


def _empty() -> None:
    _empty_postgres() if db.engine.dialect.name == "postgresql" else _empty_sqlite()


def test_a_damaged_backup_is_refused_or_restored_whole(app, demo, tmp_path):
    path = tmp_path / "backup.zip"
    assert app.test_cli_runner().invoke(args=["backup", str(path)]).exit_code == 0
    whole, original = path.read_bytes(), _rows()
    _empty()

    @SETTINGS
    @given(damage=DAMAGE)
    def check(damage: tuple[str, float, int]) -> None:
        how, where, mask = damage
        at = int(where * len(whole))
        damaged = whole[:at] if how == "cut" else whole[:at] + bytes([whole[at] ^ mask]) + whole[at + 1:]
        spoiled = tmp_path / "damaged.zip"
        spoiled.write_bytes(damaged)
        result = app.test_cli_runner().invoke(args=["restore", str(spoiled)])
        if result.exit_code == 0:
            assert_restored_exactly(original)
            _empty()
            return
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
        assert result.output.startswith("Error: ") and "Nothing was changed." in result.output
        assert set(counts().values()) == {0}
    check()


def test_a_flipped_timestamp_in_a_zip_header_restores_exactly_what_was_backed_up(app, demo, tmp_path):
    """The harmless damage the property allows, made on purpose so that its branch surely runs."""
    path = tmp_path / "backup.zip"
    assert app.test_cli_runner().invoke(args=["backup", str(path)]).exit_code == 0
    whole, original = path.read_bytes(), _rows()
    assert whole[:4] == b"PK\x03\x04"                       # the first local file header; its time is at 10-11
    path.write_bytes(whole[:10] + bytes([whole[10] ^ 0x01]) + whole[11:])
    _empty()
    result = app.test_cli_runner().invoke(args=["restore", str(path)])
    assert result.exit_code == 0, result.output
    assert_restored_exactly(original)
