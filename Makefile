# The whole set-up on a fresh machine is `make test` or `make play`. The install has the test
# extra and the rl extra (PettingZoo, OpenSpiel), so the suite runs the bots.rl tests too, and
# compiles the engine with mypyc into engine/_compiled when a C compiler is there (one notice
# line and the pure-Python engine when not; SOLSTICE_PURE=1 skips the compile and runs the
# sources). The compiled build is remade whenever an engine source changes.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test test-fast soak typecheck play bench lint clean fast engine test-compiled test-pure \
	test-other-engine lan-test lan-tools browser-tools

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/pip install --quiet --upgrade pip
	-$(BIN)/pip uninstall --quiet --yes solstice 2>/dev/null  # the distribution's old name
	$(BIN)/pip install --quiet -e '.[test,rl]'
	$(BIN)/python tools/build_fast.py
	touch $(STAMP)

# The compiled engine of the current sources (a no-op when it is up to date).
engine fast: $(STAMP)
	$(BIN)/python tools/build_fast.py

# Everything: lint, types, the whole suite (slow simulations and real-process crash tests too);
# of the seeded sweeps (byzantine peers, fuzzers) a fixed sample: `make soak` runs the rest.
# The suite tests the engine a user gets (compiled when it could be); then the engine tests run
# on the other build too (the pure-Python sources). The suite runs on every core (pytest-xdist;
# the LAN multicast tests stay together on one worker: their xdist_group).
XDIST := -n auto --dist loadgroup

test: engine lan-tools browser-tools
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -m "not soak" $(XDIST)
	$(MAKE) --no-print-directory test-other-engine

# The real-network tests (marker `lan`): each peer a real process in a network namespace of its
# own, on a simulated LAN (loss, delay, partitions) or behind a NAT router on a simulated
# internet. They need root, /dev/net/tun and nftables; elsewhere each skips with one line.
# make test runs the short ones; this runs them all (the 50 s and 120 s partitions too).
lan-test: engine lan-tools browser-tools
	$(BIN)/python -m pytest -m lan -p no:xdist -v

# nftables for the NAT routers of the lan tests, where we are root on Debian and lack it
# (best effort: without it those tests skip).
lan-tools:
	@if [ "$$(id -u)" = 0 ] && ! command -v nft >/dev/null && command -v apt-get >/dev/null; \
	then { apt-get install -y -qq nftables || { apt-get update -qq && \
		apt-get install -y -qq nftables; }; } >/dev/null 2>&1 || \
		echo "solstice: nftables not installed: the NAT router tests will skip"; fi

# Chromium for the browser test of solstice serve (tests/test_serve_browser.py), where we are
# root on Debian and lack it (best effort: without it that test skips).
browser-tools:
	@if [ "$$(id -u)" = 0 ] && ! command -v chromium >/dev/null && command -v apt-get >/dev/null; \
	then { apt-get install -y -qq chromium || { apt-get update -qq && \
		apt-get install -y -qq chromium; }; } >/dev/null 2>&1 || \
		echo "solstice: chromium not installed: the browser test of solstice serve will skip"; fi

# The long tail of the seeded sweeps: hundreds of byzantine strategies, thousands of fuzz inputs.
soak: $(STAMP)
	$(BIN)/python -m pytest -m soak $(XDIST)

# The developer loop: lint, types and every test not marked slow, stopping at the first failure.
test-fast: engine
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -m "not slow and not soak" -x $(XDIST)

# The engine tests (seeded-game pins included) and the scenarios on one build: test-compiled
# fails unless the compiled one runs, test-pure runs the sources (SOLSTICE_PURE=1).
ENGINE_TESTS := tests/test_engine_*.py tests/test_scenarios.py tests/test_play_scenarios.py

test-compiled: engine
	SOLSTICE_EXPECT_COMPILED=1 $(BIN)/python -m pytest -m "not slow" $(XDIST) $(ENGINE_TESTS)

test-pure: $(STAMP)
	SOLSTICE_PURE=1 $(BIN)/python -m pytest -m "not slow" $(XDIST) $(ENGINE_TESTS)

# The build make test's suite did not run: the sources when the compiled engine ran, else none.
test-other-engine: engine
	@if [ "$$($(BIN)/python -c 'import engine; print(engine.ENGINE_BUILD)')" = compiled ]; then \
		$(MAKE) --no-print-directory test-pure; \
	else $(BIN)/python -c 'import engine; print("solstice: the engine tests ran on the " \
		f"pure-Python engine only ({engine.ENGINE_REASON})")'; fi

typecheck: $(STAMP)
	$(BIN)/mypy

play: engine
	$(BIN)/solstice play

bench: $(STAMP)
	$(BIN)/python bench/run_all.py

lint: $(STAMP)
	$(BIN)/ruff check .

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache build/fast engine/_compiled
