# kemps — build scaffolding. Everything lives in ./.venv; the only host needs are
# Python >= 3.11 (override with `make PYTHON=python3.12 ...`) and make.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
PYTEST_ARGS ?=

.DEFAULT_GOAL := help
.PHONY: help run simulate test bench records-hash lint clean

help: ## List the available targets
	@echo "kemps — make targets:"
	@grep -E '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | \
		awk 'BEGIN {FS = ":.*## "} {printf "  make %-8s %s\n", $$1, $$2}'
	@echo "Variables: PYTHON=$(PYTHON) (interpreter used to create .venv), PYTEST_ARGS=..."

# Create/refresh the virtualenv whenever pyproject.toml or requirements.lock change.
$(VENV)/.installed: pyproject.toml requirements.lock
	@if [ -x $(BIN)/python ]; then py=$(BIN)/python; else py='$(PYTHON)'; fi; \
	if ! "$$py" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else 1)' 2>/dev/null; then \
		echo "error: kemps needs Python >= 3.11, but '$$py' is: $$("$$py" --version 2>/dev/null || echo 'not found')" >&2; \
		echo "hint: install Python 3.11+ and run e.g. 'make clean; make PYTHON=python3.11 test'" >&2; \
		exit 1; \
	fi
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -r requirements.lock
	$(BIN)/python -m pip install -q --no-deps -e .
	touch $@

run: $(VENV)/.installed ## Set up .venv if needed, then start the table server on http://127.0.0.1:8000
	$(BIN)/kemps serve

simulate: $(VENV)/.installed ## Play one full simulated match between bots and print it as a log
	$(BIN)/kemps run

test: $(VENV)/.installed ## Set up .venv if needed, then run the test suite (PYTEST_ARGS=...)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

bench: $(VENV)/.installed ## Run the engine benchmark
	$(BIN)/kemps bench

RECORDS_DIR ?= build/records-hash
records-hash: $(VENV)/.installed ## Simulate fixed matches, print one sha256 over all records (same before and after any engine change)
	rm -rf $(RECORDS_DIR) && mkdir -p $(RECORDS_DIR)
	for p in pagat squarescores cash canes seed2-tournament; do \
		$(BIN)/kemps simulate -r $$p -m 8 -s 11 --records $(RECORDS_DIR)/$$p > /dev/null || exit 1; done
	$(BIN)/kemps simulate -r pagat -p 3 -m 4 -s 5 --records $(RECORDS_DIR)/pagat-3 > /dev/null
	$(BIN)/kemps simulate -r pagat -m 4 -s 21 --bots sharp --records $(RECORDS_DIR)/sharp > /dev/null
	$(BIN)/kemps simulate -r pagat -m 3 -s 31 --bots club --records $(RECORDS_DIR)/club > /dev/null
	cd $(RECORDS_DIR) && find . -type f | LC_ALL=C sort | xargs sha256sum | sha256sum

lint: $(VENV)/.installed ## ruff check + mypy (strict)
	$(BIN)/ruff check src tests
	$(BIN)/mypy

clean: ## Remove .venv, build output and tool caches
	rm -rf $(VENV) build dist src/*.egg-info \
		.pytest_cache .mypy_cache .ruff_cache .hypothesis
	find . -path ./.git -prune -o -type d -name __pycache__ -prune -exec rm -rf {} +
