# One-command set-up: every target creates the virtual environment it needs.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: test lint bench-verify generate clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

bench-verify: $(STAMP)
	$(BIN)/python bench/verify.py

generate:
	@echo "make generate DOMAIN=$(DOMAIN): LLM synthesis arrives with issue 3; nothing is generated yet." >&2
	@exit 2

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache
