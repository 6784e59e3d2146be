# Two commands set everything up on a fresh machine: `make run` and `make test`.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
FLASK := $(BIN)/flask --app annotator
HOST ?= 127.0.0.1
PORT ?= 5000
WORKERS ?= 2

.PHONY: run test bench clean

$(VENV)/.installed: requirements.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -r requirements.txt
	touch $@

## run: install, migrate the database (SQLite under instance/ unless DATABASE_URL), load the demo, serve
run: $(VENV)/.installed
	$(FLASK) db upgrade
	$(FLASK) demo
	@echo "Serving on http://$(HOST):$(PORT)/ (Ctrl-C stops)"
	$(BIN)/gunicorn --workers $(WORKERS) --bind $(HOST):$(PORT) --access-logfile - "annotator:create_app()"

## test: the whole suite (unit, web, browser, PostgreSQL)
test: $(VENV)/.installed
	$(BIN)/python -m pytest

## bench: the load benchmark of bench/README.md
bench: $(VENV)/.installed
	$(BIN)/python bench/load.py

clean:
	rm -rf $(VENV) .pytest_cache
