"""Two gunicorn workers count failed logins together: what one counted, the other refuses (they share the
database, people/login_counters.py), while the owner at another address logs in. Before, each worker kept its
own counters, so two workers allowed twice the failures and a restart forgot them."""
from __future__ import annotations

import http.client
import os
import re
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import urlencode

import pytest

from bench.server import listening_socket
from tests.conftest import PASSWORD
from tests.support.gunicorn_server import start_gunicorn, wait_until_serving
from tests.web.conftest import csrf_token

GUESSER, OWNER = "203.0.113.5", "198.51.100.7"
WORKERS = 2
ACCESS = re.compile(r"^worker <?(\d+)>? POST /login (\d{3})$", re.MULTILINE)


@pytest.fixture
def server(app, database_url, tmp_path):  # type: ignore[no-untyped-def]
    """gunicorn with two workers on the test's database, behind one proxy (ANNOTATOR_PROXIES=1, so a test sends
    its client's address in X-Forwarded-For); its access log names the worker of each answer."""
    sock = listening_socket()
    log = tmp_path / "gunicorn.log"
    env = {**os.environ, "DATABASE_URL": database_url, "SECRET_KEY": "throttle-workers-test",
           "ANNOTATOR_INSTANCE": str(tmp_path), "ANNOTATOR_PROXIES": "1",
           "LOGIN_LIMIT_PER_ACCOUNT_AT_ADDRESS": "3 per minute", "LOGIN_LIMIT_PER_ADDRESS": "20 per minute"}
    process = start_gunicorn(sock, WORKERS, env, log, options=[
        "--access-logfile", "-", "--access-logformat", "worker %(p)s %(m)s %(U)s %(s)s"])
    try:
        wait_until_serving(sock.getsockname()[1], process, log)
        yield sock.getsockname()[1], log
    finally:
        process.terminate()
        process.wait(timeout=30)
        sock.close()


def _login(port: int, username: str, password: str, address: str) -> int:
    """The login form as a browser behind the proxy sends it: its page (for the cookie and CSRF token), then the
    POST, each on a connection of its own (so any worker may answer either)."""
    page = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    page.request("GET", "/login", headers={"X-Forwarded-For": address})
    response = page.getresponse()
    cookie = response.getheader("Set-Cookie", "").split(";")[0]
    token = csrf_token(response.read().decode())
    page.close()
    post = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    post.request("POST", "/login", body=urlencode({"username": username, "password": password, "csrf_token": token}),
                 headers={"X-Forwarded-For": address, "Cookie": cookie,
                          "Content-Type": "application/x-www-form-urlencoded"})
    status = post.getresponse().status
    post.close()
    return status


def _workers_that_answered(log: Path, status: int) -> set[str]:
    time.sleep(0.2)  # the access log line is written after the answer
    return {pid for pid, answered in ACCESS.findall(log.read_text()) if int(answered) == status}


def test_failures_counted_by_one_worker_are_refused_by_the_other(server, make_user):
    port, log = server
    make_user("admin", role="admin")
    assert [_login(port, "admin", f"guess-{n}", GUESSER) for n in range(3)] == [401] * 3
    refused: list[int] = []
    with ThreadPoolExecutor(4) as pool:  # at the same time, so that both workers answer
        for _ in range(5):
            refused += pool.map(lambda _: _login(port, "admin", PASSWORD, GUESSER), range(4))
            if len(_workers_that_answered(log, 429)) == WORKERS:
                break
    assert set(refused) == {429}
    assert len(_workers_that_answered(log, 429)) == WORKERS, log.read_text()
    assert _login(port, "admin", PASSWORD, OWNER) == 302
