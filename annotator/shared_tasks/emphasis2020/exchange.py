"""SemEval-2020 Task 10 token files <-> emphasis projects.

Import: one item per sentence (the block of lines between blank lines), keeping the word ids, the words
and, in the annotated layout, the POS tags. A project is a declared project of selection.yaml (the built-in
type of before the switch to one engine is gone: docs/one-engine.md); its label rows are the definition's
(each word's tag under `emphasis.bio`), which the export, the scoring gold and the tables read. With
`with_votes` the annotated layout's nine B/I/O columns become nine imported annotators' votes
(see votes_import.py), so gold, agreement and the export run on exactly what the task released.

Export, all derived from the Label rows, for the organisers' release:
  <split>.txt             the annotated 7-field layout: every voted sentence, its votes in vote order
                          (for imported votes: the file's column order), frequencies B|I|O and
                          repr((B+I)/n) with n the sentence's votes. Importing train.txt or dev.txt with
                          votes and exporting gives the same bytes. Sentences imported from the
                          words-only layout get the POS tag "_": the field is required, the tag unknown.
  <split>_words_only.txt  the 3-field test layout of every sentence (what participants get).
  <split>_submission.txt  the layout the official scorer reads, from any scores (default: the gold
                          probabilities, a reference submission that scores 1.0 against <split>.txt).
"""
from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from sqlalchemy import func, select

from annotator.analysis.results import labels_frame, project_progress
from annotator.core.columns import cells
from annotator.core.errors import FormatError
from annotator.core.extensions import db
from annotator.core.models import Item, Project
from annotator.core.options import Option
from annotator.declared import TYPE_NAME as DECLARED_TYPE
from annotator.declared.items import load_definition
from annotator.lookups.format_base import Exported, FileFormat, Loaded
from annotator.shared_tasks.emphasis2020 import files as fmt
from annotator.shared_tasks.emphasis2020.bridge import DEFINITION, TAG_FIELD
from annotator.shared_tasks.emphasis2020.scorer import read_sentences
from annotator.tasks import NewItem

NO_POS = "_"  # the words-only layout carries no POS tag; the annotated layout needs one


def items_from_sentences(sentences: list[fmt.Sentence]) -> list[NewItem]:
    def word(t: fmt.Token) -> dict[str, Any]:
        return {"id": t.word_id, "text": t.word, **({"pos": t.pos} if t.pos is not None else {})}
    return [NewItem(s.sentence_id, {"id": s.sentence_id, "words": [word(t) for t in s.tokens]})
            for s in sentences]


def answers_from_sentences(sentences: list[fmt.Sentence]) -> dict[str, list[dict[str, Any] | None]]:
    """Per sentence, one {"tags": [...]} per annotator column, in column order."""
    return {s.sentence_id: [{"tags": [_tags(t)[j] for t in s.tokens]}
                            for j in range(len(s.tokens[0].tags or ()))]
            for s in sentences}


def _tags(token: fmt.Token) -> tuple[str, ...]:
    assert token.tags is not None  # one layout per file: when a sentence's first token has tags, every token has
    return token.tags


NO_BUILT_IN = ("declared off: the built-in emphasis HIT type is gone, every emphasis project is a declared "
               "project of selection.yaml (the same files, gold, agreement and API answers; docs/one-engine.md): "
               "import without --no-declared (on the import page: with its box ticked)")


def load(path: Path, *, with_votes: bool = False, declared: bool = True) -> Loaded:
    """Read and validate the file; with_votes also takes the annotated layout's columns as votes. `declared` off
    asked for a project of the built-in type, which is gone since the switch to one engine: refused, saying so
    (the option stays so that a command or form that still sends it is told why, not that it is unknown)."""
    if not declared:
        raise FormatError(NO_BUILT_IN)
    path = Path(path)
    sentences = fmt.read_file(path)
    annotated = sentences[0].tokens[0].tags is not None
    if with_votes and not annotated:
        raise FormatError("--with-votes needs the annotated layout (7 fields); this file has words only",
                          file=path.name)
    # The votes stay in the built-in shape: a declared project of selection.yaml takes it (the bridge's converter,
    # declared/earlier_answers.py) and stores the definition's answer and rows.
    return Loaded(items_from_sentences(sentences), {"format": FORMAT.name, "split": path.stem},
                  answers_from_sentences(sentences) if with_votes else None,
                  definition=load_definition(DEFINITION).to_data())


def sentence_of(item: Item, tags: list[tuple[str, ...]] | None = None) -> fmt.Sentence:
    """The item as the format module's Sentence, with the given per-word tags (votes) if any."""
    words = item.payload["words"]
    tokens = tuple(fmt.Token(w["id"], w["text"], w.get("pos") or NO_POS, tags[n] if tags else None)
                   for n, w in enumerate(words))
    return fmt.Sentence(item.external_id, tokens)


def voted_sentences(project: Project,
                    include_incomplete: bool = False) -> tuple[list[fmt.Sentence], list[fmt.Sentence]]:
    """(every sentence, the voted ones with their votes) in item order; votes in vote (assignment) order. The
    voted ones: of complete sentences, and of pending ones too with `include_incomplete`."""
    labels = labels_frame(project, include_incomplete)
    labels = labels[labels["field"] == TAG_FIELD]
    votes: dict[str, dict[int, dict[str, str]]] = defaultdict(lambda: defaultdict(dict))
    # Columns as lists first: iterating a Series of Arrow strings makes a Python object per value through pandas,
    # a second of the train file's export for its 291,600 labels.
    for item, assignment, unit, value in zip(cells(labels["item"]), labels["assignment_id"].tolist(),
                                             cells(labels["unit"]), cells(labels["value"])):
        votes[item][assignment][unit] = value
    everything, voted = [], []
    for item in project.items:
        everything.append(sentence_of(item))
        if item.external_id in votes:
            columns = [votes[item.external_id][a] for a in sorted(votes[item.external_id])]
            tags = [tuple(column[w["id"]] for column in columns) for w in item.payload["words"]]
            voted.append(sentence_of(item, tags))
    return everything, voted


def gold_scores(sentences: list[fmt.Sentence]) -> dict[str, float]:
    return {t.word_id: fmt.probability(t.tags) for s in sentences for t in s.tokens if t.tags}


def export(project: Project, out_dir: Path, scores: Path | None = None, *,
           include_incomplete: bool = False) -> Exported:
    """Write the annotated file (empty when nothing is voted), the words-only file and a submission file.

    `scores`, a file in the submission layout (word_id, word, score), makes the submission cover every
    sentence with those scores; without it the submission holds the gold probabilities of the voted
    sentences.
    """
    given = None if scores is None else {
        word_id: value for s in read_sentences(scores, gold=False) for word_id, value in zip(s.ids, s.values)}
    paths = write_files(project, out_dir, given, include_incomplete)
    return Exported(paths, export_notes(project, include_incomplete), verbatim=paths)  # every file in the task's layout


def write_files(project: Project, out_dir: Path, scores: Mapping[str, float | str] | None = None,
                include_incomplete: bool = False) -> list[Path]:
    """The files of `export`; `scores` maps word ids to the submission's scores."""
    split = project.source.get("split", "data")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    everything, voted = voted_sentences(project, include_incomplete)
    # The gold file is written even with no sentence voted: empty then, as the 7-field layout has no header.
    paths = [out_dir / f"{split}.txt"]
    if voted:
        fmt.write_annotated(paths[-1], voted)
    else:
        paths[-1].write_bytes(b"")
    paths.append(out_dir / f"{split}_words_only.txt")
    fmt.write_words_only(paths[-1], everything)
    if scores is not None or voted:
        paths.append(out_dir / f"{split}_submission.txt")
        fmt.write_submission(paths[-1], everything if scores is not None else voted,
                             scores if scores is not None else gold_scores(voted))
    return paths


def export_notes(project: Project, include_incomplete: bool = False) -> list[str]:
    """What an organiser should know about the exported gold: unvoted and incomplete sentences."""
    progress = project_progress(project)
    unvoted = db.session.execute(select(func.count()).where(Item.project_id == project.id,
                                                            Item.done_count == 0)).scalar_one()
    notes = []
    if unvoted:
        notes.append(f"{unvoted} of {progress.items} sentences have no vote yet and are not in the annotated file.")
    partial = progress.items - unvoted - progress.complete
    if partial and include_incomplete:
        notes.append(f"{partial} {'sentence has' if partial == 1 else 'sentences have'} fewer than "
                     f"k = {project.k} votes; their probabilities use the votes they have.")
    return notes


def scoring_gold(project: Project, out_dir: Path) -> tuple[Path, dict[str, str]]:
    """The annotated file the emphasis2020 scorer reads as gold (its 5th field), for leaderboards."""
    _, voted = voted_sentences(project)
    if not voted:
        raise FormatError(f"project {project.slug!r} has no vote on a complete sentence yet, so there is no gold "
                          "to score against")
    path = Path(out_dir) / f"{project.source.get('split', 'data')}.txt"
    fmt.write_annotated(path, voted)
    return path, {}


FORMAT = FileFormat(
    name="emphasis2020", title="SemEval-2020 Task 10: emphasis selection", task=DECLARED_TYPE, reads="file",
    kinds=("TSV",),
    expects="one token file: the annotated 7-field layout (train.txt, dev.txt) or the 3-field words-only layout "
            "(test_data.txt); a blank line ends each sentence",
    items="sentences", load=load, export=export,
    writes="<split>.txt (the gold in the task's 7-field layout; empty while no sentence is voted), "
           "<split>_words_only.txt (every sentence, words only) and, once a sentence is voted, "
           "<split>_submission.txt (the gold probabilities in the submission layout)",
    import_options=(Option("with_votes", bool, False, label="Import the nine annotators' B/I/O columns as votes",
                           help="also import the annotated layout's B/I/O columns as votes of imported annotators"),
                    Option("declared", bool, True,
                           label="Serve the project from the task's definition (selection.yaml)",
                           help="on, and only on: a project is a declared project of selection.yaml, served by the "
                                "engine of declared campaigns (the same files, gold, agreement and API answers as "
                                "the built-in emphasis type gave); the built-in type is gone (docs/one-engine.md)"),),
    export_options=(Option("scores", Path, None, label="Scores file",
                           help="a file in the submission layout (word_id, word, score) whose scores the submission "
                                "file takes, in the project's order; default: the gold probabilities"),),
    scorer="emphasis2020", scoring_gold=scoring_gold)
