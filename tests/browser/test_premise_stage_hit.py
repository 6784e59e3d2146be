"""A HIT of RuArg's premise stage in headless Chromium: only the premise of the claims the stance stage found
the sentence relevant to, no relevance step, answered by keyboard."""
from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import select

from annotator.campaigns.imports import import_transaction
from annotator.core.extensions import db
from annotator.core.models import SUBMITTED, Assignment, Item, Project
from annotator.engine import assignment as engine
from annotator.shared_tasks.ruarg2022.stages import create_premise_stage
from tests.browser.conftest import start_hit
from tests.conftest import DATA, load_project

pytestmark = pytest.mark.browser


@pytest.fixture
def premise_stage(make_user):  # type: ignore[no-untyped-def]
    """The premise stage of 17037 and 17042, which the stance stage (two votes each, the file's labels) found
    relevant to masks and quarantine and not to vaccines; k = 1, annotator ann."""
    stance = load_project("ruarg2022", DATA / "ruarg2022" / "train_excerpt.tsv", "st", k=2, stage="stance",
                          declared=False)
    voters = [make_user("s1"), make_user("s2")]
    for external_id in ("17037", "17042"):
        item = db.session.scalar(select(Item).where(Item.project_id == stance.id, Item.external_id == external_id))
        answer = {"claims": {c: {"stance": codes["stance"]} for c, codes in item.reference.items()}}
        for user in voters:
            lease = Assignment(project_id=stance.id, item_id=item.id, user_id=user.id,
                               expires_at=engine.utcnow() + engine.timedelta(minutes=5))
            db.session.add(lease)
            db.session.commit()
            engine.submit(lease.id, user, answer)
    with import_transaction():
        create_premise_stage("st", "pr", k=1)
    make_user("ann")


def premise_answers() -> list[dict]:  # type: ignore[type-arg]
    project = db.session.scalar(select(Project).where(Project.slug == "pr"))
    return [a.answer for a in db.session.scalars(select(Assignment).where(
        Assignment.project_id == project.id, Assignment.status == SUBMITTED).order_by(Assignment.id))]


def test_the_hit_asks_only_the_premise_of_the_claims_found_relevant(page: Page, login, premise_stage) -> None:  # type: ignore[no-untyped-def]
    login(page, "ann")
    start_hit(page, "pr")
    expect(page.locator("fieldset.claim")).to_have_count(2)
    expect(page.locator("#claim-vaccines")).to_have_count(0)
    expect(page.locator('[data-step="relevant"]')).to_have_count(0)
    expect(page.locator('[data-step="stance"]')).to_have_count(0)
    for key in ("masks", "quarantine"):
        expect(page.locator(f'#claim-{key} [data-step="premise"]')).to_be_visible()
    page.locator("details.keys summary").click()
    expect(page.locator("details.keys")).to_contain_text("the premise (1 for, 2 against, 3 no argument)")
    expect(page.locator("details.keys")).not_to_contain_text("relevant")


def test_the_keyboard_answers_one_premise_per_claim_and_enter_submits(page: Page, login, premise_stage,
                                                                      fresh) -> None:  # type: ignore[no-untyped-def]
    login(page, "ann")
    start_hit(page, "pr")
    expect(page.locator('#claim-masks [data-step="premise"]')).to_have_class("choices active")
    page.keyboard.press("2")  # masks: against
    expect(page.locator('#claim-quarantine [data-step="premise"]')).to_have_class("choices active")
    page.keyboard.press("3")  # quarantine: no argument
    page.keyboard.press("Enter")
    expect(page.locator("#progress-text")).to_have_text("1 / 2 done")
    fresh()
    assert premise_answers() == [{"claims": {"masks": {"premise": 0}, "quarantine": {"premise": 1}}}]


def test_backspace_goes_back_to_the_previous_claims_premise(page: Page, login, premise_stage,
                                                            fresh) -> None:  # type: ignore[no-untyped-def]
    login(page, "ann")
    start_hit(page, "pr")
    page.keyboard.press("1")          # masks: for
    page.keyboard.press("Backspace")  # back to masks
    page.keyboard.press("2")          # masks: against after all
    page.keyboard.press("1")          # quarantine: for
    page.keyboard.press("Enter")
    expect(page.locator("#progress-text")).to_have_text("1 / 2 done")
    fresh()
    assert premise_answers() == [{"claims": {"masks": {"premise": 0}, "quarantine": {"premise": 2}}}]
