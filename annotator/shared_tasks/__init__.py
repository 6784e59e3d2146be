"""One folder per shared task, each with its files' reader and writer (`files.py`), its project
exchange (`exchange.py`: files <-> projects, declares `FORMAT`) and its official metric (`scorer.py`,
declares `SCORER`); beside them the registries that find those declarations (`formats.py`,
`scorers.py`) and the bases they are built on."""
