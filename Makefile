# One-command set-up: every target creates the virtual environment it needs.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# What a target needs, installed once per change of pyproject.toml: the pipeline alone
# (generate, export, publish, eval), + the trainer (torch, TRL), + the tests and linters.
STAMP  := $(VENV)/.installed-run
TRAIN  := $(VENV)/.installed-train
DEV    := $(VENV)/.installed-dev

.PHONY: test test-slow lint bench-verify bench-generate generate prepare-embedded export publish train eval serve stop clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip

$(STAMP): pyproject.toml | $(VENV)/bin/python
	$(BIN)/pip install --quiet -e .
	touch $@

$(TRAIN): pyproject.toml | $(VENV)/bin/python
	$(BIN)/pip install --quiet -e '.[train]'
	touch $@

$(DEV): pyproject.toml | $(VENV)/bin/python
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $@

test: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/mypy
	$(BIN)/python -m pytest -q

# The end-to-end run on the real embedded 0.5B model (builds llama-server on first use).
test-slow: $(DEV)
	TOOLSCALE_E2E=1 $(BIN)/python -m pytest -q -m slow

# mypy checks the folders `files` names in pyproject.toml's [tool.mypy].
lint: $(DEV)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy

bench-verify: $(STAMP)
	$(BIN)/python bench/verify.py

bench-generate: $(STAMP)
	$(BIN)/python bench/generate.py

DOMAIN   ?= finance
N        ?= 20
MODEL    ?= 1.5b
PARALLEL ?= 2
DATA     ?= data

# The main job. With TOOLSCALE_LLM_MODEL unset it builds llama-server and fetches the
# Qwen2.5-Coder GGUF once (into ~/.cache/toolscale), then starts and stops it itself.
# prepare-embedded starts that set-up in the background before pip installs the project
# (it needs the standard library alone); the run waits for it on its file locks.
generate: prepare-embedded $(STAMP)
	PREFECT_SERVER_ANALYTICS_ENABLED=false $(BIN)/toolscale generate $(DOMAIN) -n $(N) --model-size $(MODEL) --parallel $(PARALLEL) --data $(DATA)

PREPARE_LOG := $(VENV)/prepare-embedded.log
prepare-embedded: | $(VENV)/bin/python
	@if [ -z "$$TOOLSCALE_LLM_MODEL" ]; then \
	  echo "setting up the embedded $(MODEL) model (llama-server, the GGUF) in the background; log: $(PREPARE_LOG)"; \
	  $(BIN)/python -m toolscale.llm.local $(MODEL) > $(PREPARE_LOG) 2>&1 & \
	fi

# The runs under DATA (data/, or runs/ for the recorded ones) as a Hugging Face dataset folder.
OUT ?= out/dataset
export: $(STAMP)
	$(BIN)/toolscale export --data $(DATA) --out $(OUT)

# The exported folder to the Hugging Face Hub, one commit (token: HF_TOKEN or `hf auth login`).
publish: $(STAMP)
	@test -n "$(REPO)" || { echo "error: say where: make publish REPO=OWNER/NAME"; exit 2; }
	$(BIN)/toolscale publish $(OUT) --repo $(REPO)

# The bundled GRPO trainer. cpu-tiny trains a tiny random policy on the banking fixture
# (out/sample/dataset, made here); other configs name their own dataset.
CONFIG ?= cpu-tiny
train: $(TRAIN)
	$(BIN)/toolscale sample-dataset --out out/sample
	$(BIN)/toolscale train --config $(CONFIG)

# An agent over a split: the embedded model (MODEL=0.5b|1.5b) by default, or any
# OpenAI-compatible one: make eval MODEL_NAME=NAME BASE_URL=URL [DATASET=out/dataset]
DATASET ?= out/sample/dataset
K       ?= 4
eval: $(STAMP)
	@if [ "$(DATASET)" = out/sample/dataset ]; then $(BIN)/toolscale sample-dataset --out out/sample; fi
	$(BIN)/toolscale eval $(if $(MODEL_NAME),--model $(MODEL_NAME) --base-url $(BASE_URL),--text-calls) --model-size $(MODEL) --dataset $(DATASET) -k $(K)

# Scheduled deployments on a real Prefect server: the server (its database in .prefect/),
# the process work pool, prefect.yaml's deployments and a worker, in the background.
PORT ?= 4200
serve: $(STAMP)
	$(BIN)/toolscale serve --port $(PORT)

stop: $(STAMP)
	$(BIN)/toolscale stop

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache
