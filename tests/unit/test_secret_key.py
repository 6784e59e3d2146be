"""SECRET_KEY: configured, or one key file that simultaneous workers agree on; refused start on PostgreSQL."""
from __future__ import annotations

import threading
from pathlib import Path

import pytest

from annotator import create_app
from annotator.core.secret_key import SecretKeyMissing, decide_secret_key, instance_secret_key


def test_a_configured_key_is_used_as_it_is(tmp_path: Path):
    assert decide_secret_key("configured", "postgresql+psycopg://h/db", tmp_path) == "configured"
    assert not (tmp_path / "secret_key").exists()


def test_without_a_key_postgresql_refuses_to_start_and_says_what_to_do(tmp_path: Path):
    with pytest.raises(SecretKeyMissing, match="Set the same SECRET_KEY"):
        create_app("config.Config", SECRET_KEY=None, SQLALCHEMY_DATABASE_URI="postgresql+psycopg://h/db",
                   INSTANCE_DIR=tmp_path)


def test_without_a_key_sqlite_keeps_one_in_the_instance_folder(tmp_path: Path):
    app = create_app("config.Config", SECRET_KEY=None, SQLALCHEMY_DATABASE_URI="sqlite://", INSTANCE_DIR=tmp_path)
    assert app.config["SECRET_KEY"] == (tmp_path / "secret_key").read_text()
    assert (tmp_path / "secret_key").stat().st_mode & 0o077 == 0  # readable by the owner only


def test_workers_starting_at_once_on_a_fresh_instance_agree(tmp_path: Path):
    for attempt in range(20):
        folder = tmp_path / str(attempt)
        start = threading.Barrier(8)
        keys: list[str] = []

        def worker(start: threading.Barrier = start, keys: list[str] = keys, folder: Path = folder) -> None:
            start.wait()
            keys.append(instance_secret_key(folder))
        threads = [threading.Thread(target=worker) for _ in range(8)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert len(keys) == 8 and len(set(keys)) == 1 and len(keys[0]) == 64
        assert [p.name for p in folder.iterdir()] == ["secret_key"]  # no candidate left behind


def test_an_empty_key_file_is_refused_with_a_message(tmp_path: Path):
    (tmp_path / "secret_key").write_text("")
    with pytest.raises(SecretKeyMissing, match="holds no usable key"):
        instance_secret_key(tmp_path)
