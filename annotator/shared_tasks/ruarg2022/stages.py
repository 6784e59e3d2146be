"""RuArg-2022's two annotation stages as two linked projects, and the gold that joins them.

The organisers labelled stance first, then premises on the same sentences, by other annotators and
with their own agreement rule (Kotelnikov et al., Dialogue 2022, §3.1-3.2). Here the first stage is a
declared project of stance.yaml (relevance and stance per claim, its own k and m: `flask import ruarg2022
--stage stance`); the second a declared project of premise.yaml whose source names the first
(`stance_project`). Its items are the first stage's decided sentences that are relevant to at least one
claim, each asking the premise of exactly those claims (`create_premise_stage`, run again to add sentences
decided since: a domain action, as an import is, which the command and the admin page call).

Why two projects rather than a stage switch on one: a project has one k and one agreement rule, and
the second stage's items exist only once the first stage has decided them, so they are made from its
gold; the engine, the agreement statistics and the adjudication pages then work on each stage
unchanged, and the link is in the premise stage's source, not a schema change. The gold and votes read here are
the declared rows in the data set's terms (declared_projects.py, rules.py).

The export of either project joins them: relevance and stance from the stance stage, premise from
the premise stage, -1 for both labels of an irrelevant claim. A sentence irrelevant to every claim
needs no second stage.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from annotator.analysis.results import labels_frame
from annotator.campaigns.import_refused import refused_as_import
from annotator.campaigns.projects import add_items, get_or_create_project, refresh_statistics
from annotator.core.audit import Actor, record
from annotator.core.domain_action import action
from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import Item, Project, User
from annotator.declared import TYPE_NAME as DECLARED_TYPE
from annotator.figures.kept_gold import gold_frame
from annotator.shared_tasks.ruarg2022 import declared_projects as declared
from annotator.shared_tasks.ruarg2022 import files as fmt
from annotator.shared_tasks.ruarg2022.rules import ADJUDICATED, DECIDED, IRRELEVANT, sentence_status, votes_frame
from annotator.tasks import NewItem

if TYPE_CHECKING:
    import pandas as pd


def stage_of(project: Project) -> str:
    """"both" (one HIT asks everything), "stance" or "premise"."""
    return declared.stage_of(project)


def claims_of(project: Project) -> tuple[str, ...]:
    return declared.project_claims(project)


def agree_of(project: Project) -> int:
    """How many annotators a label needs (m of n)."""
    return declared.agree_of(project)


def stance_project_of(premise: Project) -> str | None:
    """The slug of the stance stage a premise stage continues."""
    return (premise.source or {}).get(declared.STANCE_PROJECT)


def project_gold(project: Project, include_incomplete: bool = False) -> pd.DataFrame:
    """The project's gold in the data set's terms (rules.GOLD_COLUMNS), of complete sentences, and of pending ones
    too with `include_incomplete`."""
    return declared.builtin_gold(stage_of(project), gold_frame(project, include_incomplete=include_incomplete))


def project_votes(project: Project, include_incomplete: bool = False) -> pd.DataFrame:
    """The project's counted votes in the data set's terms (rules.votes_frame)."""
    return votes_frame(declared.builtin_labels(stage_of(project), labels_frame(project, include_incomplete)))


def _stage_or_none(project: Project | None) -> str | None:
    """The stage of a RuArg project; None for any other project."""
    if project is None or project.task_type != DECLARED_TYPE:
        return None
    try:
        return stage_of(project)
    except FormatError:   # a declared project of another campaign
        return None


def _is_stage(project: Project | None, stage: str) -> bool:
    return _stage_or_none(project) == stage


def decided_codes(gold: pd.DataFrame, field: str) -> dict[str, dict[str, int]]:
    """Per sentence whose every claim is decided (or adjudicated): claim -> the gold code of `field`."""
    if gold.empty:
        return {}
    status = sentence_status(gold)
    done = set(status[status.isin([DECIDED, ADJUDICATED])].index)
    codes: dict[str, dict[str, int]] = {}
    for row in gold[gold["item"].isin(done)].itertuples():
        codes.setdefault(row.item, {})[row.unit] = int(getattr(row, field))
    return codes


def premises_of(stance: Project) -> list[Project]:
    """The premise-stage projects that continue `stance`, by slug."""
    candidates = db.session.scalars(select(Project).where(Project.task_type == DECLARED_TYPE)
                                    .order_by(Project.slug)).all()
    return [p for p in candidates if stance_project_of(p) == stance.slug and _is_stage(p, "premise")]


def linked(project: Project) -> tuple[Project, Project | None]:
    """(stance stage, premise stage or None) of a stage project; FormatError when the link is broken."""
    if stage_of(project) == "premise":
        slug = stance_project_of(project)
        stance = db.session.scalar(select(Project).where(Project.slug == slug))
        if stance is None or not _is_stage(stance, "stance"):
            raise FormatError(f"project {project.slug!r} continues the stance stage {slug!r}, but there is no "
                              "stance-stage project by that name")
        return stance, project
    premises = premises_of(project)
    if len(premises) > 1:
        raise FormatError(f"{len(premises)} premise-stage projects continue {project.slug!r} "
                          f"({', '.join(p.slug for p in premises)}); export one of them")
    return project, (premises[0] if premises else None)


# --- making the premise stage -----------------------------------------------------------------------

@dataclass(frozen=True)
class PremiseStage:
    project: Project
    created: bool
    added: int      # sentences added now
    waiting: int    # decided and relevant at the stance stage, already in the premise stage before

    def summary(self, stance_slug: str) -> str:
        """What was done, in the words `flask premise-stage` prints and the admin page flashes."""
        made = (f"Created project {self.project.slug!r}, the premise stage of {stance_slug!r}. "
                if self.created else "")
        return (f"{made}Added {self.added} sentences to project {self.project.slug!r} (k={self.project.k}); "
                f"{self.waiting} were there already.")


def relevant_claims(stance: Project) -> dict[str, list[str]]:
    """The stance stage's decided sentences relevant to at least one claim -> those claims, in item order."""
    stances = decided_codes(project_gold(stance), "stance")
    keys = claims_of(stance)
    out = {}
    for item in stance.items:
        codes = stances.get(item.external_id)
        relevant = [k for k in keys if codes and codes.get(k, IRRELEVANT) != IRRELEVANT]
        if relevant:
            out[item.external_id] = relevant
    return out


def premise_items(stance: Project, present: set[str]) -> list[NewItem]:
    """The stance stage's decided sentences relevant to a claim and not in `present`, in its item order.

    Each asks about its relevant claims (payload "claims"); its reference keeps the imported premise
    labels of those claims, so control items and the reference check work on the premise stage.
    """
    claims = relevant_claims(stance)
    items = []
    for item in stance.items:
        relevant = claims.get(item.external_id)
        if not relevant or item.external_id in present:
            continue
        labels = declared.file_labels(item.reference) or {}
        premises = {k: labels[k]["premise"] for k in relevant if k in labels}
        items.append(NewItem(item.external_id, {**item.payload, "claims": relevant},
                             declared.premise_known_answer(premises) or None))
    return items


def stance_stage(slug: str) -> Project:
    """The stance-stage project `slug`; FormatError in words when there is none by that name."""
    stance = db.session.scalar(select(Project).where(Project.slug == slug))
    if stance is None:
        raise FormatError(f"there is no project {slug!r}")
    if stance.task_type != DECLARED_TYPE:
        raise FormatError(f"project {slug!r} holds {stance.task_type} HITs, not a RuArg-2022 stance stage; the "
                          "built-in stance_premise type is gone (a database upgraded by flask db upgrade holds none "
                          "of its projects): a stance stage is a project imported with flask import ruarg2022 "
                          "--stage stance")
    if not _is_stage(stance, "stance"):
        stage = _stage_or_none(stance)
        what = f"stage {stage!r}" if stage else "a declared project of another definition"
        raise FormatError(f"project {slug!r} is not a stance stage ({what}); a stance stage is a project imported "
                          "with --stage stance, whose HIT asks relevance and stance only")
    return stance


@dataclass(frozen=True)
class Preview:
    """What creating or extending the premise stage of `stance` would take, shown before it is done."""

    stance: Project
    premises: list[Project]   # the premise stages that continue it already (normally one, or none)
    relevant: int             # its decided sentences relevant to a claim
    present: int              # of them, in the first premise stage already

    @property
    def to_add(self) -> int:
        return self.relevant - self.present


def premise_preview(stance: Project) -> Preview:
    premises = premises_of(stance)
    relevant = relevant_claims(stance)
    present = set(db.session.scalars(select(Item.external_id).where(Item.project_id == premises[0].id))) \
        if premises else set()
    return Preview(stance, premises, len(relevant), len(present & set(relevant)))


@action("import", after_commit=refresh_statistics)
def create_premise_stage(stance_slug: str, slug: str, *, by: Actor, name: str | None = None, k: int | None = None,
                         lease_minutes: int | None = None, agree: int | None = None) -> PremiseStage:
    """Create (or extend) the premise-stage project `slug` from the stance stage `stance_slug`: a domain action
    (core/domain_action.py), which `flask premise-stage` and the stance project's admin page both call.

    All or nothing, as an import: ImportRefused (its cause the FormatError, its message ending "Nothing was
    imported.") with nothing kept; else committed with its `import` event, naming `by`.
    """
    with refused_as_import():
        stance = stance_stage(stance_slug)
        existing = db.session.scalar(select(Project).where(Project.slug == slug))
        if existing is not None and (existing.task_type != stance.task_type or not _is_stage(existing, "premise")
                                     or stance_project_of(existing) != stance_slug):
            raise FormatError(f"project {slug!r} exists and is not the premise stage of {stance_slug!r}")
        project, created = _declared_premise_stage(stance, slug, existing, name=name, k=k,
                                                   lease_minutes=lease_minutes, agree=agree)
        present = set(db.session.scalars(select(Item.external_id).where(Item.project_id == project.id)))
        items = premise_items(stance, present)
        add_items(project, items)
    record("import", project, {"format": "premise-stage", "from": stance_slug, "created": created,
                               "items": len(items), "votes": 0}, actor=by)
    return PremiseStage(project, created, len(items), len(present))


def _declared_premise_stage(stance: Project, slug: str, existing: Project | None, *, name: str | None,
                            k: int | None, lease_minutes: int | None, agree: int | None) -> tuple[Project, bool]:
    """The premise stage `slug` of a stance stage: a declared project of premise.yaml whose labels need
    `agree` annotators (default 2), about the stance stage's claims in its language, its source the stance stage's
    naming it (`stance_project`). An existing one keeps its definition: its m does not change (its votes were
    decided by it)."""
    if existing is not None and agree is not None and agree != agree_of(existing):
        raise FormatError(f"project {slug!r} decides a premise by {agree_of(existing)} annotators, fixed in its "
                          f"definition; leave --agree out to add sentences to it, or make a new premise stage")
    definition = existing.definition if existing is not None else \
        declared.definition_for("premise", agree if agree is not None else 2,
                                language=declared.language_of(stance.definition or {}),
                                claims=declared.claim_settings(stance.definition or {}))
    return get_or_create_project(slug, DECLARED_TYPE, name=name, k=k, lease_minutes=lease_minutes,
                                 source={**(stance.source or {}), declared.STANCE_PROJECT: stance.slug},
                                 definition=definition)


# --- the joined gold --------------------------------------------------------------------------------

@dataclass
class Joined:
    """The sentences both stages have decided, as the task's labels, and why the others are not there."""

    labels: dict[str, fmt.Labels] = field(default_factory=dict)
    waiting: list[str] = field(default_factory=list)     # relevant, decided at stage 1, not in stage 2 yet
    changed: list[str] = field(default_factory=list)     # stage 2 asks other claims than stage 1 now finds
    stance_gold: Any = None
    premise_gold: Any = None


def joined(stance: Project, premise: Project | None, include_incomplete: bool = False) -> Joined:
    """Relevance and stance from the stance stage, premise from the premise stage, per sentence (of complete
    sentences, and of pending ones too with `include_incomplete`)."""
    import pandas as pd
    out = Joined(stance_gold=project_gold(stance, include_incomplete))
    out.premise_gold = (project_gold(premise, include_incomplete) if premise is not None
                        else pd.DataFrame(columns=out.stance_gold.columns))
    stances = decided_codes(out.stance_gold, "stance")
    premises = decided_codes(out.premise_gold, "premise")
    asked = {i.external_id: i.payload.get("claims", []) for i in premise.items} if premise is not None else {}
    keys = claims_of(stance)
    for item, codes in stances.items():
        relevant = [k for k in keys if codes.get(k, IRRELEVANT) != IRRELEVANT]
        if relevant and item not in asked:
            out.waiting.append(item)
        elif relevant and set(asked[item]) != set(relevant):
            out.changed.append(item)
        elif not relevant or item in premises:
            out.labels[item] = {k: (codes.get(k, IRRELEVANT), premises[item][k] if k in relevant else IRRELEVANT)
                                for k in keys}
    return out


def joined_notes(project: Project, result: Joined, total: int) -> list[str]:
    """Why sentences are missing from the joined file, in words an organiser can act on."""
    notes = []
    left = total - len(result.labels)
    if left:
        notes.append(f"{left} of {total} sentences are not decided in both stages yet and are not in the gold file.")
    if result.waiting:
        notes.append(f"{len(result.waiting)} sentences are relevant to a claim at the stance stage and wait for the "
                     "premise stage (flask premise-stage adds them): " + ", ".join(result.waiting[:5]))
    if result.changed:
        notes.append(f"{len(result.changed)} sentences found relevant to other claims since they went to the premise "
                     "stage (an adjudication changed them); decide their premises there by adjudication: "
                     + ", ".join(result.changed[:5]))
    return notes


def vote_rows(project: Project, gold: pd.DataFrame, claims: tuple[str, ...], stage: str | None = None, *,
              include_incomplete: bool = False) -> list[dict]:
    """One row per vote of each sentence the project's rule leaves undecided: text_id, text, [stage,]
    annotator and the label columns the project asks (the others empty in a stage project)."""
    status = sentence_status(gold)
    undecided = set(status[~status.isin([DECIDED, ADJUDICATED])].index) if not status.empty else set()
    votes = project_votes(project, include_incomplete)
    votes = votes[votes["item"].isin(undecided)]
    items = {i.external_id: i for i in project.items}
    names = dict(db.session.execute(select(User.id, User.username)
                                    .where(User.id.in_([int(u) for u in set(votes["user_id"])]))).all())
    rows = []
    for (item, _, user), vote in votes.groupby(["item", "assignment_id", "user_id"], sort=False):
        codes = {r.unit: (r.stance, r.premise) for r in vote.itertuples()}
        row: dict[str, Any] = {"text_id": int(item) if item.isdigit() else item, "text": items[item].payload["text"]}
        if stage is not None:
            row["stage"] = stage
        row["annotator"] = names.get(int(user), str(user))
        for claim in claims:
            stance, premise = codes.get(claim, (IRRELEVANT if stage is None else None,) * 2)
            row[f"{claim}_stance"] = "" if stance is None else stance
            row[f"{claim}_argument"] = "" if premise is None else premise
        rows.append(row)
    return rows
