"""The load benchmark of the JSON API (bench/README.md); `bench/load.py` is its command line.

Modules by concern: common (paths, the time budget, subprocesses), data (what is benched and how
it is imported), database and provision (a fresh database set up through the CLI), server
(gunicorn), clients (the annotators' HTTP loops), cpu (where the CPU went), figures (rates and
latencies), checks (the invariants, shared with the tests through annotator/engine/invariants.py),
report (printing and JSON) and runs (one engine or ceiling run from start to end).

Beside it: `bench/aggregate.py` (gold, agreement and export of a million labels; phases in
bench/phases.py, the big project made by bench/synthetic.py) and `bench/imports.py` (what a
worker imports at start, ranked by memory).
"""
