# Two commands for learners: `make lab` and `make test`. Everything lives in .venv (plain venv + pip).
# Learners work in workspace/ (their own copies, git-ignored); notebooks/ is the executed reference.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# A fixed hash seed so that re-executed notebooks produce the same outputs on every machine.
export PYTHONHASHSEED := 0

.PHONY: install kernel lab workspace reset update submit progress test notebooks bench interop classroom clean

# install, kernel and lab are tutorial_course/setup_course.py's commands, so a machine without make
# (Windows) runs the same steps with `python -m tutorial_course.setup_course install|kernel|lab`.
install: $(STAMP)

$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m tutorial_course.setup_course install

# Registers .venv as the kernel "分词与序列打包 (.venv)", for a Jupyter (Anaconda's) outside .venv.
kernel: $(STAMP)
	$(PYTHON) -m tutorial_course.setup_course kernel

# Syncs workspace/, then JupyterLab there (--allow-root when run as root, as in containers).
lab: $(STAMP)
	$(PYTHON) -m tutorial_course.setup_course lab -- $(LAB_ARGS)

# Copies each notebook workspace/ lacks, outputs cleared; never overwrites the learner's copy.
workspace:
	$(PYTHON) -m tutorial_course.workspace sync

# `make reset NB=02` restores one notebook in workspace/ after asking.
reset:
	@test -n "$(NB)" || { echo "usage: make reset NB=02"; exit 2; }
	$(PYTHON) -m tutorial_course.workspace reset $(NB)

# `make update` (or `make update NB="02 03"`) brings newer notebooks into workspace/: cells the learner
# edited stay theirs; where the new version changed one of them too, it is written beside (NN_name.new.ipynb).
update:
	$(PYTHON) -m tutorial_course.workspace update $(NB)

# `make submit STUDENT=s2024-017 NB="02 03"` packs those workspace copies into submissions/ (not ignored):
# upload the zip, or commit and push it.
submit:
	@test -n "$(STUDENT)" -a -n "$(NB)" || { echo 'usage: make submit STUDENT=ID NB="02 03"'; exit 2; }
	$(PYTHON) -m tutorial_course.workspace submit --student $(STUDENT) $(NB)

# Which exercises the learner's checks in workspace/ passed, failed or did not try yet, per chapter.
progress: $(STAMP)
	$(BIN)/python -m tutorial_course.exercises

# ruff first (the three packages: lines within 100 columns, no unused names; pyproject.toml says so).
# Two pytest workers, one per core; loadscope keeps each notebook (and each test module) on one worker.
test: $(STAMP)
	$(BIN)/ruff check
	$(BIN)/python -m pytest -n 2 --dist loadscope $(PYTEST_ARGS)

notebooks: $(STAMP)
	$(BIN)/jupyter nbconvert --to notebook --execute --inplace \
	  --ExecutePreprocessor.kernel_name=python3 --ExecutePreprocessor.timeout=900 \
	  --ExecutePreprocessor.record_timing=False notebooks/*.ipynb
	$(BIN)/python tools/stable_widget_ids.py notebooks/*.ipynb

# The nbgrader course for an instructor (docs/teachers.md): `make classroom OUT=../course`, or only
# some chapters with CHAPTERS="00 02"; SEED=N sets the hidden cases' seed (default: the one OUT
# already uses); FORCE=1 overwrites files edited since the last release.
classroom: $(STAMP)
	@test -n "$(OUT)" || { echo "usage: make classroom OUT=../course [CHAPTERS=\"00 02\"] [SEED=N] [FORCE=1]"; exit 2; }
	$(BIN)/python -m tutorial_course.classroom release $(OUT) $(if $(CHAPTERS),--chapters $(CHAPTERS)) $(if $(SEED),--seed $(SEED)) $(if $(FORCE),--force)

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
