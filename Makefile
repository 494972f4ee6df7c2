# graphc build, test and tooling targets. `make help` lists them.

GO ?= go
PROTOC_GEN_GO_VERSION = v1.36.12

.PHONY: all build test lint demo bench proto help clean fuzz

all: build

help:
	@echo "make build   - build bin/graphc"
	@echo "make test    - gofmt/vet checks and the whole test suite (what CI runs)"
	@echo "make demo    - compile the bundled MatMul+Trilu model, run it, check it, show what DIE removed"
	@echo "make bench   - benchmarks (compiled code and compiler; the real-model set when exported)"
	@echo "make models  - export the real-model set from PyTorch into GRAPHC_MODELS (~/.cache/graphc-models)"
	@echo "make models-tiny - re-export the committed tiny models in testdata/realmodels"
	@echo "make bench-real  - the real-model set against onnxruntime (BENCH_MODELS=a,b to choose)"
	@echo "make bench-profile - per-kernel profile of one real model (PROFILE_MODEL=gpt2)"
	@echo "make fuzz    - every fuzz target for FUZZTIME each, one after another (FUZZTIME=10m for a real run)"
	@echo "make conformance-x86     - ONNX node tests as compiled x86-64 code"
	@echo "make conformance-hexagon - floating-point ONNX node tests as hexagonv67 code under qemu-hexagon"
	@echo "make proto   - regenerate proto/ (ONNX from Debian's libonnx-dev onnx.proto, the TensorFlow GraphDef subset)"

build:
	$(GO) build -o bin/graphc ./cmd/graphc

lint:
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^proto/')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

test: lint
	$(GO) test -timeout 30m ./...

demo:
	$(GO) run ./examples/demo

# bench: compiled code against onnxruntime and against --pipeline= (one table: MatMul, linear
# layers from GEMV to the lm head, GEMVs beside a plain read of their matrix), the real-model set
# against onnxruntime with per-family geometric means and the per-kernel profile of one decoder
# (when exported), then the Go benchmarks (volume operations, scanning, compile time,
# MatMul+Trilu die vs no die).
bench:
	$(GO) run ./cmd/graphc-bench
	@if [ -d "$(GRAPHC_MODELS)" ]; then $(MAKE) bench-real bench-profile; else echo "no real models in $(GRAPHC_MODELS): make models"; fi
	$(GO) test -run '^$$' -bench . -benchtime 3x ./...

# models: Debian's python3-torch, python3-torchvision and python3-onnx export the real-model set
# (random weights, fixed seeds; not needed by make test). The exports are cached outside git.
GRAPHC_MODELS ?= $(HOME)/.cache/graphc-models
PYTHON ?= /usr/bin/python3
BENCH_MODELS ?=
PROFILE_MODEL ?= gpt2
.PHONY: models models-tiny bench-real bench-profile
models:
	$(PYTHON) models/export.py --out $(GRAPHC_MODELS)

models-tiny:
	$(PYTHON) models/export.py --set tiny --force --out testdata/realmodels

bench-real:
	$(GO) run ./cmd/graphc-bench -real -model-dir $(GRAPHC_MODELS) -models "$(BENCH_MODELS)"

# bench-profile: where one decoder's time goes, kernel by kernel (perf, cpu-clock samples)
bench-profile:
	@if command -v perf >/dev/null; then $(GO) run ./cmd/graphc-bench -profile $(PROFILE_MODEL) -model-dir $(GRAPHC_MODELS); else echo "perf not installed: no per-kernel profile"; fi

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
	./internal/calc:FuzzRun

fuzz:
	@for t in $(FUZZ_TARGETS); do \
	  pkg=$${t%%:*}; name=$${t#*:}; \
	  echo "== $$name in $$pkg for $(FUZZTIME)"; \
	  $(GO) test -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) $(FUZZFLAGS) $$pkg || exit 1; \
	done

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

.PHONY: conformance conformance-x86 conformance-hexagon
conformance:
	$(GO) run ./cmd/graphc-conformance -v

# every test that passes in the evaluator, as compiled x86-64 code
conformance-x86:
	$(GO) run ./cmd/graphc-conformance -v -mode=x86

# every floating-point test that passes in the evaluator, as hexagonv67 code under qemu-hexagon
conformance-hexagon:
	$(GO) run ./cmd/graphc-conformance -v -mode=hexagon
