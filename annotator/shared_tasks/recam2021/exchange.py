"""ReCAM question files (SemEval-2021 Task 4) <-> cloze-validation projects.

Import (`flask import recam2021 FILE --project SLUG [--k 3]`): one item per line, item id = the line's
`id` (test) or its 0-based line number (dev, trial), in file order; a line's label becomes the item's
reference answer (never shown, never a vote). Every line is kept as read, ending included (ProjectData
"source_lines:<split>:<first id>"), so the export gives the source's bytes back. A project is a declared project
of cloze_selection.yaml (the built-in cloze type of before the switch to one engine is gone: docs/one-engine.md),
the selection settings given with the import (rules.SELECTION_OPTIONS, import options) its rule's parameters and
the label its reference `{"option": "n"}`; everything below reads its rows through declared_rows.py, the same bytes
as the built-in type wrote for the same votes.

Export (`flask export recam2021 --project SLUG --out DIR [--questions kept|all]`):
  <split>.jsonl     the kept questions' original lines, byte for byte, in file order (`all`: every line,
                    which reproduces the imported file);
  dropped.csv       each question the selection rules dropped, with the reason;
  questions.csv     every question: votes, valid ones, the known answer's share, the majority answer, its
                    accuracy (share of all votes that chose the known answer), kept or not and why;
  annotators.csv    per annotator: answers, answers with a known answer, correct ones, accuracy, rule a;
  evidence.csv      every annotation with its passage and question spans (offsets and text), valid or why not;
  agreement.json    Fleiss' kappa and Krippendorff's alpha on the option, ordinal alpha on the difficulty.
A project's kept questions are also the gold of a `recam2021` leaderboard (`scoring_gold`): their lines,
with the majority answer as the label of questions that had none.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import select

from annotator.campaigns.projects import project_data
from annotator.core.csv_cells import write_frame
from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import Project, User
from annotator.core.options import Option
from annotator.declared import TYPE_NAME as DECLARED_TYPE
from annotator.lookups.format_base import Exported, FileFormat, Loaded
from annotator.shared_tasks.recam2021 import declared_rows
from annotator.shared_tasks.recam2021 import files as fmt
from annotator.shared_tasks.recam2021.bridge import definition_for, map_reference
from annotator.shared_tasks.recam2021.rules import SELECTION_OPTIONS, Evaluation
from annotator.tasks import NewItem

if TYPE_CHECKING:
    import pandas as pd

LINES = "source_lines:"


NO_BUILT_IN = ("declared off: the built-in cloze HIT type is gone, every ReCAM project is a declared project of "
               "cloze_selection.yaml (the same selection, exports and API answers; docs/one-engine.md): import "
               "without --no-declared (on the import page: with its box ticked)")


def load(path: Path, *, declared: bool = True, **selection: Any) -> Loaded:
    """Read and validate the file into items whose known answer is the definition's `{"option": "n"}`, and
    cloze_selection.yaml with the selection options given (those other than their defaults) as its rule's
    parameters, so the project keeps and drops as ReCAM's rules of those settings say. `declared` off asked for a
    project of the built-in type, which is gone since the switch to one engine: refused, saying so (the option
    stays so that a command or form that still sends it is told why, not that it is unknown)."""
    if not declared:
        raise FormatError(NO_BUILT_IN)
    data = fmt.read_file(path)
    items = [NewItem(q.id, {"id": q.id, "article": q.article, "question": q.question, "options": list(q.options)},
                     map_reference({"label": q.label} if q.label is not None else None)) for q in data.questions]
    split = Path(path).stem
    lines = {"split": split, "lines": [[q.id, q.raw] for q in data.questions]}
    return Loaded(items, {"format": FORMAT.name, "split": split, "labelled": data.labelled,
                          "newline": {"\r\n": "crlf", "\n": "lf", "\r": "cr"}.get(data.newline, "none")},
                  data={f"{LINES}{split}:{data.questions[0].id}": lines},
                  definition=selection_definition(selection))


def selection_definition(settings: Mapping[str, Any]) -> dict[str, Any]:
    """cloze_selection.yaml with the selection settings that differ from their defaults as its `recam_selection`
    rule's parameters (none changed: the file as it is)."""
    changed = {o.name: settings[o.name] for o in SELECTION_OPTIONS
               if settings.get(o.name) is not None and o.text(settings[o.name]) != o.text(o.default)}
    return definition_for(changed).to_data()


def _sources(project: Project) -> list[dict[str, Any]]:
    sources = list(project_data(project, LINES).values())
    if not sources:
        raise FormatError(f"project {project.slug!r} was not imported from ReCAM files, so there are no lines to write")
    return sources


def _evaluation(project: Project, include_incomplete: bool = False) -> Evaluation:
    return declared_rows.evaluation(project, include_incomplete)


def export(project: Project, out_dir: Path, questions: str = "kept", *, include_incomplete: bool = False) -> Exported:
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    evaluation = _evaluation(project, include_incomplete)
    decided = evaluation.questions.set_index("item") if not evaluation.questions.empty else None
    kept = set(decided.index[decided["kept"].astype(bool)]) if decided is not None else set()
    paths, written = [], 0
    by_split: dict[str, list[list[str]]] = {}
    for source in _sources(project):
        by_split.setdefault(source["split"], []).extend(source["lines"])
    for split, lines in by_split.items():
        chosen = [raw for qid, raw in lines if questions == "all" or qid in kept]
        path = out_dir / f"{split}.jsonl"
        path.write_bytes("".join(chosen).encode("utf-8"))
        paths.append(path)
        written += len(chosen)
    names = _usernames(evaluation)
    lines_written = list(paths)
    paths += [_write_questions(evaluation, by_split, out_dir), _write_dropped(evaluation, out_dir),
              _write_annotators(evaluation, names, out_dir), _write_evidence(project, evaluation, names, out_dir)]
    agreement = out_dir / "agreement.json"
    figures = declared_rows.agreement(project, include_incomplete)
    agreement.write_text(json.dumps([f.to_dict() for f in figures], indent=2, ensure_ascii=False) + "\n",
                         encoding="utf-8")
    paths.append(agreement)
    total = sum(len(lines) for lines in by_split.values())
    voted = 0 if decided is None else len(decided)
    notes = [f"{written} of {total} questions written ({'every line' if questions == 'all' else 'the kept ones'})."]
    if voted < total:
        notes.append(f"{total - voted} questions have no vote yet; they are neither kept nor dropped.")
    return Exported(paths, notes, verbatim=lines_written)


def _usernames(evaluation: Evaluation) -> dict[int, str]:
    ids = [int(u) for u in evaluation.annotators["user_id"]]
    return dict(db.session.execute(select(User.id, User.username).where(User.id.in_(ids))).all()) if ids else {}


def _write_questions(evaluation: Evaluation, by_split: dict[str, list[list[str]]], out_dir: Path) -> Path:
    """Every question in file order; the unvoted ones say so."""
    import pandas as pd
    decided = evaluation.questions.set_index("item") if not evaluation.questions.empty else pd.DataFrame()
    votes = evaluation.annotations
    rows = []
    for split, lines in by_split.items():
        for qid, _ in lines:
            if qid not in decided.index:
                rows.append({"split": split, "id": qid, "votes": 0, "kept": "", "reason": "no vote yet"})
                continue
            q = decided.loc[qid]
            mine = votes[votes["item"] == qid]
            known = None if pd.isna(q["known"]) else int(q["known"])
            rows.append({"split": split, "id": qid, "known": known, "votes": int(q["votes"]), "valid": int(q["valid"]),
                         "valid_correct": q["valid_correct"], "share_correct": q["share"],
                         "accuracy": None if known is None else float((mine["option"].astype(int) == known).mean()),
                         "majority": q["majority"], "majority_votes": int(q["majority_votes"]),
                         "majority_share": q["majority_share"], "kept": bool(q["kept"]), "reason": q["reason"]})
    columns = ["split", "id", "known", "votes", "valid", "valid_correct", "share_correct", "accuracy", "majority",
               "majority_votes", "majority_share", "kept", "reason"]
    path = out_dir / "questions.csv"
    return write_frame(_whole(pd.DataFrame(rows, columns=columns), "known", "votes", "valid", "valid_correct",
                              "majority", "majority_votes"), path)


def _whole(frame: pd.DataFrame, *columns: str) -> pd.DataFrame:
    """Counts and option indices as integers, blank where there is none (not 2.0 and NaN)."""
    return frame.astype({c: "Int64" for c in columns})


def _write_dropped(evaluation: Evaluation, out_dir: Path) -> Path:
    questions = evaluation.questions
    dropped = questions[~questions["kept"].astype(bool)] if not questions.empty else questions
    path = out_dir / "dropped.csv"
    columns = ["id", "known", "votes", "valid", "majority", "reason"]
    return write_frame(_whole(dropped.rename(columns={"item": "id"})[columns], "known", "votes", "valid", "majority"),
                       path)


def _write_annotators(evaluation: Evaluation, names: dict[int, str], out_dir: Path) -> Path:
    frame = evaluation.annotators.copy()
    frame.insert(0, "annotator", [names.get(int(u), str(u)) for u in frame["user_id"]])
    path = out_dir / "annotators.csv"
    return write_frame(frame.drop(columns=["user_id"]).rename(columns={"passes": "passes_rule_a"}), path)


def _span_columns(spans: pd.Series, texts: pd.Series, name: str) -> dict[str, list[Any]]:
    import pandas as pd
    starts: list[int | None] = []
    ends: list[int | None] = []
    words: list[str] = []
    for value, text in zip(spans, texts):
        if not value:
            starts.append(None)
            ends.append(None)
            words.append("")
            continue
        start, end = (int(v) for v in value.split(":"))
        starts.append(start)
        ends.append(end)
        words.append(text[start:end])
    return {f"{name}_start": pd.array(starts, dtype="Int64"), f"{name}_end": pd.array(ends, dtype="Int64"),
            f"{name}_text": words}


def _write_evidence(project: Project, evaluation: Evaluation, names: dict[int, str], out_dir: Path) -> Path:
    """Each annotation's answer and evidence spans, in vote order."""
    import pandas as pd
    votes = evaluation.annotations
    payloads = {i.external_id: i.payload for i in project.items}
    frame = pd.DataFrame({"id": votes["item"], "annotator": [names.get(int(u), str(u)) for u in votes["user_id"]],
                          "option": votes["option"], "difficulty": votes["difficulty"],
                          **_span_columns(votes["passage_span"], votes["item"].map(lambda i: payloads[i]["article"]),
                                          "passage"),
                          **_span_columns(votes["question_span"], votes["item"].map(lambda i: payloads[i]["question"]),
                                          "question"),
                          "valid": votes["valid"], "reasons": votes["reasons"]})
    path = out_dir / "evidence.csv"
    return write_frame(frame, path)


def scoring_gold(project: Project, out_dir: Path) -> tuple[Path, dict[str, Any]]:
    """The kept questions as a labelled ReCAM file: their own lines, or with the majority answer as label."""
    import pandas as pd
    questions = _evaluation(project).questions
    kept = questions[questions["kept"].astype(bool)].set_index("item") if not questions.empty else questions
    lines = []
    for source in _sources(project):
        for qid, raw in source["lines"]:
            if qid not in kept.index:
                continue
            body = raw.rstrip("\r\n")
            if pd.isna(kept.at[qid, "known"]):
                body = json.dumps({**json.loads(body), "label": int(kept.at[qid, "majority"])}, ensure_ascii=False)
            lines.append(body + "\n")
    if not lines:
        raise FormatError(f"project {project.slug!r} has no kept question yet, so there is no gold to score against")
    path = Path(out_dir) / "gold.jsonl"
    path.write_bytes("".join(lines).encode("utf-8"))
    return path, {}


FORMAT = FileFormat(
    name="recam2021", title="SemEval-2021 Task 4: ReCAM cloze questions", task=DECLARED_TYPE, reads="file",
    kinds=("JSON Lines",),
    expects="one JSON Lines file of the task: article, question with @placeholder, option_0..option_4 and a label "
            "(Task_*_dev.jsonl, trial files) or an id (Task_*_test.jsonl)",
    items="questions", load=load, export=export,
    writes="<split>.jsonl (the questions the selection rules keep, as imported; one file per file imported), "
           "questions.csv (every question's votes and verdict), dropped.csv, annotators.csv, evidence.csv (each "
           "answer's evidence) and agreement.json",
    export_options=(Option("questions", str, "kept", label="Questions to write",
                           help="kept: those the selection rules keep; all: every line as imported",
                           choices=("kept", "all")),),
    import_options=(Option("declared", bool, True,
                           label="Serve the project from the task's definition (cloze_selection.yaml)",
                           help="on, and only on: a project is a declared project of cloze_selection.yaml, the "
                                "selection settings its rule's parameters, served by the engine of declared campaigns "
                                "(the same selection, exports and API answers as the built-in cloze type gave); the "
                                "built-in type is gone (docs/one-engine.md)"),
                    *SELECTION_OPTIONS),
    scorer="recam2021", scoring_gold=scoring_gold)
