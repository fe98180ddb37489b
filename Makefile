# Macroscope: the two commands of the README, and what they need.
#
#   make demo   set everything up, run the overview of the bundled trace
#   make test   set everything up, run every test (Go, Python, notebooks)
#
# Set-up is idempotent and incremental: the virtual environment is created
# once, and the package is rebuilt only when its sources change.

PYTHON  ?= python3
GO      ?= go
VENV    ?= .venv
VPY     := $(VENV)/bin/python
TRACE   := testdata/jacobi32.trace
OUT     ?= out

GO_SOURCES := $(shell find core arrowio plots pybind cmd -name '*.go' -not -name '*_test.go' 2>/dev/null)
PY_SOURCES := $(shell find pybind/macroscope \( -name '*.py' -o -name '*.pyi' -o -name py.typed -o -name '*.js' \) \
	-not -path '*/_native/*' 2>/dev/null) pybind/build_hook.py

.PHONY: demo test setup lint go-test py-test stubs notebooks bench bench-compare bench-table widgets-js clean fuzz

demo: $(VENV)/.installed
	$(VENV)/bin/macroscope overview $(TRACE) --out $(OUT)

test: setup lint go-test py-test

setup: $(VENV)/.installed $(VENV)/.dev-deps

# The virtual environment with what the package and its build need: the
# demo needs no more.
$(VENV)/.deps: pyproject.toml
	@echo "Creating $(VENV) and installing the package's Python dependencies"
	$(PYTHON) -m venv $(VENV)
	$(VPY) -m pip install --quiet --upgrade pip
	$(VPY) -m pip install --quiet "pybindgen>=0.22.1" "hatchling>=1.25" \
		"pyarrow>=14" "pandas>=2.1" "numpy>=1.24"
	$(GO) mod download
	touch $@

# The test, notebook, widget and Dask dependencies (make setup, make test).
$(VENV)/.dev-deps: $(VENV)/.deps
	@echo "Installing the test, notebook and Dask dependencies into $(VENV)"
	$(VPY) -m pip install --quiet \
		"pytest>=8" "pytest-benchmark>=4" "nbclient>=0.10" "nbformat>=5.9" "ipykernel>=6.29" "tqdm>=4.66" \
		"dask[distributed]>=2024.1" "duckdb>=1.0" \
		"anywidget>=0.9.18" "traitlets>=5.9" "jupyterlab>=4.2" "notebook>=7,<8" "playwright>=1.45" \
		"viztracer>=1.0" "py-spy>=0.4"
	touch $@

# The package itself: gopy compiles the Go core into one extension module.
# pip is quiet but for the build hook's progress lines; its whole output
# is in build/pip.log, printed if the build fails. (The hook also writes
# its progress to the terminal, for a plain pip install; here the lines
# come through the log instead.)
$(VENV)/.installed: $(VENV)/.deps $(GO_SOURCES) $(PY_SOURCES) go.mod go.sum
	@echo "Building the Go extension (minutes the first time; log in build/pip.log)"
	@mkdir -p build
	@MACROSCOPE_BUILD_TTY=0 bash -o pipefail -c '$(VPY) -m pip install -v --no-deps --no-build-isolation --force-reinstall . 2>&1 \
		| tee build/pip.log | { sed -un "s/^ *macroscope build:/ /p" || true; }' \
		|| { tail -n 60 build/pip.log; exit 1; }
	touch $@

# The Go tests twice: with the assembly kernels of this machine, and with
# -tags purego, the portable Go loops that arm64 and Apple machines run
# (the kernels are checked bit for bit against them).
go-test:
	$(GO) vet ./...
	$(GO) test ./...
	$(GO) test -tags purego ./...

# Formatting, static analysis, and vet of the arm64 build (the kernels'
# portable fallbacks and build tags). arm64's vet of the packages that use
# cgo (the Arrow C interface) needs a cross compiler: Debian's
# gcc-aarch64-linux-gnu, which CI installs; without it the pure-Go
# packages are vetted.
ARM64_CC ?= aarch64-linux-gnu-gcc
lint:
	@unformatted=$$(gofmt -l core arrowio plots pybind cmd bench); \
		if [ -n "$$unformatted" ]; then echo "gofmt -l: not formatted:"; echo "$$unformatted"; exit 1; fi
	$(GO) tool staticcheck ./...
	@if command -v $(ARM64_CC) >/dev/null 2>&1; then \
		echo "GOARCH=arm64 go vet ./..."; CC=$(ARM64_CC) CGO_ENABLED=1 GOARCH=arm64 $(GO) vet ./...; \
	else \
		echo "GOARCH=arm64 go vet ./core/... ./plots/... ($(ARM64_CC) absent: the cgo packages are not vetted for arm64)"; \
		CGO_ENABLED=0 GOARCH=arm64 $(GO) vet ./core/... ./plots/...; \
	fi

py-test: setup
	$(VPY) -m pytest -q pybind/tests
	$(VPY) -m pytest -q --doctest-modules --pyargs macroscope

# The type stub pybind/macroscope/__init__.pyi, written from the Go
# registry's formats (the read_<format> functions are built at import); a
# test fails when it is out of date.
stubs: setup
	$(VPY) -m macroscope._stubgen

# Every Go fuzz target in turn, FUZZTIME each (scripts/fuzz.sh finds them;
# docs/reliability.md has their rates). A crasher fails the run and is kept
# under the package's testdata/fuzz/ as a regression test.
FUZZTIME ?= 30s
fuzz:
	FUZZTIME=$(FUZZTIME) GO=$(GO) scripts/fuzz.sh

bench: setup
	$(VPY) bench/zero_copy.py

# Macroscope against the peers' readers (pipit, HTA, otf2-print, pj_dump) on
# the same files; the peers are installed into bench/.peers-venv. Options in
# BENCH_ARGS, e.g. BENCH_ARGS="--rounds 3 --sizes 150MB,1.5GB --pipit-src DIR".
bench-compare: setup
	$(VPY) bench/compare.py $(BENCH_ARGS)

# The readers' performance table regenerated in one run (bench/table.py):
# every reader on a generated 150 MB file (BENCH_ARGS=--large: 1.5 GB) and on
# the corpus's largest of its format, beside its peer and `cat` from the page
# cache; rewrites its section of bench/RESULTS.md and its rows of README.md.
# Needs only Go and python3: the peers go into bench/.peers-venv as for
# bench-compare (pipit from a source tree: PIPIT_SRC=DIR).
bench-table:
	python3 bench/table.py $(BENCH_ARGS)

# The widgets' browser code: js/src bundled by esbuild into one module,
# pybind/macroscope/widgets/static/widgets.js (committed, so that installing
# needs no node).
widgets-js:
	cd js && npm ci --no-audit --no-fund && node build.mjs ../pybind/macroscope/widgets/static

clean:
	rm -rf $(VENV) build $(OUT)
