"""One folder per shared task. Each folder's `__init__.py` declares the task with one object,
`SHARED_TASK = SharedTask(...)` (annotator/plugins/shared_task.py): its formats (`exchange.py`: files <-> projects),
its official metric (`scorer.py`), its dataset table (`stats.py`), its named rules, commands, admin pages and
definitions. Beside the folders: the dataset tables' lookup (`dataset_stats.py`) and base (`stats_base.py`); the
file formats' and scorers' lookups and bases are a layer below (annotator/lookups/), where imports, exports,
leaderboards and kept figures read them."""
