# Two commands for learners: `make lab` and `make test`. Everything lives in .venv (plain venv + pip).
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# A fixed hash seed so that re-executed notebooks produce the same outputs on every machine.
export PYTHONHASHSEED := 0

.PHONY: install lab test notebooks bench clean

install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --disable-pip-version-check -q -c constraints.txt -e ".[dev]"
	touch $(STAMP)

# Containers often run as root, where Jupyter refuses to start without --allow-root.
ROOT_FLAG := $(if $(filter 0,$(shell id -u)),--allow-root)

lab: $(STAMP)
	$(BIN)/jupyter lab --notebook-dir=notebooks $(ROOT_FLAG) $(LAB_ARGS)

test: $(STAMP)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

notebooks: $(STAMP)
	$(BIN)/jupyter nbconvert --to notebook --execute --inplace \
	  --ExecutePreprocessor.kernel_name=python3 --ExecutePreprocessor.timeout=900 \
	  --ExecutePreprocessor.record_timing=False notebooks/*.ipynb
	$(BIN)/python tools/stable_widget_ids.py notebooks/*.ipynb

bench: $(STAMP)
	$(BIN)/python benchmarks/run.py $(BENCH)

clean:
	rm -rf $(VENV)
