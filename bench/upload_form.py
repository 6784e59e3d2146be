"""One upload through the new declared project page, in a process of its own (run by bench/uploads.py).

The app is made as a server worker makes it; an admin is created and logged in through the login form; the peak
memory is reset (/proc/self/clear_refs) just before the POST, so VmHWM afterwards is the upload's own. Prints one
JSON line: status, post_s, rss_before_mb, upload_peak_mb.
"""
from __future__ import annotations

import argparse
import json
import re
import secrets
import time
from pathlib import Path

from annotator import create_app
from annotator.core.extensions import db
from annotator.core.models import User

CSRF = re.compile(r'name="csrf_token"[^>]*value="([^"]+)"')
URL = "/admin/projects/declared/new"


def _status_mb(key: str) -> float:
    match = re.search(rf"{key}:\s+(\d+) kB", Path("/proc/self/status").read_text())
    return int(match.group(1)) / 1024 if match else 0.0


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--items", type=Path, required=True)
    parser.add_argument("--definition", type=Path, required=True)
    parser.add_argument("--slug", required=True)
    args = parser.parse_args()
    app = create_app()
    password = secrets.token_hex(12)
    with app.app_context():
        admin = User(username="bench-admin", role="admin")
        admin.set_password(password)
        db.session.add(admin)
        db.session.commit()
    client = app.test_client()
    page = client.get("/login").get_data(as_text=True)
    token = CSRF.search(page)
    assert token, "no CSRF token on the login page"
    response = client.post("/login", data={"username": "bench-admin", "password": password,
                                           "csrf_token": token.group(1)})
    assert response.status_code == 302, response.status_code
    form = CSRF.search(client.get(URL).get_data(as_text=True))
    assert form, "no CSRF token on the new declared project page"
    Path("/proc/self/clear_refs").write_text("5")
    before = _status_mb("VmRSS")
    started = time.perf_counter()
    with args.items.open("rb") as items, args.definition.open("rb") as definition:
        response = client.post(URL, content_type="multipart/form-data", data={
            "csrf_token": form.group(1), "slug": args.slug, "name": "", "k": "", "lease_minutes": "30",
            "action": "create", "definition": (definition, args.definition.name),
            "items": (items, args.items.name)})
    post_s = time.perf_counter() - started
    body = response.get_data(as_text=True)
    if response.status_code != 302:
        raise SystemExit(f"the form answered {response.status_code}: {body[:2000]}")
    print(json.dumps({"status": response.status_code, "post_s": round(post_s, 2), "rss_before_mb": round(before, 1),
                      "upload_peak_mb": round(_status_mb("VmHWM") - before, 1)}))


if __name__ == "__main__":
    main()
