"""What an export tells the organiser about the formula cells of the shared task's own files
(campaigns/formula_cells.py): the command's note, the listing and the project page's cookie."""
from __future__ import annotations

import io
import json
import zipfile
from urllib.parse import unquote

from annotator.campaigns.formula_cells import LISTING, SHOWN, formula_note, listed_in_zip, listing_text, page_message
from annotator.core.csv_cells import FormulaCell


def cells(count: int) -> list[FormulaCell]:
    return [FormulaCell("train.txt", 2 + n, 2 + n, "2", "--") for n in range(count)]


def test_the_note_names_the_first_cells_and_says_where_the_others_are():
    note = formula_note(cells(SHOWN + 5)).splitlines()
    assert note[0].startswith(f"{SHOWN + 5} cells of the shared task's own files start with")
    assert note[1] == '  train.txt, line 2, column 2: "--"' and len(note) == SHOWN + 2
    assert note[-1] == f"  ... and 5 more in {LISTING}"


def test_the_listing_read_from_a_zip_gives_one_line_per_cell():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr(LISTING, listing_text(cells(3) + [FormulaCell("dev.tsv", 9, 9, "text", "-a\u2028b")]))
        archive.writestr("train.txt", "")
    buffer.seek(0)   # as the export hands it over
    listed = listed_in_zip(buffer)
    assert listed[0] == 'train.txt, line 2, column 2: "--"'
    assert listed[3] == 'dev.tsv, line 9, column text: "-a\u2028b"' and len(listed) == 4
    assert buffer.tell() == 0   # the zip is still to be sent from its start


def test_a_zip_without_a_listing_lists_nothing():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("arguments_dev.csv", "arg_id\n")
    assert listed_in_zip(buffer) == [] and page_message([]) is None


def test_the_pages_message_keeps_the_count_and_as_many_places_as_a_cookie_holds():
    listed = [f'arguments_train.csv, line {n}, column argument: "=x"' for n in range(2, 502)]
    value = page_message(listed)
    assert value is not None and len(value) <= 3000
    message = json.loads(unquote(value))
    assert message["count"] == 500 and message["listing"] == LISTING
    assert 10 < len(message["cells"]) < 500
    assert message["cells"] == [f"arguments_train.csv, line {n}, column argument"
                                for n in range(2, 2 + len(message["cells"]))]
