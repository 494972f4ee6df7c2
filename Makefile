# graphc build, test and tooling targets. `make help` lists them.

GO ?= go
PROTOC_GEN_GO_VERSION = v1.36.12

.PHONY: all build test lint demo bench proto help clean fuzz soak hostile onnx-tests

all: build

# help: one line per target (TestMakeHelp checks that every target has one)
help:
	@echo "make all     - the same as make build"
	@echo "make build   - build bin/graphc"
	@echo "make test    - gofmt/vet checks and the whole test suite (what CI runs); prints the node-test counts"
	@echo "make lint    - gofmt and go vet"
	@echo "make demo    - compile the bundled MatMul+Trilu model, run it, check it, show what DIE removed; then graphc run --bench"
	@echo "make bench   - benchmarks (compiled code and compiler; the real-model set when exported)"
	@echo "make models  - export the real-model set from PyTorch into GRAPHC_MODELS (~/.cache/graphc-models)"
	@echo "make models-tiny - re-export the committed tiny models in testdata/realmodels"
	@echo "make models-audio - export the audio set (torchaudio models, 1-D conv nets) into GRAPHC_MODELS_AUDIO (~/.cache/graphc-models-audio)"
	@echo "make models-light ONNX_LIGHT=DIR - the ONNX zoo light CNNs (DIR: an onnx/onnx checkout's onnx/backend/test/data/light) into GRAPHC_MODELS_LIGHT"
	@echo "make models-quant - export the quantized real-model set into GRAPHC_MODELS (needs onnxruntime-node, see bench)"
	@echo "make models-quant-tiny - re-export the committed tiny quantized models in testdata/realmodels"
	@echo "make bench-real  - the real-model set against onnxruntime (BENCH_MODELS=a,b to choose)"
	@echo "make bench-mem   - peak memory of graphc on the real-model set and a 100,000-op chain (issue 25 targets)"
	@echo "make bench-profile - per-kernel profile of one real model (PROFILE_MODEL=gpt2)"
	@echo "make fuzz    - every fuzz target for FUZZTIME each, one after another (FUZZTIME=10m for a real run)"
	@echo "make hostile - every hostile file (fuzz corpora, 2,000 nested Ifs, 100,000-op chain) within 300 MB and 60 s CPU, with the figures"
	@echo "make soak    - the thorough randomized runs (hours): oracles at 10,000 cases, 30,000 random graphs, fuzzing 10m each"
	@echo "make conformance         - ONNX node tests in the evaluator (suite: see make onnx-tests)"
	@echo "make conformance-x86     - ONNX node tests as compiled x86-64 code"
	@echo "make conformance-hexagon - ONNX node tests as hexagonv67 code under qemu-hexagon (scalar, then integer HVX)"
	@echo "make conformance-aarch64 - ONNX node tests as AArch64 code under qemu-aarch64 (generic, then cortex-x2)"
	@echo "make onnx-tests - check out onnx's node tests (onnx $(ONNX_TESTS_TAG)) into $(ONNX_TESTS_DIR) (needs git and network)"
	@echo "make proto   - regenerate proto/ (ONNX from Debian's libonnx-dev onnx.proto, the TensorFlow GraphDef subset)"
	@echo "make clean   - remove bin/"
	@echo "make help    - this list"

build:
	$(GO) build -ldflags "-X main.commit=$$(git rev-parse --short=12 HEAD 2>/dev/null)" -o bin/graphc ./cmd/graphc

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^proto/')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

# test: every package; internal/conformance runs verbosely beside the others so that the log
# shows each node-test suite's "N passed, N failed, N skipped" (or the command that provides a
# missing suite), and its whole output when it fails.
test: lint
	@log=$$(mktemp); \
	  $(GO) test -timeout 30m -v ./internal/conformance > $$log 2>&1 & cpid=$$!; \
	  $(GO) test -timeout 30m $$($(GO) list ./... | grep -v '/internal/conformance$$'); st=$$?; \
	  wait $$cpid; cst=$$?; \
	  if [ $$cst = 0 ]; then grep -E 'node tests|SKIP|^ok' $$log; else cat $$log; fi; rm -f $$log; \
	  [ $$st = 0 ] && [ $$cst = 0 ]

demo:
	$(GO) run ./examples/demo
	@echo; echo '$$ graphc run testdata/models/matmul_trilu.onnx --input random --bench 20'
	@$(GO) run ./cmd/graphc run testdata/models/matmul_trilu.onnx --input random --bench 20

# bench: compiled code against onnxruntime and against --pipeline= (one table: MatMul, linear
# layers from GEMV to the lm head, GEMVs beside a plain read of their matrix, int8 against f32),
# the conv shape table (1x1, 3x3 at 56/28/14/7, strided, 7x7 stem, depthwise, grouped, dilated)
# against onnxruntime, the real-model set against onnxruntime with per-family geometric means and
# the per-kernel profile of one decoder (when exported), then the Go benchmarks (volume
# operations, scanning, compile time, MatMul+Trilu die vs no die). BENCH_FLAGS=-cputime measures
# process CPU time instead of wall time (steadier on a shared machine).
BENCH_FLAGS ?=
bench:
	$(GO) run ./cmd/graphc-bench $(BENCH_FLAGS)
	$(GO) run ./cmd/graphc-bench -convs $(BENCH_FLAGS)
	@if [ -d "$(GRAPHC_MODELS)" ]; then $(MAKE) bench-real bench-profile; else echo "no real models in $(GRAPHC_MODELS): make models"; fi
	$(GO) test -run '^$$' -bench . -benchtime 3x ./...

# models: Debian's python3-torch, python3-torchvision and python3-onnx export the real-model set
# (random weights, fixed seeds; not needed by make test). The exports are cached outside git.
GRAPHC_MODELS ?= $(HOME)/.cache/graphc-models
PYTHON ?= /usr/bin/python3
BENCH_MODELS ?=
PROFILE_MODEL ?= gpt2
.PHONY: models models-tiny models-audio models-light models-quant models-quant-tiny bench-real bench-profile
models:
	$(PYTHON) models/export.py --out $(GRAPHC_MODELS)

models-tiny:
	$(PYTHON) models/export.py --set tiny --force --out testdata/realmodels

# models-audio: torchaudio's models and hand-written 1-D/2-D conv audio nets (models/audio.py);
# bench them with: go run ./cmd/graphc-bench -real -cputime -model-dir $(GRAPHC_MODELS_AUDIO)
GRAPHC_MODELS_AUDIO ?= $(HOME)/.cache/graphc-models-audio
models-audio:
	$(PYTHON) models/export.py --set audio --out $(GRAPHC_MODELS_AUDIO)

# models-light: the ONNX model zoo's "light" CNNs (every weight a ConstantOfShape; models/light.py)
# from ONNX_LIGHT, an onnx/onnx checkout's onnx/backend/test/data/light (or any directory of
# light_*.onnx, e.g. extracted with `git show HEAD:onnx/backend/test/data/light/light_X.onnx`);
# onnxruntime-node (ORT_DIR) computes the reference outputs
GRAPHC_MODELS_LIGHT ?= $(HOME)/.cache/graphc-models-light
models-light:
	@test -n "$(ONNX_LIGHT)" || { echo "models-light: set ONNX_LIGHT to onnx/backend/test/data/light of an onnx/onnx checkout"; exit 2; }
	$(PYTHON) models/light.py $(ONNX_LIGHT) --ort $(ORT_DIR) --out $(GRAPHC_MODELS_LIGHT)

# models-quant: the quantized set (models/export_quant.py; onnxruntime-node computes the
# reference outputs, from the benchmark's cache); models-quant-tiny re-exports the committed one
ORT_DIR ?= $(HOME)/.cache/graphc-bench/ort
models-quant:
	$(PYTHON) models/export_quant.py --out $(GRAPHC_MODELS) --ort $(ORT_DIR)

models-quant-tiny:
	$(PYTHON) models/export_quant.py --set tiny --out testdata/realmodels --ort $(ORT_DIR)

# BENCH_THREADS: the thread counts at which each model is timed, graphc's default pool
# (GRAPHC_NUM_THREADS) beside onnxruntime with as many intra-op threads (issue 33); "cores" is
# the host's CPU count (a count already listed is timed once). Each speed-up is printed as the
# median and the best sample, with the CPU time of each thread.
BENCH_THREADS ?= 1,2,cores
bench-real:
	$(GO) run ./cmd/graphc-bench -real -threads $(BENCH_THREADS) -model-dir $(GRAPHC_MODELS) -models "$(BENCH_MODELS)" $(BENCH_FLAGS)

# bench-profile: where one decoder's time goes, op by op (the kernels' cycle counters of
# --profile): its 25 slowest ops with their time per call, ONNX node and kernel strategy
bench-profile:
	$(GO) run ./cmd/graphc-bench -real -no-nodie -no-ort -profile 25 -model-dir $(GRAPHC_MODELS) -models $(PROFILE_MODEL)

# fuzz: every fuzz target (docs/fuzzing.md), one after another, each for FUZZTIME; FUZZFLAGS adds
# go test flags (e.g. FUZZFLAGS=-parallel=1 on a shared machine). It stops at the first target
# with a finding; the crashing input is in that package's testdata/fuzz/<Target>/. `go test`
# (make test, CI) runs the seed corpora only.
FUZZTIME ?= 1m
FUZZFLAGS ?=
FUZZ_TARGETS = \
	.:FuzzCompile \
	./frontend/onnx:FuzzImport \
	./frontend/tf:FuzzReadText \
	./ir:FuzzParse \
	./volume:FuzzParse \
	./volume:FuzzScan \
	./internal/calc:FuzzRun \
	./modelrt:FuzzParseSignature \
	./cmd/graphc:FuzzReadNpy

fuzz:
	@for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; name=$${t#*:}; \
	  echo "== $$name in $$pkg for $(FUZZTIME)"; \
	  $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) $$pkg || exit 1; \
	done

# hostile: the CLI on every file of the hostile corpus (the ONNX and TensorFlow fuzz corpora, 2,000
# nested Ifs and a 100,000-op chain, generated): each compiles or fails cleanly within 300 MB of
# peak RSS and 60 s of CPU (issue 37); the figures are logged, the costliest first.
hostile:
	GRAPHC_HOSTILE=1 $(GO) test -run '^TestHostileBounded$$' -count=1 -v -timeout 60m .

# soak: the thorough randomized runs of the README, one after another (hours of CPU; nice it on a
# shared machine): the volume oracles at SOAK_CASES cases for each of SOAK_SEEDS (with their
# too-complex counts), 30,000 random graphs per pipeline against the evaluator, 4,000 random
# graphs compiled and run, and every fuzz target for SOAK_FUZZTIME. It stops at the first
# failure. Record the results in docs/fuzzing.md ("Last local runs").
SOAK_SEEDS ?= 1 2 3 7 11 20261125
SOAK_CASES ?= 10000
SOAK_FUZZTIME ?= 10m
soak:
	@for s in $(SOAK_SEEDS); do \
	  echo "== volume oracles, $(SOAK_CASES) cases, seed $$s"; \
	  log=$$(mktemp); \
	  $(GO) test ./volume -run 'Oracle|Laws' -count=1 -timeout 12h -v -args -volume.cases=$(SOAK_CASES) -volume.seed=$$s > $$log 2>&1; st=$$?; \
	  grep -E '^(--- FAIL|ok|FAIL)|too complex|failed' $$log; rm -f $$log; \
	  [ $$st = 0 ] || exit 1; \
	done
	@echo "== pipelines against the evaluator, 30000 random graphs"
	$(GO) test ./passes -run Preserves -count=1 -timeout 12h -args -passes.graphs=30000
	@echo "== compiled random graphs, 4000"
	$(GO) test ./internal/e2e -run RandomGraphs -count=1 -timeout 12h -args -e2e.graphs=4000
	$(MAKE) fuzz FUZZTIME=$(SOAK_FUZZTIME) FUZZFLAGS="$(FUZZFLAGS)"

# proto: Go for ONNX's onnx.proto (Debian libonnx-dev) with protoc-gen-go pinned to the
# protobuf runtime version in go.mod.
proto:
	$(GO) install google.golang.org/protobuf/cmd/protoc-gen-go@$(PROTOC_GEN_GO_VERSION)
	PATH="$$PATH:$$($(GO) env GOPATH)/bin" protoc -I/usr/include/onnx \
	  --go_out=proto/onnxpb --go_opt=paths=source_relative \
	  --go_opt=Monnx.proto=github.com/graphc/graphc/proto/onnxpb onnx.proto
	PATH="$$PATH:$$($(GO) env GOPATH)/bin" protoc -I proto/tfpb \
	  --go_out=proto/tfpb --go_opt=paths=source_relative graph.proto

clean:
	rm -rf bin

.PHONY: conformance conformance-x86 conformance-hexagon conformance-aarch64
# conformance: the node tests of the suite found by internal/conformance/suite.go: -suite=DIR or
# $$GRAPHC_ONNX_TESTS, else ../shared/onnx-node-tests beside the repository, else make onnx-tests'
# checkout, else Debian's libonnx-testdata (CONFORMANCE_FLAGS=-suite=debian picks that one)
CONFORMANCE_FLAGS ?=
conformance:
	$(GO) run ./cmd/graphc-conformance -v $(CONFORMANCE_FLAGS)

# every test that passes in the evaluator, as compiled x86-64 code
conformance-x86:
	$(GO) run ./cmd/graphc-conformance -v -mode=x86 $(CONFORMANCE_FLAGS)

# every test that passes in the evaluator, as scalar hexagonv67 code under qemu-hexagon, then as
# hexagonv67 code with its default 128-byte HVX (integer loops vectorised)
conformance-hexagon:
	$(GO) run ./cmd/graphc-conformance -v -mode=hexagon $(CONFORMANCE_FLAGS)
	$(GO) run ./cmd/graphc-conformance -v -mode=hvx $(CONFORMANCE_FLAGS)

# onnx-tests: the current node-test suite for a clone without ../shared/onnx-node-tests: a
# sparse, shallow checkout of onnx/backend/test/data/node of the onnx repository at the pinned
# release tag, into ONNX_TESTS_DIR/node (git-ignored; internal/conformance finds .onnx-tests/node, another
# ONNX_TESTS_DIR needs GRAPHC_ONNX_TESTS=ONNX_TESTS_DIR/node). Needs git
# and network. Debian's libonnx-testdata is the offline alternative (onnx 1.12, older opsets).
ONNX_TESTS_TAG ?= v1.22.0
ONNX_TESTS_REPO ?= https://github.com/onnx/onnx.git
ONNX_TESTS_DIR ?= .onnx-tests
onnx-tests:
	rm -rf $(ONNX_TESTS_DIR)/src $(ONNX_TESTS_DIR)/node
	git clone --depth 1 --branch $(ONNX_TESTS_TAG) --filter=blob:none --sparse $(ONNX_TESTS_REPO) $(ONNX_TESTS_DIR)/src
	git -C $(ONNX_TESTS_DIR)/src sparse-checkout set onnx/backend/test/data/node
	mv $(ONNX_TESTS_DIR)/src/onnx/backend/test/data/node $(ONNX_TESTS_DIR)/node
	rm -rf $(ONNX_TESTS_DIR)/src
	@echo "$$(ls $(ONNX_TESTS_DIR)/node | wc -l) node tests of onnx $(ONNX_TESTS_TAG) in $(ONNX_TESTS_DIR)/node"

# every test that passes in the evaluator, as AArch64 code under qemu-aarch64: the baseline CPU
# (NEON), then cortex-x2 (dotprod, i8mm)
conformance-aarch64:
	$(GO) run ./cmd/graphc-conformance -v -mode=aarch64 $(CONFORMANCE_FLAGS)
	$(GO) run ./cmd/graphc-conformance -v -mode=aarch64 -mcpu=cortex-x2 $(CONFORMANCE_FLAGS)

# bench-mem: graphc's peak resident set (rusage Maxrss of `graphc MODEL -o out.ll`, run as a
# subprocess) on the real-model set and a generated 100,000-op chain, beside the weight bytes
# and issue 25's targets (2.5 × weights + 64 MB; the chain under 300 MB). BENCH_MODELS=chain,gpt2
# for some; MEM_FLAGS adds graphc flags.
MEM_FLAGS ?=
.PHONY: bench-mem
bench-mem:
	$(GO) run ./cmd/graphc-bench -mem -model-dir $(GRAPHC_MODELS) -models "$(BENCH_MODELS)" -mem-flags "$(MEM_FLAGS)"
