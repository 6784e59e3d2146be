"""Who may use which route: every rule of the app's URL map, for every kind of visitor, from one table.

The table must name every (endpoint, method) the app serves: a route added without a row here fails
`test_every_route_has_a_row`, so its access rule is decided when it is added, not found out later.
Visitors: anonymous, the annotator who holds the HIT (`ann`), another annotator (`bob`) and an admin.
Outcomes: LOGIN (sent to the login page), 401 (API without a valid token), 403, or OK (anything that is
neither of those nor a server error: a form that refuses empty data still let the visitor in).
State-changing admin POSTs aim at a project or account that does not exist (OK is then a 404 for the
admin), so the matrix changes nothing the later rows read. Log-out runs last.
"""
from __future__ import annotations

import pytest

from annotator.engine import assignment as engine
from tests.web.conftest import csrf_token

LOGIN, UNAUTHORISED, FORBIDDEN, OK = "LOGIN", 401, 403, "OK"
VISITORS = ("anonymous", "ann", "bob", "admin")
USER = (LOGIN, OK, OK, OK)           # any logged-in account
ADMIN = (LOGIN, FORBIDDEN, FORBIDDEN, OK)
OWNER = (LOGIN, OK, FORBIDDEN, FORBIDDEN)  # the annotator who holds the HIT only
PUBLIC = (OK, OK, OK, OK)
TOKEN = (UNAUTHORISED, OK, OK, OK)
TOKEN_OWNER = (UNAUTHORISED, OK, FORBIDDEN, FORBIDDEN)

# (endpoint, method): (url, outcome per visitor). {a} is ann's assignment; "nope" names nothing.
TABLE: dict[tuple[str, str], tuple[str, tuple]] = {
    ("static", "GET"): ("/static/js/hit.js", PUBLIC),
    ("favicon", "GET"): ("/favicon.ico", PUBLIC),
    ("definition_schema", "GET"): ("/schema/definition.json", PUBLIC),
    ("auth.login", "GET"): ("/login", PUBLIC),
    ("auth.login", "POST"): ("/login", PUBLIC),
    ("auth.password", "GET"): ("/account/password", USER),
    ("auth.password", "POST"): ("/account/password", USER),
    ("annotate.index", "GET"): ("/", USER),
    ("annotate.hit", "GET"): ("/p/kpa/", USER),
    ("annotate.start", "POST"): ("/p/kpa/next", USER),
    ("annotate.submit", "GET"): ("/p/kpa/a/{a}", USER),  # back to one's own HIT page, with a note
    ("annotate.submit", "POST"): ("/p/kpa/a/{a}", OWNER),
    ("api.next_hit", "POST"): ("/api/v1/projects/kpa/next", TOKEN),
    ("api.submit", "POST"): ("/api/v1/assignments/{a}/submit", TOKEN_OWNER),
    ("api.progress", "GET"): ("/api/v1/projects/kpa/progress", TOKEN),
    ("api.openapi_description", "GET"): ("/api/v1/openapi.json", PUBLIC),
    ("admin.projects", "GET"): ("/admin/", ADMIN),
    ("admin.project", "GET"): ("/admin/projects/kpa", ADMIN),
    ("admin.project", "POST"): ("/admin/projects/nope", ADMIN),
    ("admin.export", "GET"): ("/admin/projects/kpa/export.zip", ADMIN),
    ("admin.ranking", "GET"): ("/admin/projects/kpa/ranking", ADMIN),
    ("admin.demo", "GET"): ("/admin/demo", ADMIN),
    ("items.index", "GET"): ("/admin/projects/kpa/items/", ADMIN),
    ("review.index", "GET"): ("/admin/projects/kpa/review/", ADMIN),
    ("review.item", "GET"): ("/admin/projects/kpa/review/arg_1_0", ADMIN),
    ("review.item", "POST"): ("/admin/projects/nope/review/arg_1_0", ADMIN),
    ("setup.choose_format", "GET"): ("/admin/projects/new", ADMIN),
    ("setup.new_project", "GET"): ("/admin/projects/new/kpa2021", ADMIN),
    ("setup.new_project", "POST"): ("/admin/projects/new/kpa2021", ADMIN),
    ("declared.new", "GET"): ("/admin/projects/declared/new", ADMIN),
    ("declared.new", "POST"): ("/admin/projects/declared/new", ADMIN),
    ("declared.create", "POST"): ("/admin/projects/declared/create", ADMIN),
    ("declared.more", "GET"): ("/admin/projects/declared/nope/more", ADMIN),
    ("declared.more", "POST"): ("/admin/projects/declared/nope/more", ADMIN),
    ("setup.more_items", "GET"): ("/admin/projects/kpa/import", ADMIN),
    ("setup.more_items", "POST"): ("/admin/projects/nope/import", ADMIN),
    ("setup.archive", "POST"): ("/admin/projects/nope/archive", ADMIN),
    ("setup.audience", "POST"): ("/admin/projects/nope/audience", ADMIN),
    ("setup.delete", "POST"): ("/admin/projects/nope/delete", ADMIN),
    ("accounts.index", "GET"): ("/admin/annotators", ADMIN),
    ("accounts.index", "POST"): ("/admin/annotators", ADMIN),
    ("accounts.bulk", "POST"): ("/admin/annotators/bulk", ADMIN),
    ("accounts.show", "GET"): ("/admin/annotators/{ann_id}", ADMIN),
    ("accounts.toggle_active", "POST"): ("/admin/annotators/999999/active", ADMIN),
    ("accounts.new_password", "POST"): ("/admin/annotators/999999/password", ADMIN),
    ("accounts.new_token", "POST"): ("/admin/annotators/999999/tokens", ADMIN),
    ("accounts.revoke_token", "POST"): ("/admin/annotators/999999/tokens/1/revoke", ADMIN),
    ("audit.index", "GET"): ("/admin/audit", ADMIN),
    ("erasure.index", "GET"): ("/admin/erase", ADMIN),
    ("erasure.index", "POST"): ("/admin/erase", ADMIN),
    ("erasure.confirm", "POST"): ("/admin/erase/confirm", ADMIN),
    ("leaderboards.index", "GET"): ("/admin/leaderboards/", ADMIN),
    ("leaderboards.new", "GET"): ("/admin/leaderboards/new/kpa2021", ADMIN),
    ("leaderboards.new", "POST"): ("/admin/leaderboards/new/kpa2021", ADMIN),
    ("leaderboards.from_project", "POST"): ("/admin/leaderboards/from-project/nope", ADMIN),
    ("leaderboards.show", "GET"): ("/admin/leaderboards/999999", ADMIN),
    ("leaderboards.show", "POST"): ("/admin/leaderboards/999999", ADMIN),
    ("leaderboards.submission", "GET"): ("/admin/leaderboards/999999/submissions/1", ADMIN),
    ("quality.settings", "POST"): ("/admin/projects/nope/quality", ADMIN),
    ("quality.control", "POST"): ("/admin/projects/nope/items/1/control", ADMIN),
    ("quality.annotators", "GET"): ("/admin/projects/kpa/annotators", ADMIN),
    ("quality.controls_file", "GET"): ("/admin/projects/kpa/controls.csv", ADMIN),
    ("quality.controls", "POST"): ("/admin/projects/nope/controls", ADMIN),
    ("quality.retry", "POST"): ("/admin/projects/nope/annotators/999999/retry", ADMIN),
    ("quality.unblock_annotator", "POST"): ("/admin/projects/nope/annotators/999999/unblock", ADMIN),
    ("aggregation.dawid_skene", "GET"): ("/admin/projects/kpa/dawid-skene", ADMIN),
    ("dashboard.show", "GET"): ("/admin/projects/kpa/dashboard", ADMIN),
    ("dataset_stats.show", "GET"): ("/admin/projects/kpa/stats", ADMIN),
    ("dataset_stats.draw_split", "POST"): ("/admin/projects/nope/split", ADMIN),
    ("dataset_stats.split_csv", "GET"): ("/admin/projects/kpa/split.csv", ADMIN),
    ("project_move.download", "GET"): ("/admin/projects/kpa/archive.zip", ADMIN),
    ("project_move.upload", "GET"): ("/admin/projects/import-archive", ADMIN),
    ("project_move.upload", "POST"): ("/admin/projects/import-archive", ADMIN),
    ("premise_stage.show", "GET"): ("/admin/projects/kpa/premise-stage", ADMIN),
    ("premise_stage.show", "POST"): ("/admin/projects/nope/premise-stage", ADMIN),
    ("crowd_admin.links", "GET"): ("/admin/projects/kpa/crowd", ADMIN),
    ("crowd_admin.links", "POST"): ("/admin/projects/nope/crowd", ADMIN),
    ("crowd_admin.filters", "POST"): ("/admin/projects/nope/crowd/filters", ADMIN),
    ("crowd_admin.mturk_request", "GET"): ("/admin/projects/kpa/crowd/mturk-create-hit.json", ADMIN),
    # Crowd entry: a link with a wrong secret is refused to everyone (404), also the POST of its "sign out
    # first?" page; the study pages are for the crowd worker of that study only (403 for accounts that did
    # not come through it).
    ("crowd.enter", "GET"): ("/crowd/kpa/prolific/not-the-secret", PUBLIC),
    ("crowd.enter", "POST"): ("/crowd/kpa/prolific/not-the-secret", PUBLIC),
    ("crowd.step", "GET"): ("/crowd/kpa/", USER),
    ("crowd.done", "GET"): ("/crowd/kpa/done", (LOGIN, FORBIDDEN, FORBIDDEN, FORBIDDEN)),
    ("crowd.screened_out", "GET"): ("/crowd/kpa/screened-out", (LOGIN, FORBIDDEN, FORBIDDEN, FORBIDDEN)),
    # Last: it ends the visitor's sessions. Logged in or not, the answer is the login page.
    ("auth.logout", "POST"): ("/logout", (LOGIN, LOGIN, LOGIN, LOGIN)),
}


def _served(app) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    return {(rule.endpoint, method) for rule in app.url_map.iter_rules()
            for method in rule.methods - {"HEAD", "OPTIONS"}}


def test_every_route_has_a_row(app):
    served = _served(app)
    assert served - set(TABLE) == set(), "routes without an access rule in tests/web/test_access_matrix.py"
    assert set(TABLE) - served == set(), "rows for routes the app no longer serves"


def _outcome(response) -> object:  # type: ignore[no-untyped-def]
    if response.status_code == 302 and "/login" in response.headers.get("Location", ""):
        return LOGIN
    if response.status_code in (401, 403):
        return response.status_code
    assert response.status_code < 500, response.get_data(as_text=True)[:500]
    return OK


@pytest.fixture
def visitors(app, make_user, login, api_client, kpa_project):  # type: ignore[no-untyped-def]
    """Per visitor: its browser client, its API token (None for the anonymous one) and its CSRF token."""
    project = kpa_project()
    users = {name: make_user(name, role="admin" if name == "admin" else "annotator") for name in VISITORS[1:]}
    assignment = engine.next_for(users["ann"], project)
    tokens = {name: api_client(name).token for name in users}
    clients = {"anonymous": app.test_client(), **{name: login(name) for name in users}}
    csrf = {name: csrf_token(client.get("/login" if name == "anonymous" else "/account/password")
                             .get_data(as_text=True)) for name, client in clients.items()}
    values = {"a": assignment.id, "ann_id": users["ann"].id}
    return clients, tokens, csrf, values


def test_each_visitor_gets_what_the_table_says(visitors):
    clients, tokens, csrf, values = visitors
    wrong = []
    for (endpoint, method), (url, outcomes) in TABLE.items():
        for visitor, expected in zip(VISITORS, outcomes):
            client = clients[visitor]
            target = url.format(**values)
            if endpoint.startswith("api."):
                headers = {"Authorization": f"Bearer {tokens[visitor]}"} if visitor in tokens else {}
                response = client.open(target, method=method, headers=headers, json={"answer": {"matches": []}})
            elif method == "POST":
                response = client.post(target, data={"csrf_token": csrf[visitor]})
            else:
                response = client.get(target)
            got = _outcome(response)
            if got != expected:
                wrong.append(f"{method} {target} as {visitor}: {got}, expected {expected}")
    assert not wrong, "\n".join(wrong)
