# The whole set-up on a fresh machine is `make test` or `make play`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test test-fast typecheck play bench lint clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

# Everything: lint, types, the whole suite (slow simulations and real-process crash tests too).
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest

# The developer loop: lint, types and every test not marked slow, stopping at the first failure.
test-fast: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -m "not slow" -x

typecheck: $(STAMP)
	$(BIN)/mypy

play: $(STAMP)
	$(BIN)/solstice play

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
