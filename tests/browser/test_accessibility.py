"""axe-core on every page of the app, at a laptop's width and a phone's, annotator and admin: any violation fails.

Every GET route of the app's URL map is either scanned here (PAGES: who opens it and with which arguments) or
named in NOT_PAGES with the reason it is not a page; a route added without a decision fails
`test_every_get_route_is_scanned_or_excluded_with_a_reason`. The pages are filled with the demo (one project
of every built-in HIT type, with votes), RuArg's two stages, a leaderboard with a submission and a crowd
study: filled once for the run, each process that scans serving a copy, once for the module. Each visitor
(logged out, an annotator holding a HIT of every project, another annotator with nothing left and blocked
from one, the admin, a crowd worker) browses in one context of its own, logged in once. axe-core is the
vendored copy (static/vendor/axe-core), injected by a script tag from the server under test, as the pages'
own scripts are (the Content-Security-Policy's 'self'): nothing comes from the network.

Also here: text sizes follow the browser's default font size, and on every HIT the keyboard reaches the
HIT's first control at once or through the skip link.
"""
from __future__ import annotations

import hashlib
import json
import random
import shutil
import sqlite3
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import pytest
from flask import Flask, url_for
from sqlalchemy import delete, select, update
from werkzeug.serving import make_server

from annotator import create_app
from annotator.campaigns import leaderboard
from annotator.campaigns.demo_projects import DEMO_ANNOTATORS, demo_projects
from annotator.core.audit import who
from annotator.core.extensions import db
from annotator.core.models import LEASED, Assignment, CrowdSession, Item, KeptResult, Project, User
from annotator.engine import assignment as engine
from annotator.figures import kept as kept_module
from annotator.figures.kept import refresh
from annotator.figures.kept_figures import VOTES
from annotator.lookups.formats import FORMATS
from annotator.lookups.scorers import SCORERS
from annotator.people.crowd import link_token, save_link
from annotator.quality.blocking import block
from annotator.shared_tasks.ruarg2022.stages import create_premise_stage
from annotator.tasks import project_task
from tests.browser.conftest import PAGE_LOAD_MS, TIMEOUT_MS
from tests.browser.page_pool import in_a_small_window
from tests.conftest import DATA, PASSWORD, load_project
from tests.web.test_leaderboards import _kpa_gold_zip, _predictions

pytestmark = pytest.mark.browser

WIDTHS = (1280, 375)
AXE_FILE = Path(__file__).resolve().parents[2] / "static" / "vendor" / "axe-core" / "axe.min.js"
# Named by its content hash, as the pages name their own scripts (annotator/web/static_files.py): a page's context loads
# it once and keeps it, instead of asking the server again at every scan.
AXE = f"/static/vendor/axe-core/axe.min.js?v={hashlib.sha256(AXE_FILE.read_bytes()).hexdigest()[:12]}"
PUBLIC, ANNOTATOR, ADMIN, CROWD = "logged out", "annotator", "admin", "crowd worker"
OTHER = "another annotator"  # who has nothing left in the demo's projects, and is blocked from one
BLOCKED_FROM = "cloze-demo"
UNSTARTED = "st"  # the one project where the annotator holds no HIT: its page is the Start button

# GET routes that are not HTML pages, or only redirect to a page scanned under its own route.
NOT_PAGES = {
    "static": "files: style sheets, scripts, the vendored axe-core",
    "favicon": "the site's icon (an SVG image)",
    "definition_schema": "JSON (the definition format's JSON Schema, for editors)",
    "admin.export": "a zip archive",
    "quality.controls_file": "a CSV file",
    "dataset_stats.split_csv": "a CSV file",
    "project_move.download": "a zip archive (the project's)",
    "crowd_admin.mturk_request": "JSON for MTurk's CreateHIT",
    "api.progress": "JSON (API)",
    "api.openapi_description": "JSON (API)",
    "annotate.submit": "opened by GET it only redirects to the HIT page (annotate.hit), with a note",
    "crowd.step": "only redirects: to the HIT page or to the study's end (crowd.done, crowd.screened_out)",
}


@dataclass
class Site:
    """What the pages are made of: the server's URL, the app, the ids the routes take, a page per role."""
    url: str
    app: Flask
    slugs: list[str]                       # one project of every HIT type (the demo), and RuArg's two stages
    ids: dict[str, Any]
    pages: dict[str, Any] = field(default_factory=dict)

    def urls(self, endpoint: str, arguments: list[dict[str, Any]]) -> list[str]:
        with self.app.test_request_context():
            return [url_for(endpoint, **values) for values in arguments]


def per_project(site: Site) -> list[dict[str, Any]]:
    return [{"slug": slug} for slug in site.slugs]


def one(**values: Any) -> Callable[[Site], list[dict[str, Any]]]:
    return lambda site: [values]


def per_hit_type(site: Site) -> list[dict[str, Any]]:
    """The demo's projects, one of every HIT type: RuArg's stages differ in their HIT, not in the admin's pages."""
    return [{"slug": spec["slug"]} for spec in demo_projects()]


def once(site: Site) -> list[dict[str, Any]]:
    return [{}]


class Visit(NamedTuple):
    """Who opens the route, with which arguments (one page per dict), and the status the page comes with."""
    role: str
    arguments: Callable[[Site], list[dict[str, Any]]]
    status: int = 200


# endpoint: its visits
PAGES: dict[str, list[Visit]] = {
    "auth.login": [Visit(PUBLIC, once)],
    "auth.password": [Visit(ANNOTATOR, once)],
    "annotate.index": [Visit(ANNOTATOR, once), Visit(OTHER, once)],
    # the HIT of every type (the Start button where none is held); nothing left; blocked; the error page
    "annotate.hit": [Visit(ANNOTATOR, per_project), Visit(OTHER, one(slug="kpa-demo")),
                     Visit(OTHER, one(slug=BLOCKED_FROM), 403), Visit(ANNOTATOR, one(slug="no-such-project"), 404)],
    "crowd.enter": [Visit(PUBLIC, lambda s: [{"slug": slug, "platform": "mturk", "token": token,  # MTurk's preview
                                              "assignmentId": "ASSIGNMENT_ID_NOT_AVAILABLE", "hitId": "HIT1"}
                                             for slug, token in s.ids["mturk"].items()]),
                    # opened where an admin is signed in: the page that asks before signing them out
                    Visit(ADMIN, lambda s: [{"slug": s.ids["crowd"], "platform": "prolific", "token": s.ids["prolific"],
                                             "PROLIFIC_PID": "60aa11bb22cc33dd44ee55ff", "STUDY_ID": "st1",
                                             "SESSION_ID": "se2"}])],
    "crowd.done": [Visit(CROWD, lambda s: [{"slug": s.ids["crowd"]}])],
    "crowd.screened_out": [Visit(CROWD, lambda s: [{"slug": s.ids["crowd"]}])],
    "admin.projects": [Visit(ADMIN, once)],
    "admin.demo": [Visit(ADMIN, once)],
    "audit.index": [Visit(ADMIN, once)],
    "erasure.index": [Visit(ADMIN, once)],
    "admin.project": [Visit(ADMIN, per_project)],
    "admin.ranking": [Visit(ADMIN, one(slug="kpa-check-demo")), Visit(ADMIN, one(slug="kpa-compare-demo"))],
    "items.index": [Visit(ADMIN, per_hit_type)],
    "review.index": [Visit(ADMIN, one(slug="stance-demo"))],
    "review.item": [Visit(ADMIN, lambda s: [{"slug": "stance-demo", "external_id": s.ids["review_item"]}])],
    "quality.annotators": [Visit(ADMIN, per_hit_type)],
    "aggregation.dawid_skene": [Visit(ADMIN, per_hit_type)],
    "dashboard.show": [Visit(ADMIN, per_hit_type)],
    "dataset_stats.show": [Visit(ADMIN, per_hit_type)],
    "project_move.upload": [Visit(ADMIN, once)],
    "crowd_admin.links": [Visit(ADMIN, per_hit_type)],
    "setup.more_items": [Visit(ADMIN, per_hit_type)],
    "setup.choose_format": [Visit(ADMIN, once)],
    "setup.new_project": [Visit(ADMIN, lambda s: [{"name": name} for name, fmt in FORMATS.items()
                                                  if fmt.new_project is None])],  # the others redirect: declared.new
    "declared.new": [Visit(ADMIN, once)],
    "declared.more": [Visit(ADMIN, one(slug="custom-demo"))],
    "premise_stage.show": [Visit(ADMIN, one(slug="st"))],
    "accounts.index": [Visit(ADMIN, once)],
    "accounts.show": [Visit(ADMIN, lambda s: [{"user_id": s.ids["annotator"]}, {"user_id": s.ids["crowd_worker"]}])],
    "leaderboards.index": [Visit(ADMIN, once)],
    "leaderboards.new": [Visit(ADMIN, lambda s: [{"task": task} for task in SCORERS])],
    "leaderboards.show": [Visit(ADMIN, lambda s: [{"gold_set_id": s.ids["gold_set"]}])],
    "leaderboards.submission": [Visit(ADMIN, lambda s: [{"gold_set_id": s.ids["gold_set"],
                                                         "submission_id": s.ids["submission"]}])],
}


# --- the site, served once for the module ------------------------------------------------------------

def _premise_stage() -> None:
    """RuArg's stance stage `st` (two votes on two sentences) and the premise stage `pr` made from it."""
    stance = load_project("ruarg2022", DATA / "ruarg2022" / "train_excerpt.tsv", "st", k=2, stage="stance")
    voters = db.session.scalars(select(User).where(User.username.in_(DEMO_ANNOTATORS[1:]))).all()
    for external_id in ("17037", "17042"):
        item = db.session.scalar(select(Item).where(Item.project_id == stance.id, Item.external_id == external_id))
        answer = {"claims": {c: {k: v for k, v in said.items() if k != "premise"}   # the file's, in the
                             for c, said in item.reference["claims"].items()}}       # definition's terms
        for user in voters:
            lease = Assignment(project_id=stance.id, item_id=item.id, user_id=user.id,
                               expires_at=engine.utcnow() + engine.timedelta(minutes=5))
            db.session.add(lease)
            db.session.commit()
            engine.submit(lease.id, user, answer)
    create_premise_stage("st", "pr", k=1, by=who())


def _leaderboard() -> tuple[int, int]:
    gold_set = leaderboard.create_gold_set("KPA test topic", "kpa2021", "gold.zip", _kpa_gold_zip(),
                                           {"split": "test", "variant": "official"})
    leaderboard.score_submission(gold_set, "Oracle", "oracle-1", "predictions.p", _predictions("oracle"))
    db.session.commit()
    return gold_set.id, gold_set.submissions[0].id


def _fill(app: Flask) -> dict[str, Any]:
    result = app.test_cli_runner().invoke(args=["demo"], env={"ANNOTATOR_ADMIN_PASSWORD": PASSWORD,
                                                              "ANNOTATOR_DEMO_PASSWORD": PASSWORD})
    assert result.exit_code == 0, result.output
    _premise_stage()
    gold_set, submission = _leaderboard()
    projects = {p.slug: p for p in db.session.scalars(select(Project))}
    mturk = {spec["slug"]: link_token(save_link(projects[spec["slug"]], "mturk", 2, "DONE123"))
             for spec in demo_projects()}
    prolific = link_token(save_link(projects["kpa-demo"], "prolific", 2, "DONE123", "OUT456"))
    first, other = (db.session.scalar(select(User).where(User.username == name)) for name in DEMO_ANNOTATORS[:2])
    for slug, project in projects.items():
        if slug != UNSTARTED:
            assert engine.next_for(first, project) is not None, slug  # the HIT page, not its Start button
    _answer_every_hit(other, projects["kpa-demo"])  # the demo leaves work for everyone: OTHER sees "nothing left"
    blocking = projects[BLOCKED_FROM]
    blocking.quality = {**(blocking.quality or {}), "block_min_median_seconds": 1.0}  # blocking on: states are read
    block(other.id, blocking, "the demo's reason for blocking")
    review_item = db.session.scalar(select(Item.external_id).where(Item.project_id == projects["stance-demo"].id)
                                    .order_by(Item.position).limit(1))
    db.session.commit()
    annotator = first.id
    return {"mturk": mturk, "prolific": prolific, "crowd": "kpa-demo", "review_item": review_item,
            "gold_set": gold_set, "submission": submission, "annotator": annotator}


def _answer_every_hit(user: User, project: Project) -> None:
    task = project_task(project)
    settings, rng = task.settings_of(project), random.Random(1)
    while (lease := engine.next_for(user, project)) is not None:
        engine.submit(lease.id, user, task.example_answer(task.public_item(lease.item, settings, lease.presentation),
                                                          rng))


def _log_in(page, username: str) -> None:  # type: ignore[no-untyped-def]
    page.goto("/login")
    page.get_by_label("User name").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/")


def _crowd_worker(site: Site, page) -> int:  # type: ignore[no-untyped-def]
    """A Prolific worker who entered the study, finished it and (for the other page) was screened out."""
    page.route("https://app.prolific.com/**", lambda route: route.fulfill(status=204))  # the hand-back stays put
    page.goto(f"/crowd/kpa-demo/prolific/{site.ids['prolific']}"
              "?PROLIFIC_PID=5f1a2b3c4d5e6f7a8b9c0d1e&STUDY_ID=st1&SESSION_ID=se1")
    page.wait_for_selector("#start-form")  # entering leases nothing: the study starts with its Start button
    db.session.remove()  # what the server thread committed
    study = db.session.scalar(select(CrowdSession))
    study.completed_at = engine.utcnow()
    study.screened_out = "The demo's reason for screening out."
    user_id = study.user_id
    db.session.commit()
    return user_id


def _site_app(folder: Path) -> Flask:
    return create_app("config.TestConfig", SQLALCHEMY_DATABASE_URI=f"sqlite:///{folder / 'annotator.db'}",
                      EXPORT_DIR=folder / "exports")


def _filled_database(sqlite_template: Path, folder: Path) -> tuple[bytes, dict[str, Any]]:
    """(the bytes of a migrated database filled by `_fill`, the ids its pages take): made once per run and copied by
    each process that scans, instead of filled by each of them."""
    shutil.copy(sqlite_template, folder / "annotator.db")
    app = _site_app(folder)
    with app.app_context():
        ids = _fill(app)
        db.session.remove()
        db.engine.dispose()
    with sqlite3.connect(folder / "annotator.db") as source, sqlite3.connect(folder / "filled.db") as copy:
        source.backup(copy)  # one file, whatever is still in the write-ahead log
    return (folder / "filled.db").read_bytes(), ids


@pytest.fixture(scope="module")
def site(sqlite_template: Path, tmp_path_factory: pytest.TempPathFactory, run_shared, browser) -> Iterator[Site]:  # type: ignore[no-untyped-def]
    folder = tmp_path_factory.mktemp("accessibility")
    (filled, made_ids), _ = run_shared.get_or_make(
        "accessibility-site", lambda: _filled_database(sqlite_template, tmp_path_factory.mktemp("filled")))
    (folder / "annotator.db").write_bytes(filled)
    ids = dict(made_ids)
    app = _site_app(folder)
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="accessibility-server", daemon=True)
    contexts = []
    with app.app_context():
        # The HITs held were leased when the site was filled, which may be longer ago than a lease lasts: from now.
        db.session.execute(update(Assignment).where(Assignment.status == LEASED)
                           .values(expires_at=engine.utcnow() + engine.timedelta(minutes=30)))
        db.session.commit()
        thread.start()
        site = Site(f"http://127.0.0.1:{server.server_port}", app,
                    [spec["slug"] for spec in demo_projects()] + ["st", "pr"], ids)
        try:
            for role in (PUBLIC, ANNOTATOR, OTHER, ADMIN, CROWD):
                context = browser.new_context(base_url=site.url)
                context.set_default_timeout(TIMEOUT_MS)
                contexts.append(context)
                site.pages[role] = in_a_small_window(context.new_page())
            _log_in(site.pages[ANNOTATOR], DEMO_ANNOTATORS[0])
            _log_in(site.pages[OTHER], DEMO_ANNOTATORS[1])
            _log_in(site.pages[ADMIN], "admin")
            site.ids["crowd_worker"] = _crowd_worker(site, site.pages[CROWD])
            yield site
        finally:
            for context in contexts:
                context.close()
            server.shutdown()
            server.server_close()
            thread.join(timeout=5)
            db.session.remove()
            db.engine.dispose()


# --- the scan ----------------------------------------------------------------------------------------

# Contrast that axe could not decide (SVG text, text over another element, a symbol too short for it to call text):
# decided here from the computed colours, the text's own (`fill` for SVG text) against the first opaque background
# colour behind it among its ancestors (white at the root), by WCAG 2's formula: 4.5:1, or 3:1 for large text. Text
# over a background image or gradient cannot be decided that way and is a finding.
UNDECIDED_RULES = ("color-contrast",)
AXE_RUN = """async () => { const r = await axe.run(document, {resultTypes: ['violations', 'incomplete']});
    return {violations: r.violations, incomplete: r.incomplete}; }"""
OWN_CONTRAST = """(selectors) => {
    const rgba = (text) => { const m = text.match(/rgba?\\(([^)]+)\\)/); if (!m) return null;
        const [r, g, b, a = 1] = m[1].split(/[ ,\\/]+/).filter(Boolean).map(Number); return [r, g, b, a]; };
    const lum = ([r, g, b]) => { const c = [r, g, b].map(v => { v /= 255;
        return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); });
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]; };
    return selectors.map((selector) => { const e = document.querySelector(selector);
        if (!e) return `${selector}: not found`;
        const style = getComputedStyle(e);
        const svg = e instanceof SVGElement && style.fill && style.fill !== "none";
        const fg = rgba(svg ? style.fill : style.color);
        let bg = null;
        for (let n = e; n && n.nodeType === 1; n = n.parentElement) { const s = getComputedStyle(n);
            if (s.backgroundImage && s.backgroundImage !== "none") return `${selector}: text over a background image`;
            const c = rgba(s.backgroundColor); if (c && c[3] > 0) { bg = c; break; } }
        bg = bg || [255, 255, 255, 1];
        if (!fg) return `${selector}: no colour`;
        const [hi, lo] = [lum(fg), lum(bg)].sort((a, b) => b - a);
        const ratio = (hi + 0.05) / (lo + 0.05), size = parseFloat(style.fontSize);
        const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
        return ratio >= (large ? 3 : 4.5) ? "" : `${selector}: contrast ${ratio.toFixed(2)}:1`; }); }"""


def violations(page, where: str) -> list[str]:  # type: ignore[no-untyped-def]
    """axe-core's violations on the page as shown now, one line per element (where, rule, impact, target), and the
    contrast axe left undecided that fails or cannot be decided from the computed colours."""
    found = page.evaluate(AXE_RUN)
    lines = []
    for rule in found["violations"]:
        for node in rule["nodes"]:
            summary = (node.get("failureSummary") or "").strip().splitlines()  # "Fix ...:" then the finding
            why = summary[-1].strip() if summary else rule["help"]
            lines.append(f"{where}: {rule['id']} ({rule['impact']}) at {json.dumps(node['target'])}: {why}")
    undecided = [node["target"][-1] for rule in found["incomplete"] if rule["id"] in UNDECIDED_RULES
                 for node in rule["nodes"]]
    lines += [f"{where}: contrast axe left undecided, decided here: {problem}"
              for problem in page.evaluate(OWN_CONTRAST, undecided) if problem]
    return lines


def violations_at_each_width(page, where: str, prepare) -> list[str]:  # type: ignore[no-untyped-def]
    """`violations` of the page at 1280 and at 375 px, the page reloaded at each width (as a phone draws it first,
    which a resize alone would not show) and `prepare(page)` run again on it (the marks or choices the test scans
    with); a page wider than the window (it would scroll sideways) is a finding too."""
    found = []
    for width in (1280, 375):
        page.set_viewport_size({"width": width, "height": 800})
        page.reload()
        page.wait_for_load_state("load")
        prepare(page)
        wide = page.evaluate("document.documentElement.scrollWidth")
        if wide > width:
            found.append(f"{where} at {width} px: the page is {wide} px wide, it scrolls sideways")
        page.add_script_tag(url=AXE)
        found += violations(page, f"{where} at {width} px")
    return found


def test_the_scan_reports_low_contrast_that_axe_leaves_undecided(site: Site) -> None:
    """The checker shown bad input first: light grey SVG text on white, which axe leaves undecided, is a finding;
    the same text in dark grey is not."""
    page = site.pages[PUBLIC]
    page.goto("/login")
    found = {}
    for colour in ("#bbbbbb", "#333333"):
        page.evaluate("""(colour) => { document.querySelector("main").innerHTML = `<h1>Chart</h1>
            <svg width="200" height="40"><text id="t" x="5" y="20" fill="${colour}">Votes per day</text></svg>`; }""",
                      colour)
        page.add_script_tag(url=AXE)
        found[colour] = violations(page, "test page")
    assert found == {"#bbbbbb": ["test page: contrast axe left undecided, decided here: #t: contrast 1.80:1"],
                     "#333333": []}


def at_width(page, width: int) -> None:  # type: ignore[no-untyped-def]
    page.set_viewport_size({"width": width, "height": 800})


def checked(response, where: str, status: int) -> None:  # type: ignore[no-untyped-def]
    assert response is not None and response.status == status, f"{where}: {response.status if response else None}"
    assert "text/html" in response.headers.get("content-type", ""), where


def scan(page, url: str, status: int) -> list[str]:  # type: ignore[no-untyped-def]
    """Load `url` at each width (so that the page's layout and scripts start at that width, as on a phone) and run
    axe there; the page must be HTML with the status expected (after redirects)."""
    # A generous wait for the page itself: the admin pages of seven demo projects compute gold and agreement, and
    # under a loaded CI machine one took over the 5 s that the other browser tests allow. Speed is not what is
    # checked here (bench/ measures it).
    lines = []
    for width in WIDTHS:
        at_width(page, width)
        checked(page.goto(url, timeout=PAGE_LOAD_MS), url, status)
        page.add_script_tag(url=AXE)
        lines += violations(page, f"{url} at {width} px")
    return lines


def test_every_get_route_is_scanned_or_excluded_with_a_reason(app: Flask) -> None:
    """A new page is scanned from the day it is added: its route must be in PAGES or, if it is not a page,
    in NOT_PAGES with the reason; and neither table names a route the app no longer has."""
    served = {rule.endpoint for rule in app.url_map.iter_rules() if "GET" in (rule.methods or ())}
    assert served - set(PAGES) - set(NOT_PAGES) == set(), "GET routes with no accessibility decision"
    assert (set(PAGES) | set(NOT_PAGES)) - served == set(), "decisions for routes the app no longer serves"
    assert set(PAGES) & set(NOT_PAGES) == set()


@pytest.mark.parametrize("endpoint", sorted(PAGES))
def test_the_page_has_no_axe_violation_at_either_width(site: Site, endpoint: str) -> None:
    """WCAG A and AA as axe-core checks them (contrast, names of controls, headers, landmarks...), at 1280 and
    375 px, on every page the route shows (for project pages, one project of every HIT type)."""
    found, scanned = [], 0
    for visit in PAGES[endpoint]:
        for url in site.urls(endpoint, visit.arguments(site)):
            found += [f"as {visit.role}: {line}" for line in scan(site.pages[visit.role], url, visit.status)]
            scanned += 1
    assert scanned, endpoint
    assert not found, f"{len(found)} axe violation(s):\n" + "\n".join(found)


# --- pages drawn after a POST -----------------------------------------------------------------------

DEMO_DEFINITION = Path(__file__).resolve().parents[2] / "annotator" / "campaigns" / "demo" / "custom"


def open_page(path: str) -> Callable[[Any, Site, int], None]:
    return lambda page, site, width: checked(page.goto(path, timeout=PAGE_LOAD_MS), path, 200)


def spare(site: Site, name: str) -> User:
    """An annotator account of the test's own (an erasure or a new password must not touch the demo's)."""
    user = db.session.scalar(select(User).where(User.username == name))
    if user is None:
        user = User(username=name, role="annotator")
        user.set_password(PASSWORD)
        db.session.add(user)
        db.session.commit()
    return user


def account_page(kind: str) -> Callable[[Any, Site, int], None]:
    return lambda page, site, width: open_page(f"/admin/annotators/{spare(site, f'{kind}-{width}').id}")(
        page, site, width)


def erasure_preview(page, site: Site, width: int) -> None:  # type: ignore[no-untyped-def]
    """The erasure form posted for a spare account: the preview page, which holds the confirmation's form."""
    open_page("/admin/erase")(page, site, width)
    post_form(page, 'form[action="/admin/erase"]', {"kind": "account", "identity": spare(site, f"erase-{width}")
                                                     .username}, {}, 200)


class PostVisit(NamedTuple):
    """Who posts which form of which page (reached by `start`), with which fields and files (per width, where a
    post changes something and each width needs its own), and the status of the page drawn after it (after
    redirects: a redirect's landing page, with its message, is the page drawn after that POST)."""
    role: str
    start: Callable[[Any, Site, int], None]
    form: str
    fields: Callable[[Site, int], dict[str, str]] = lambda site, width: {}
    files: Callable[[Site, int], dict[str, tuple[str, bytes]]] = lambda site, width: {}
    status: int = 200


def _hit(slug: str) -> Callable[[Any, Site, int], None]:
    return open_page(f"/p/{slug}/")


KPA = "/admin/projects/kpa-demo"
BAD_YAML = ("definition.yaml", b"name: Broken\nquestions:\n  - {id: q, kind: choice\n")

# endpoint: what is posted; every POST route is here or in NOT_POST_PAGES.
POST_PAGES: dict[str, list[PostVisit]] = {
    "auth.login": [PostVisit(PUBLIC, open_page("/login"), "form:has(input[name=password])",
                             lambda s, w: {"username": "admin", "password": "not the password"}, status=401)],
    "auth.password": [PostVisit(ANNOTATOR, open_page("/account/password"), "form:has(input[name=repeat])",
                                lambda s, w: {"current": "wrong", "new": "short", "repeat": "other"})],
    "annotate.submit": [PostVisit(ANNOTATOR, _hit("cloze-demo"), "#hit-form", status=400)],
    "accounts.index": [PostVisit(ADMIN, open_page("/admin/annotators"), "form:has(input[name=username])",
                                 lambda s, w: {"username": "not a name!", "password": ""}, status=400),
                       PostVisit(ADMIN, open_page("/admin/annotators"), "form:has(input[name=username])",
                                 lambda s, w: {"username": f"new-{w}", "password": ""})],
    "accounts.bulk": [PostVisit(ADMIN, open_page("/admin/annotators"), 'form[action="/admin/annotators/bulk"]',
                                lambda s, w: {"usernames": f"bulk-{w}-a\nbulk-{w}-b"})],
    "accounts.new_password": [PostVisit(ADMIN, account_page("password"), 'form[action$="/password"]')],
    "accounts.new_token": [PostVisit(ADMIN, account_page("token"), 'form[action$="/tokens"]',
                                     lambda s, w: {"note": "a bot"})],
    "admin.project": [PostVisit(ADMIN, open_page(KPA), "form#settings-form",
                                lambda s, w: {"k": "0"})],
    "quality.settings": [PostVisit(ADMIN, open_page(KPA), f'form[action="{KPA}/quality"]',
                                   lambda s, w: {"control_rate": "5"})],
    "quality.controls": [PostVisit(ADMIN, open_page(KPA), f'form[action="{KPA}/controls"]:has(input[name=file])')],
    "dataset_stats.draw_split": [PostVisit(ADMIN, open_page(f"{KPA}/stats"), f'form[action="{KPA}/split"]',
                                           lambda s, w: {"seed": "not a number"})],
    "crowd_admin.links": [PostVisit(ADMIN, open_page(f"{KPA}/crowd"), "form:has(input[name=mturk-platform])",
                                    lambda s, w: {"mturk-completion_code": "not a code!"})],
    "crowd_admin.filters": [PostVisit(ADMIN, open_page(f"{KPA}/crowd"), f'form[action="{KPA}/crowd/filters"]',
                                      lambda s, w: {"approval_rate_above": "101"})],
    "setup.new_project": [PostVisit(ADMIN, open_page("/admin/projects/new/kpa2021"), "form:has(input[name=slug])",
                                    lambda s, w: {"name": "No files", "slug": "no-files"}, status=400)],
    "setup.more_items": [PostVisit(ADMIN, open_page(f"{KPA}/import"), "form:has(input[name=files])", status=400)],
    "declared.new": [PostVisit(ADMIN, open_page("/admin/projects/declared/new"), "form:has(input[name=definition])",
                               lambda s, w: {"slug": f"preview-{w}", "action": "preview"},
                               lambda s, w: {"definition": ("campaign.yaml",
                                                            (DEMO_DEFINITION / "campaign.yaml").read_bytes()),
                                             "beside": ("guidelines.md",
                                                        (DEMO_DEFINITION / "guidelines.md").read_bytes()),
                                             "items": ("items.jsonl", (DEMO_DEFINITION / "items.jsonl").read_bytes())}),
                     PostVisit(ADMIN, open_page("/admin/projects/declared/new"), "form:has(input[name=definition])",
                               lambda s, w: {"slug": f"broken-{w}", "action": "preview"},
                               lambda s, w: {"definition": BAD_YAML,
                                             "items": ("items.jsonl", (DEMO_DEFINITION / "items.jsonl").read_bytes())},
                               status=400)],
    "declared.more": [PostVisit(ADMIN, open_page("/admin/projects/declared/custom-demo/more"),
                                "form:has(input[name=items])", files=lambda s, w: {"items": ("more.jsonl", b"{no\n")},
                                status=400)],
    "project_move.upload": [PostVisit(ADMIN, open_page("/admin/projects/import-archive"),
                                      "form:has(input[name=archive])", lambda s, w: {"slug": "moved"},
                                      lambda s, w: {"archive": ("a.zip", b"not a zip")}, status=400)],
    "leaderboards.new": [PostVisit(ADMIN, open_page("/admin/leaderboards/new/kpa2021"), "form:has(input[name=file])",
                                   lambda s, w: {"name": "No gold"}, status=400)],
    "leaderboards.show": [PostVisit(ADMIN, lambda page, site, width: open_page(
        f"/admin/leaderboards/{site.ids['gold_set']}")(page, site, width), "form:has(input[type=file])", status=400)],
    "premise_stage.show": [PostVisit(ADMIN, open_page("/admin/projects/st/premise-stage"),
                                     "form:has(input[name=slug])", lambda s, w: {"slug": "Not A Slug"}, status=400)],
    "erasure.index": [PostVisit(ADMIN, open_page("/admin/erase"), 'form[action="/admin/erase"]',
                                lambda s, w: {"kind": "account", "identity": "nobody-of-that-name"}, status=400)],
    "erasure.confirm": [PostVisit(ADMIN, erasure_preview, 'form[action="/admin/erase/confirm"]')],
}

# POST routes whose result is not a page of their own to scan.
NOT_POST_PAGES = {
    "api.next_hit": "JSON (API)", "api.submit": "JSON (API)",
    "annotate.start": "a button that leases a HIT and redirects to the HIT page (scanned as annotate.hit)",
    "auth.logout": "ends the session and redirects to the login page (scanned as auth.login)",
    "crowd.enter": "signs the visitor out and redirects into the study, whose pages are scanned (annotate.hit, "
                   "crowd.done); the question it answers is scanned as crowd.enter's GET",
    "accounts.toggle_active": "a button; redirects to the account's page (scanned as accounts.show)",
    "accounts.revoke_token": "a button; redirects to the account's page (scanned as accounts.show)",
    "setup.archive": "a button; redirects to the project's page (scanned as admin.project)",
    "setup.audience": "redirects to the project's page with a message (scanned as admin.project)",
    "setup.delete": "deletes a demo project the other scans read; redirects to the projects page (admin.projects)",
    "quality.control": "a button on the items page; redirects back to it (scanned as items.index)",
    "quality.retry": "a button; redirects to the annotators page (scanned as quality.annotators)",
    "quality.unblock_annotator": "a button; redirects to the annotators page (scanned as quality.annotators)",
    "leaderboards.from_project": "a button; redirects to the new leaderboard (scanned as leaderboards.show)",
    "declared.create": "a button on the preview (scanned as declared.new); redirects to the new project's page",
    "review.item": "an adjudication redirects to the list (review.index); a refusal redraws review.item",
}


def post_form(page, form: str, fields: dict[str, str], files: dict[str, tuple[str, bytes]],  # type: ignore[no-untyped-def]
              status: int) -> None:
    """Fill the form's fields and files and submit it as a person would (the browser follows any redirect)."""
    target = page.locator(form).first
    target.evaluate("""(f, fields) => { for (const [name, value] of Object.entries(fields)) {
        const e = f.elements[name];
        if (e === undefined) { const extra = document.createElement("input");
                               Object.assign(extra, {type: "hidden", name, value}); f.appendChild(extra); }
        else if (e.type === "checkbox") { e.checked = Boolean(value); } else { e.value = value; } } }""", fields)
    for name, (filename, content) in files.items():
        target.locator(f'input[type=file][name="{name}"]').set_input_files(
            {"name": filename, "mimeType": "application/octet-stream", "buffer": content})
    with page.expect_navigation(timeout=PAGE_LOAD_MS) as navigation:
        target.evaluate("f => HTMLFormElement.prototype.submit.call(f)")  # past the browser's own checks
    checked(navigation.value, f"the page after posting {form}", status)


def test_every_post_route_is_scanned_after_a_post_or_excluded_with_a_reason(app: Flask) -> None:
    posted = {rule.endpoint for rule in app.url_map.iter_rules() if "POST" in (rule.methods or ())}
    assert posted - set(POST_PAGES) - set(NOT_POST_PAGES) == set(), "POST routes with no accessibility decision"
    assert (set(POST_PAGES) | set(NOT_POST_PAGES)) - posted == set(), "decisions for POST routes that are gone"


@pytest.mark.parametrize("endpoint", sorted(POST_PAGES))
def test_the_page_drawn_after_a_post_has_no_axe_violation_at_either_width(site: Site, endpoint: str) -> None:
    """The form of each POST route filled (a refusal where the form can refuse, the result page where it shows
    one: a preview, a password or token shown once, an erasure's preview and confirmation) and posted, at each
    width, and the page drawn after it scanned."""
    found = []
    for visit in POST_PAGES[endpoint]:
        page = site.pages[visit.role]
        for width in WIDTHS:
            at_width(page, width)
            visit.start(page, site, width)
            post_form(page, visit.form, visit.fields(site, width), visit.files(site, width), visit.status)
            page.add_script_tag(url=AXE)
            found += [f"as {visit.role}: {line}" for line in violations(page, f"{endpoint} at {width} px")]
    assert not found, f"{len(found)} axe finding(s):\n" + "\n".join(found)


# --- a big project's figures: being computed, and shown while newer ones are -------------------------

@pytest.mark.parametrize("state", ["computing", "aged"])
def test_the_kept_figures_pages_have_no_axe_violation_at_either_width(site: Site, state: str, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """With KEPT_RESULTS_FROM_VOTES low every demo project is big: its dashboard is the "computing" page while no
    figures are kept, and once some are, the figures with their age while newer ones wait."""
    project = db.session.scalar(select(Project).where(Project.slug == "kpa-demo"))
    monkeypatch.setitem(site.app.config, "KEPT_RESULTS_FROM_VOTES", 1)
    monkeypatch.setitem(site.app.config, "KEPT_RESULTS_REFRESH", "thread")
    monkeypatch.setattr(kept_module, "start_refresh", lambda project_id, group: None)  # the test computes, below
    db.session.execute(delete(KeptResult).where(KeptResult.project_id == project.id))
    db.session.commit()
    if state == "aged":
        refresh(project.id, VOTES)
        voter = spare(site, "late-voter")
        lease = engine.next_for(voter, project)
        assert lease is not None
        task = project_task(project)
        engine.submit(lease.id, voter, task.example_answer(task.public_item(lease.item, task.settings_of(project)),
                                                            random.Random(0)))
    found = scan(site.pages[ADMIN], "/admin/projects/kpa-demo/dashboard", 202 if state == "computing" else 200)
    html = site.pages[ADMIN].content()
    assert ("Computing the figures" in html) if state == "computing" else ("vote since" in html), state
    assert not found, f"{len(found)} axe finding(s):\n" + "\n".join(found)


# --- text sizes follow the reader's setting ----------------------------------------------------------

def font_size(page, selector: str) -> float:  # type: ignore[no-untyped-def]
    return float(page.eval_on_selector(selector, "e => getComputedStyle(e).fontSize").removesuffix("px"))


@pytest.mark.parametrize(("role", "path", "text"), [(ANNOTATOR, "/p/kpa-demo/", ".shown-field[data-field=argument]"),
                                                    (ADMIN, "/admin/", "td")])
def test_a_larger_default_font_size_in_the_browser_enlarges_the_text(site: Site, role: str, path: str,
                                                                     text: str) -> None:
    """A reader who sets the browser's default font size to 20 px (Chromium's setting, through DevTools) gets
    every text 1.25 times as large: the page's sizes are relative to theirs, not fixed in px."""
    context = site.pages[role].context
    sizes = {}
    for default in (16, 20):
        page = context.new_page()
        try:
            context.new_cdp_session(page).send("Page.setFontSizes", {"fontSizes": {"standard": default,
                                                                                  "fixed": 13}})
            page.goto(path)
            sizes[default] = [font_size(page, selector) for selector in ("body", "h1", text)]
        finally:
            page.close()
    assert sizes[16][0] == 16
    assert sizes[20] == [size * 1.25 for size in sizes[16]]


# --- the keyboard reaches the HIT first --------------------------------------------------------------

INSIDE_THE_HIT = """(() => { const e = document.activeElement, form = document.getElementById("hit-form");
    return form.contains(e) && e !== form && e.id !== "submit"; })()"""


def test_on_every_hit_page_the_keyboard_is_in_the_hit_at_once_or_after_the_skip_link(site: Site) -> None:
    """From a HIT page's load the keyboard is in the HIT (on a word, a box, an answer) at once, where the page
    focuses it (emphasis), or after Tab ("Skip to the HIT") and Enter: past the header and the guidelines, on the
    HIT's first control."""
    page = site.pages[ANNOTATOR]
    missed = []
    for slug in site.slugs:
        if slug == UNSTARTED:
            continue
        page.goto(f"/p/{slug}/")
        if page.evaluate(INSIDE_THE_HIT):
            continue
        page.keyboard.press("Tab")
        skip = page.evaluate("document.activeElement.textContent.trim()")
        page.keyboard.press("Enter")
        if skip != "Skip to the HIT" or not page.evaluate(INSIDE_THE_HIT):
            then = page.evaluate("document.activeElement.outerHTML")[:80]
            missed.append(f"{slug}: the first Tab on {skip!r}, Enter on {then}")
    assert not missed, "\n".join(missed)
