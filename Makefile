# graphc build, test and tooling targets. `make help` lists them.

GO ?= go
PROTOC_GEN_GO_VERSION = v1.36.12

.PHONY: all build test lint demo bench proto help clean

all: build

help:
	@echo "make build   - build bin/graphc"
	@echo "make test    - gofmt/vet checks and the whole test suite (what CI runs)"
	@echo "make demo    - compile the bundled MatMul+Trilu model, run it, check it, show what DIE removed"
	@echo "make bench   - benchmarks (compiled code and compiler)"
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

# bench: compiled code against onnxruntime and against --pipeline= (one table), then the Go
# benchmarks (volume operations, scanning, compile time, MatMul+Trilu die vs no die).
bench:
	$(GO) run ./cmd/graphc-bench
	$(GO) test -run '^$$' -bench . -benchtime 3x ./...

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

.PHONY: conformance
conformance:
	$(GO) run ./cmd/graphc-conformance -v
