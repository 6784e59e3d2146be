# Two commands set everything up on a fresh machine: `make run` and `make test`.
# The interpreter of the venv: the distribution's python3.11 where it can make one, else the first python3.11 or python3
# on the PATH. Debian's links libpython into the interpreter itself; pyenv's default build (the one on PATH here) loads
# libpython3.11.so and is built without --enable-optimizations: the same tests took 0.81-0.88 of its CPU on Debian's
# (bench/results/2026-11-29-test-suite-interpreter.md).
PYTHON ?= $(shell for p in /usr/bin/python3.11 python3.11 python3; do \
	command -v $$p >/dev/null 2>&1 && $$p -c 'import ensurepip, venv' 2>/dev/null && { command -v $$p; break; }; done)
VENV := .venv
BIN := $(VENV)/bin
FLASK := $(BIN)/flask --app annotator
HOST ?= 127.0.0.1
PORT ?= 5000
WORKERS ?= 2
# Seconds a request may take before gunicorn restarts its worker: the admin's largest uploads (a million items
# through the declared project form: bench/results/2026-11-28-uploads-1m.md) run longer than gunicorn's 30.
TIMEOUT ?= 180

.PHONY: run test test-fast lint bench clean
# Three pytest processes: on the two cores, three ran the suite faster than two or four, with less CPU than four
# (bench/results/2026-11-29-test-workers.md).
TEST_WORKERS ?= 3
# Each test file runs whole in one of them (--dist loadfile): in two interleaved pairs of whole runs against
# --dist worksteal, 0.95 and 0.97 of the busy CPU (bench/results/2026-11-30-test-suite-loadfile.md).
# Bytecode is written even where the environment says not to: the test workers, and the servers and commands
# the tests start, then compile each module once, not once per process.
unexport PYTHONDONTWRITEBYTECODE

$(VENV)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet --no-compile -r requirements.txt
	$(BIN)/python -m compileall -q -j 0 $(VENV)/lib >/dev/null  # on every core: pip compiles on one (30 s, not 50)
	touch $@

## run: install, migrate the database (SQLite under instance/ unless DATABASE_URL), load the demo, serve
run: $(VENV)/.installed
	$(FLASK) db upgrade
	$(FLASK) demo
	@echo "Serving on http://$(HOST):$(PORT)/ (Ctrl-C stops)"
	$(BIN)/gunicorn --workers $(WORKERS) --timeout $(TIMEOUT) --bind $(HOST):$(PORT) --access-logfile - \
		"annotator:create_app()"

## test: the whole suite (unit, web, browser, PostgreSQL, both engines), TEST_WORKERS processes in parallel
test: $(VENV)/.installed
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --dist loadfile

## test-fast: the inner loop while editing: unit, web and quality tests on SQLite (no browser, no PostgreSQL)
test-fast: $(VENV)/.installed
	ANNOTATOR_TEST_ENGINES=sqlite $(BIN)/python -m pytest -n $(TEST_WORKERS) tests/unit tests/web tests/quality \
		-m "not shared_data" -k "not postgresql"

## lint: ruff on annotator/, tests/ and bench/, mypy on annotator/, the import contracts (lint-imports: the layers of
## docs/architecture.md; settings of all three in pyproject.toml), and the manual built by MkDocs in strict mode
## (mkdocs.yml) into a temporary folder, so that a broken link or anchor fails
lint: $(VENV)/.installed
	$(BIN)/ruff check annotator tests bench
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache
	site=$$(mktemp -d) && trap 'rm -rf "$$site"' EXIT && $(BIN)/mkdocs build --strict --quiet --site-dir "$$site"

## bench: the load benchmark (bench/README.md; current figures in docs/performance.md)
bench: $(VENV)/.installed
	$(BIN)/python bench/load.py

clean:
	rm -rf $(VENV) .pytest_cache
