# Two commands for learners: `make lab` and `make test`. Everything lives in .venv (plain venv + pip).
# Learners work in workspace/ (their own copies, git-ignored); notebooks/ is the executed reference.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# A fixed hash seed so that re-executed notebooks produce the same outputs on every machine.
export PYTHONHASHSEED := 0

.PHONY: install lab workspace reset test notebooks bench interop classroom clean

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check -q -c constraints.txt -e ".[dev]"
	touch $(STAMP)

# Containers often run as root, where Jupyter refuses to start without --allow-root.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

lab: $(STAMP) workspace
	$(BIN)/jupyter lab --notebook-dir=workspace $(ROOT_FLAG) $(LAB_ARGS)

# Copies each notebook workspace/ lacks, outputs cleared; never overwrites the learner's copy.
workspace:
	$(PYTHON) tools/workspace.py sync

# `make reset NB=02` restores one notebook in workspace/ after asking.
reset:
	@test -n "$(NB)" || { echo "usage: make reset NB=02"; exit 2; }
	$(PYTHON) tools/workspace.py reset $(NB)

# ruff first (tutorial_lib/: lines within 100 columns, no unused names; pyproject.toml configures it).
test: $(STAMP)
	$(BIN)/ruff check
	$(BIN)/python -m pytest $(PYTEST_ARGS)

notebooks: $(STAMP)
	$(BIN)/jupyter nbconvert --to notebook --execute --inplace \
	  --ExecutePreprocessor.kernel_name=python3 --ExecutePreprocessor.timeout=900 \
	  --ExecutePreprocessor.record_timing=False notebooks/*.ipynb
	$(BIN)/python tools/stable_widget_ids.py notebooks/*.ipynb

# The nbgrader course for an instructor (README 给老师): `make classroom OUT=../course`, or only some
# chapters with CHAPTERS="00 02".
classroom: $(STAMP)
	@test -n "$(OUT)" || { echo "usage: make classroom OUT=../course [CHAPTERS=\"00 02\"]"; exit 2; }
	$(BIN)/python -m tutorial_lib.classroom release $(OUT) $(if $(CHAPTERS),--chapters $(CHAPTERS))

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py $(BENCH)

# Our .bin/.idx (tools/interop_megatron.py) and GPT samples (tools/interop_samples.py) against megatron-core
# itself; not part of `make test`. megatron-core needs torch, so it gets its own venv on Python 3.11 with a CPU
# build of torch (interop/requirements.txt says why --ignore-requires-python).
INTEROP_PYTHON ?= python3.11
INTEROP := .interop-venv
INTEROP_STAMP := $(INTEROP)/.installed

interop: $(STAMP) $(INTEROP_STAMP)
	$(BIN)/python tools/interop_megatron.py --megatron-python $(INTEROP)/bin/python
	$(BIN)/python tools/interop_samples.py --python $(INTEROP)/bin/python

$(INTEROP_STAMP): interop/requirements.txt
	test -x $(INTEROP)/bin/python || $(INTEROP_PYTHON) -m venv $(INTEROP)
	$(INTEROP)/bin/python -m pip install --disable-pip-version-check -q --ignore-requires-python \
	  -r interop/requirements.txt
	touch $(INTEROP_STAMP)

clean:
	rm -rf $(VENV) $(INTEROP)
