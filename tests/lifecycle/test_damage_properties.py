"""Whatever byte of a backup is flipped or wherever it is cut, a restore either refuses with a message (exit
status 1, nothing written) or, when the damage touched nothing that matters (a zip header's timestamp), loads
exactly what was backed up."""
from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from annotator.core.extensions import db
from tests.conftest import _empty_postgres, _empty_sqlite
from tests.lifecycle.conftest import counts
from tests.properties.checks import SETTINGS

DAMAGE = st.one_of(
    st.tuples(st.just("flip"), st.floats(0, 1, exclude_max=True), st.integers(1, 255)),
    st.tuples(st.just("cut"), st.floats(0, 1, exclude_max=True), st.just(0)),
)


def _empty() -> None:
    _empty_postgres() if db.engine.dialect.name == "postgresql" else _empty_sqlite()


def test_a_damaged_backup_is_refused_or_restored_whole(app, demo, tmp_path):
    path = tmp_path / "backup.zip"
    assert app.test_cli_runner().invoke(args=["backup", str(path)]).exit_code == 0
    whole, original = path.read_bytes(), counts()
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
            assert counts() == {**original, "audit_events": original["audit_events"] + 1}  # the restore's own event
            _empty()
            return
        assert result.exit_code == 1 and isinstance(result.exception, SystemExit), result.output
        assert result.output.startswith("Error: ") and "Nothing was changed." in result.output
        assert set(counts().values()) == {0}
    check()
