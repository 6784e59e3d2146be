"""RuArg-2022 TSV files <-> stance-and-premise projects.

Import: one item per sentence, item id = text_id, in file order. Labels in the file (train.tsv) become
the items' reference answers: never shown to annotators, never votes. The project records the file's
layout and line ending, so the export writes what the source looked like.

Export (`--labels gold`, the default), all in text_id order with the source's line ending:
  <split>.tsv             the task's 8-column layout (one stance and one premise column per claim) for
                          every sentence whose labels are all decided by the m-of-n rule or by an admin;
  undecided.tsv           the votes of the sentences still undecided, one row per vote;
  label_statistics.tsv    per claim, how many decided sentences carry each stance and premise code.
With `--labels reference` the imported labels are written back in the source layout instead (train.tsv
and test-no_labels.tsv come back byte for byte), with the statistics of those labels.

A project of one of RuArg's two stages (setting `stage`, see stages.py) exports the two stages joined,
whichever of the two is named: the sentences decided in both (or irrelevant to every claim at the
stance stage), and in undecided.tsv the votes of either stage's undecided sentences with a `stage` column.

A project is a declared project of the task's definition for the stage asked (the built-in stance_premise type of
before the switch to one engine is gone: docs/one-engine.md): stance_premise.yaml, or stance.yaml with `--stage
stance`; m from `--agree` and `--relevant-votes`, the claims from `--claims` (claims.py), the wording from
`--language` (import_options.py). Its rows are the definition's; the export, the scoring gold and the premise stage
read them in the data set's terms (declared_projects.py), so the files are the bytes the built-in type wrote for
the same votes.
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from annotator.core.csv_cells import write_frame
from annotator.core.errors import FormatError
from annotator.core.models import Item, Project
from annotator.core.options import Option
from annotator.declared import TYPE_NAME as DECLARED_TYPE
from annotator.lookups.format_base import Exported, FileFormat, Loaded
from annotator.shared_tasks.ruarg2022 import declared_projects, stages
from annotator.shared_tasks.ruarg2022 import files as fmt
from annotator.shared_tasks.ruarg2022.import_options import DEFAULT_CLAIMS, OPTIONS, PREMISE_FROM_A_FILE
from annotator.shared_tasks.ruarg2022.rules import ADJUDICATED, DECIDED, FIELDS, IRRELEVANT, sentence_status
from annotator.tasks import NewItem

if TYPE_CHECKING:
    import pandas as pd

NEWLINES = {"crlf": "\r\n", "lf": "\n"}
STATISTICS = [("stance", 2, "for"), ("stance", 0, "against"), ("stance", 1, "other"),
              ("premise", 2, "for"), ("premise", 0, "against"), ("premise", 1, "no argument")]


NO_BUILT_IN = ("declared off: the built-in stance_premise HIT type is gone, every RuArg-2022 project is a declared "
               "project of the stage's definition (stance_premise.yaml, stance.yaml, premise.yaml: the same gold, "
               "files, premise stage and API answers; docs/one-engine.md): import without --no-declared (on the "
               "import page: with its box ticked)")


def load(path: Path, *, declared: bool = True, stage: str = "both", agree: int = 2, relevant_votes: int = 2,
         claims: Any = DEFAULT_CLAIMS, language: str = "en") -> Loaded:
    """Read and validate the file into items whose known answers are its labels in stance_premise.yaml's terms,
    and the definition of the stage asked (declared_projects.definition_for) with `agree` and `relevant_votes` the
    m of its rules, about `claims`, worded in `language`. `declared` off asked for a project of the built-in type,
    which is gone since the switch to one engine: refused, saying so (the option stays so that a command or form
    that still sends it is told why, not that it is unknown); so is the premise stage, made from a stance stage."""
    if not declared:
        raise FormatError(NO_BUILT_IN)
    if stage == "premise":
        raise FormatError(PREMISE_FROM_A_FILE)
    data = fmt.read_file(path)
    items = []
    for row in data.rows:
        reference = {claim: {"stance": s, "premise": p} for claim, (s, p) in row.labels.items()} if row.labels \
            else None
        items.append(NewItem(str(row.text_id), {"id": str(row.text_id), "text": row.text},
                             declared_projects.known_answer(reference) if reference else None))
    newline = "crlf" if data.newline == "\r\n" else "lf"
    return Loaded(items, {"format": FORMAT.name, "split": Path(path).stem, "layout": data.layout, "newline": newline},
                  definition=declared_projects.definition_for(stage, agree, relevant_votes, language, claims))


def _sorted(items: list[Item]) -> list[Item]:
    return sorted(items, key=lambda i: (len(i.external_id), i.external_id))  # text_ids are integers


def _text_id(item: Item) -> Any:
    return int(item.external_id) if item.external_id.isdigit() else item.external_id


def _claims(project: Project) -> tuple[str, ...]:
    return stages.claims_of(project)


def export(project: Project, out_dir: Path, labels: str = "gold", *, include_incomplete: bool = False) -> Exported:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    newline = NEWLINES[project.source.get("newline", "crlf")]
    staged = stages.stage_of(project) != "both"
    if labels == "reference":
        source = stages.linked(project)[0] if staged else project  # the stance stage holds the imported file
        written = _write_reference(source, out_dir, newline)
        return Exported([written, _write_statistics(_reference_labels(source), out_dir, newline, fmt.CLAIMS)],
                        verbatim=[written])
    if staged:
        return _export_stages(project, out_dir, newline, include_incomplete)
    gold = stages.project_gold(project, include_incomplete)
    decided = _decided_labels(gold)
    claims = _claims(project)
    items = {i.external_id: i for i in project.items}
    rows = [(_text_id(items[e]), items[e].payload["text"], decided[e]) for e in _sorted_ids(decided, items)]
    main = fmt.write_file(out_dir / f"{project.source.get('split', 'data')}.tsv", rows, "labelled", newline, claims)
    paths = [main, _write_undecided(stages.vote_rows(project, gold, claims, include_incomplete=include_incomplete),
                                    out_dir, newline, claims),
             _write_statistics(decided, out_dir, newline, claims)]
    left = len(items) - len(decided)
    return Exported(paths, [f"{left} of {len(items)} sentences are not decided yet and are not in {main.name}."]
                    if left else [], verbatim=[main])


def _sorted_ids(wanted: Any, items: dict[str, Item]) -> list[str]:
    return [i.external_id for i in _sorted([items[e] for e in wanted])]


def _decided_labels(gold: pd.DataFrame) -> dict[str, fmt.Labels]:
    """Per sentence whose every claim is decided (or adjudicated): claim -> (stance, premise)."""
    if gold.empty:
        return {}
    status = sentence_status(gold)
    done = set(status[status.isin([DECIDED, ADJUDICATED])].index)
    labels: dict[str, fmt.Labels] = {}
    for row in gold[gold["item"].isin(done)].itertuples():
        labels.setdefault(row.item, {})[row.unit] = (int(row.stance), int(row.premise))
    return labels


def _write_reference(project: Project, out_dir: Path, newline: str) -> Path:
    items = _sorted(list(project.items))
    with_reference = sum(1 for i in items if i.reference)
    if 0 < with_reference < len(items):
        raise FormatError(f"{len(items) - with_reference} of {len(items)} sentences have no reference labels; "
                          "the reference export needs all or none")
    layout = project.source.get("layout", "labelled" if with_reference else "empty")
    rows = []
    for item in items:
        labels = declared_projects.file_labels(item.reference)
        rows.append((_text_id(item), item.payload["text"],
                     {claim: (codes["stance"], codes["premise"]) for claim, codes in labels.items()} if labels
                     else None))
    return fmt.write_file(out_dir / f"{project.source.get('split', 'data')}.tsv", rows, layout, newline)


def _write_undecided(rows: list[dict[str, Any]], out_dir: Path, newline: str, claims: tuple[str, ...],
                     staged: bool = False) -> Path:
    """One row per vote of each sentence not decided yet: text_id, text, [stage,] annotator, the label columns."""
    import pandas as pd
    header = ["text_id", "text", *(["stage"] if staged else []), "annotator",
              *(f"{c}_{'stance' if f == 'stance' else 'argument'}" for c in claims for f in FIELDS)]
    order = ["text_id", *(["stage"] if staged else []), "annotator"]
    frame = pd.DataFrame(rows, columns=header).sort_values(order, kind="stable")
    path = out_dir / "undecided.tsv"
    return write_frame(frame, path, sep="\t", lineterminator=newline)


def _export_stages(project: Project, out_dir: Path, newline: str, include_incomplete: bool = False) -> Exported:
    """The two stages joined: see stages.joined; the stance stage's items are the sentences."""
    stance, premise = stages.linked(project)
    result = stages.joined(stance, premise, include_incomplete)
    claims = stages.claims_of(stance)
    items = {i.external_id: i for i in stance.items}
    rows = [(_text_id(items[e]), items[e].payload["text"], result.labels[e]) for e in _sorted_ids(result.labels, items)]
    main = fmt.write_file(out_dir / f"{stance.source.get('split', 'data')}.tsv", rows, "labelled", newline, claims)
    votes = stages.vote_rows(stance, result.stance_gold, claims, "stance", include_incomplete=include_incomplete)
    if premise is not None:
        votes += stages.vote_rows(premise, result.premise_gold, claims, "premise",
                                  include_incomplete=include_incomplete)
    paths = [main, _write_undecided(votes, out_dir, newline, claims, staged=True),
             _write_statistics(result.labels, out_dir, newline, claims)]
    notes = stages.joined_notes(stance, result, len(items))
    if premise is None:
        notes.append(f"no premise-stage project continues {stance.slug!r} yet: flask premise-stage --from "
                     f"{stance.slug} --project NAME makes one")
    return Exported(paths, notes, verbatim=[main])


def _reference_labels(project: Project) -> dict[str, fmt.Labels]:
    return {i.external_id: {claim: (codes["stance"], codes["premise"]) for claim, codes in labels.items()}
            for i in project.items if (labels := declared_projects.file_labels(i.reference))}


def _write_statistics(decided: dict[str, fmt.Labels], out_dir: Path, newline: str, claims: tuple[str, ...]) -> Path:
    """Per claim (and in all): labelled sentences, relevant ones, and the count of each stance and premise code."""
    import pandas as pd
    rows = []
    for claim in (*claims, "all claims"):
        pairs = [labels[c] for labels in decided.values() for c in (claims if claim == "all claims" else [claim])
                 if c in labels]
        relevant = [p for p in pairs if p[0] != IRRELEVANT]
        row: dict[str, Any] = {"claim": claim, "labelled": len(pairs), "relevant": len(relevant),
                               "irrelevant": len(pairs) - len(relevant)}
        for field, code, name in STATISTICS:
            row[f"{field} {name}"] = sum(1 for p in relevant if p[FIELDS.index(field)] == code)
        rows.append(row)
    path = out_dir / "label_statistics.tsv"
    return write_frame(pd.DataFrame(rows), path, sep="\t", lineterminator=newline)


def scoring_gold(project: Project, out_dir: Path) -> tuple[Path, dict[str, Any]]:
    """The decided sentences in the task's layout, which the ruarg2022 scorer reads as gold."""
    if set(_claims(project)) != set(fmt.CLAIMS):
        raise FormatError(f"the ruarg2022 scorer reads the claims {', '.join(fmt.CLAIMS)}; this project's claims are "
                          f"{', '.join(_claims(project))}")
    if stages.stage_of(project) != "both":
        stance, premise = stages.linked(project)
        decided, items = stages.joined(stance, premise).labels, {i.external_id: i for i in stance.items}
    else:
        decided, items = _decided_labels(stages.project_gold(project)), {i.external_id: i for i in project.items}
    if not decided:
        raise FormatError(f"project {project.slug!r} has no decided sentence yet, so there is no gold to score against")
    rows = [(_text_id(items[e]), items[e].payload["text"], decided[e]) for e in _sorted_ids(decided, items)]
    return fmt.write_file(Path(out_dir) / "gold.tsv", rows, "labelled", "\n"), {}


def _project_links(project: Project) -> list[tuple[str, str]]:
    """A stance stage's admin page links to the page that makes its premise stage."""
    from flask import url_for
    if stages.stage_of(project) != "stance":
        return []
    return [("Create / extend the premise stage", url_for("premise_stage.show", slug=project.slug))]


FORMAT = FileFormat(
    name="ruarg2022", title="RuArg-2022: stance and premises (Russian)", task=DECLARED_TYPE, reads="file",
    kinds=("TSV",),
    expects="one TSV file of the task: text_id, text and the six label columns (train.tsv; test-no_labels.tsv "
            "with them empty) or text_id and text only (val_empty.tsv)",
    items="sentences", load=load, export=export,
    writes="<split>.tsv (the sentences decided, with their labels, in the task's layout), undecided.tsv (each vote "
           "on the sentences not decided yet) and label_statistics.tsv (per claim, the count of each label)",
    import_options=(Option("declared", bool, True,
                           label="Serve the project from the task's definition (the stage's YAML file)",
                           help="on, and only on: a project is a declared project of stance_premise.yaml "
                                "(stance.yaml with stage stance; m from agree and relevant_votes, the claims given), "
                                "served by the engine of declared campaigns: the same gold, exports, premise stage and "
                                "API answers as the built-in type gave, the declared HIT in the language chosen; the "
                                "built-in type is gone (docs/one-engine.md)"),
                    *OPTIONS),
    export_options=(Option("labels", str, "gold", label="Labels to write",
                           help="gold: from the votes (and adjudications); reference: the labels of the imported file",
                           choices=("gold", "reference")),),
    scorer="ruarg2022", scoring_gold=scoring_gold, project_links=_project_links,
    settings_of_definition=declared_projects.settings_of_definition)
