# The whole set-up on a fresh machine is `make test` or `make play`. The install has the test
# extra and the rl extra (PettingZoo, OpenSpiel), so the suite runs the bots.rl tests too.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test test-fast soak typecheck play bench lint clean fast test-compiled

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,rl]'
	touch $(STAMP)

# Everything: lint, types, the whole suite (slow simulations and real-process crash tests too);
# of the seeded sweeps (byzantine peers, fuzzers) a fixed sample: `make soak` runs the rest.
test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -m "not soak"

# The long tail of the seeded sweeps: hundreds of byzantine strategies, thousands of fuzz inputs.
soak: $(STAMP)
	$(BIN)/python -m pytest -m soak

# The developer loop: lint, types and every test not marked slow, stopping at the first failure.
test-fast: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -m "not slow and not soak" -x

# Optional compiled engine (mypyc) in build/fast: use it with PYTHONPATH=build/fast. make test
# always tests the pure-Python engine; test-compiled runs the engine tests (seeded-game pins
# included), the scenarios and the bot tests against the build.
fast: $(STAMP)
	$(BIN)/python tools/build_fast.py

test-compiled: fast
	SOLSTICE_EXPECT_COMPILED=1 PYTHONPATH=build/fast $(BIN)/pytest -m "not slow" \
		tests/test_engine_*.py tests/test_scenarios.py tests/test_play_scenarios.py tests/test_bots_*.py \
		tests/test_bot_*.py

typecheck: $(STAMP)
	$(BIN)/mypy

play: $(STAMP)
	$(BIN)/solstice play

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build/fast
