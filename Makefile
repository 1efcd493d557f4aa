# Everything the project needs is built from here; the README's two commands are `make demo` and `make test`.
PYTHON ?= python3.11
VENV := .venv
LEGACY := .venv-legacy
# Newest TensorFlow (CPU build). tf-keras is installed with --no-deps because it depends on the `tensorflow`
# wheel by name, which would pull a second 600 MB copy of TensorFlow next to tensorflow-cpu.
# TensorBoard is no longer a dependency of TensorFlow 2.21; migrated programs write summaries as Estimator did.
# pandas < 2.2, as Estimator users had it: TF 2.15's pandas_input_fn cannot read pandas 3's string columns.
# tf-slim: tests/legacy/slim_model_fn_program.py's model_fn.
LEGACY_PKGS := tensorflow-cpu==2.15.1 tensorflow-estimator==2.15.0 "numpy<2" scikit-learn "pandas<2.2" pytest \
	nbformat nbclient ipykernel tf-slim

.PHONY: env env-modern env-legacy demo test test-fast lint clean

env: env-modern env-legacy

env-modern: $(VENV)/.ready
env-legacy: $(LEGACY)/.ready

$(VENV)/.ready: pyproject.toml Makefile
	$(PYTHON) -m venv $(VENV)
	$(VENV)/bin/pip install --quiet --upgrade pip
	$(VENV)/bin/pip install --quiet tensorflow-cpu tensorboard
	$(VENV)/bin/pip install --quiet --no-deps tf-keras
	$(VENV)/bin/pip install --quiet -e '.[dev,ray]'
	touch $@

$(LEGACY)/.ready: Makefile
	$(PYTHON) -m venv $(LEGACY)
	$(LEGACY)/bin/pip install --quiet --upgrade pip
	$(LEGACY)/bin/pip install --quiet $(LEGACY_PKGS)
	touch $@

demo: env
	$(VENV)/bin/python -m migrate.demo

test: env
	$(VENV)/bin/python -m pytest -n 2 --dist loadgroup --durations=60 tests

test-fast: env-modern
	$(VENV)/bin/python -m pytest -n 2 --dist loadgroup -m "not slow and not legacy" tests

lint: env-modern
	$(VENV)/bin/ruff check .

clean:
	rm -rf $(VENV) $(LEGACY) build *.egg-info .pytest_cache
