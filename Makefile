# mercury-static: `make demo` builds and serves the demo bundle; `make test` installs everything and runs the tests;
# `make lint` and `make test-fast` (no browser, no slow tests) are the quick loop while changing the code;
# `make generate` rewrites the generated blocks after a change of what they come from; `make docs` builds the docs.
PYTHON ?= python3
VENV ?= .venv
PORT ?= 8000
# On a laptop without a local CPU wheel, point pip at PyTorch's CPU index, e.g.
#   make demo TORCH_INDEX=https://download.pytorch.org/whl/cpu
TORCH_INDEX ?=
PY := $(VENV)/bin/python
PIP := $(PY) -m pip
MODEL := mercury_static/model/page/model_quantized.onnx
# Bytecode is cached even where the environment says not to: otherwise every test process (each xdist worker,
# each CLI a test starts) compiles every module again and pytest rewrites every test file again.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: install model demo lint docs generate test test-fast test-slow test-js browser wheel clean lock label-studio

EXTRAS := export,train,test,lint,ray
# Every package at the version the tests last passed with (requirements/constraints.txt, written by `make lock`):
# a new release of a dependency cannot change a fresh install, as package-lock.json does for the page's side.
LOCK := requirements/constraints.txt

$(VENV)/.installed: pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(PIP) install -q -c $(LOCK) --upgrade pip
	$(PIP) install -q -c $(LOCK) torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	$(PIP) install -q -c $(LOCK) -e '.[$(EXTRAS)]'
	touch $@

# The lock refreshed: a fresh venv with the newest releases pyproject.toml allows, frozen. Run `make test` after.
lock:
	rm -rf .cache/lock-venv && $(PYTHON) -m venv .cache/lock-venv
	.cache/lock-venv/bin/pip install -q --upgrade pip
	.cache/lock-venv/bin/pip install -q torch==2.13.0 $(if $(TORCH_INDEX),--index-url $(TORCH_INDEX))
	.cache/lock-venv/bin/pip install -q -e '.[$(EXTRAS)]'
	{ sed -n '/^#/p' $(LOCK); .cache/lock-venv/bin/pip freeze --all --exclude-editable \
		| sed 's/+cpu$$//'; } > $(LOCK).new && mv $(LOCK).new $(LOCK)
	rm -rf .cache/lock-venv

# Label Studio in its own venv, pinned with every package it brings (requirements/label-studio.txt), for
# tests/test_label_studio_server.py, which skips when it is absent.
label-studio: .cache/label-studio-venv/bin/label-studio

.cache/label-studio-venv/bin/label-studio: requirements/label-studio.txt
	rm -rf .cache/label-studio-venv && $(PYTHON) -m venv .cache/label-studio-venv
	.cache/label-studio-venv/bin/pip install -q -c requirements/label-studio.txt label-studio
	touch $@

# The default model exported once (torch is needed here only), shipped by the wheel; not tracked by git.
$(MODEL): $(VENV)/.installed mercury_static/assist/model_export.py
	HF_HUB_OFFLINE=1 $(PY) -m mercury_static.assist.model_export

model: $(MODEL)

js/node_modules/.package-lock.json: js/package-lock.json
	cd js && npm ci --ignore-scripts --no-audit --no-fund

install: $(VENV)/.installed js/node_modules/.package-lock.json $(MODEL)

demo: install
	HF_HUB_OFFLINE=1 $(VENV)/bin/mercury-static build examples/demo.jsonl -o demo-bundle --title "mercury-static demo" \
		--labels examples/labels.yaml --guidelines examples/guidelines.md
	$(VENV)/bin/mercury-static serve demo-bundle --port $(PORT)

# A Chromium for the browser tests: $$CHROMIUM, else /usr/bin/chromium, else Playwright's own download.
browser: install
	@if [ -n "$$CHROMIUM" ] || [ -x /usr/bin/chromium ]; then echo "using $${CHROMIUM:-/usr/bin/chromium}"; \
	else $(PY) -m playwright install chromium; fi

# ruff, mypy (its settings: [tool.mypy] in pyproject.toml; zero errors) and ESLint.
lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/mypy
	js/node_modules/.bin/eslint --max-warnings 0 --config js/eslint.config.mjs site_template/app tests/js

# The docs site: docs/cli.md still what the CLI generates (cog -r docs/cli.md rewrites it), then mkdocs with
# --strict (a broken link or anchor, or a page not in the nav, fails) into site/. `$(VENV)/bin/mkdocs serve`
# serves it with live reload while you write.
docs: install
	$(VENV)/bin/cog --check docs/cli.md
	$(VENV)/bin/mkdocs build --strict

# Every generated block rewritten from the Python it comes from: the page's constants that Python defines (each
# page module with a `// [[[cog` block: mercury_static/tools/twins.py) and the CLI reference. The tests run
# `cog --check` on the same files, so a Python change not regenerated fails `make test-fast`.
GENERATED = $(shell grep -rl --include=*.js '\[\[\[cog' site_template/app | sort)
generate: install
	$(VENV)/bin/cog -r $(GENERATED) docs/cli.md
	$(VENV)/bin/python -m mercury_static.tools.report_schema

NPROC := $(shell nproc 2>/dev/null || echo 2)

# JavaScript unit tests of the page's pure modules (Node's own runner, a file per core); rank.js is checked
# against rank.py.
test-js: install
	PYTHON=$(abspath $(PY)) node --test --test-concurrency=$(NPROC) tests/js/

# The quick loop (about 1 min 10 s on 2 cores): the JS unit tests, then every Python test marked neither `browser`
# nor `slow`, a test file per worker (pytest-xdist, a worker per core; JOBS=0 runs them in this process).
JOBS ?= $(NPROC)
test-fast: install test-js
	HF_HUB_OFFLINE=1 $(PY) -m pytest -q -m "not browser and not slow" -n $(JOBS) --dist loadfile

# The tests marked `slow` (memory and scale, Ray, the wheel, model exports, the docs' shell blocks, the
# shared-data builds): minutes of CPU each; not browser ones (`make test` runs them with those).
test-slow: install
	HF_HUB_OFFLINE=1 $(PY) -m pytest -q -m "slow and not browser" -n $(JOBS) --dist loadfile --no-loadscope-reorder

# The whole suite: the fast tests first, then the slow and the browser tests in one run, a test file per
# worker, the files of minutes first (conftest.py's LONGEST_FIRST): a browser test waits on its page while a
# slow one computes. A browser test that fails is run once more (-rR lists it; conftest.py keeps --reruns to
# them): on a loaded 2-core machine a few of their setup steps time out; a real defect fails twice.
test: test-fast browser
	HF_HUB_OFFLINE=1 $(PY) -m pytest -q -m "slow or browser" -n $(JOBS) --dist loadfile --no-loadscope-reorder \
		--reruns 1 -rR

# A wheel that builds bundles without this checkout or torch: the page template, the packed page, the browser
# runtime and the default model inside.
wheel: install
	$(PY) -m mercury_static.bundle.page  # the packed page and the browser runtime, into the package
	rm -rf build/lib  # setuptools' staging folder: a file removed from the package would stay in it
	$(PIP) wheel -q --no-deps --no-build-isolation -w dist .

clean:
	rm -rf $(VENV) js/node_modules build demo-bundle .cache mercury_static/runtime mercury_static/page dist site
	find mercury_static/model -mindepth 1 ! -name NOTICE.md ! -name LICENSE-Apache-2.0.txt -delete
