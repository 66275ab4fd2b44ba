# kubecache — the commands a newcomer and CI run.
#
#   make demo   the embedded fake API server with a live workload, mirrored
#               by a reflector (no cluster needed), and a live web page of
#               it: open the address it prints
#   make test   the whole test suite (what .ci/run runs)

GO        ?= go
PKGS      := ./...
FUZZTIME  ?= 10s
BENCHTIME ?= 1s

.PHONY: all build test vet fmt-check tidy-check bench fuzz demo chaos clean

all: build

build:
	$(GO) build $(PKGS)

fmt-check:
	@out=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

vet:
	$(GO) vet $(PKGS)

# tidy-check: go.mod and go.sum say exactly what the code imports (fails
# with the diff otherwise; fix with go mod tidy). It reads only the module
# cache, which .ci/run fills first.
tidy-check:
	$(GO) mod tidy -diff

# test: formatting, vet, a tidy go.mod, then every package under the race
# detector. The reflector's randomized fault test runs for
# KUBECACHE_CHAOS_BUDGET (a minute here; longer in make chaos).
KUBECACHE_CHAOS_BUDGET ?= 60s
export KUBECACHE_CHAOS_BUDGET

test: fmt-check vet tidy-check
	$(GO) test -race -count=1 -timeout 9m $(PKGS)

# bench: the in-repo benchmark suite (decoder, store, informer end to end
# against the fake API server; figures in docs/performance.md). Every
# package has more benchmarks of its own: go test -bench . ./<pkg>/
BENCH_PKGS ?= ./bench/ ./meta/ ./watch/
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) $(BENCH_PKGS)

# fuzz: a short run of every fuzz target (FUZZTIME each). The fuzzer
# minimizes every new interesting input before going on, for up to 60 s
# by default: a target whose inputs are slow to minimize (large JSON
# documents) then looks stalled. FUZZMINIMIZETIME bounds that.
FUZZMINIMIZETIME ?= 1s
fuzz:
	@set -e; for pkg in $$($(GO) list $(PKGS)); do \
	  dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
	  for t in $$(grep -ho '^func Fuzz[A-Za-z0-9_]*' $$dir/*_test.go 2>/dev/null | sed 's/func //'); do \
	    echo "== $$pkg $$t ($(FUZZTIME))"; \
	    $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME) $$pkg; \
	  done; \
	done

# chaos: the long form of internal/reliability — the chaos test for
# CHAOSTIME (default 2m) with a seeded fault plan (CHAOSSEED=0 picks one and
# prints it), the fault matrix with its long rows (the 128 MiB frame) and
# the leak test at 1,000 informers, the servers of the chaos test and of
# every matrix row flooded meanwhile with idle, stalled and HTTP/2-preface
# connections (-chaos.flood); then the reflector's own randomized test for
# the same time (KUBECACHE_CHAOS_SEED=<seed> replays a schedule).
# The short form runs in make test.
chaos:
	$(GO) test -race -count=1 -v -timeout 30m -run '^(TestChaos|TestFaultMatrix|TestThousandInformersLeaveNothingBehind)$$' ./internal/reliability \
	  -reliability.long -chaos.flood -chaos.duration=$(or $(CHAOSTIME),2m) -chaos.seed=$(or $(CHAOSSEED),0)
	KUBECACHE_CHAOS_BUDGET=$(or $(CHAOSTIME),2m) $(GO) test -race -count=1 -v -timeout 30m -run '^TestChaos$$' ./reflector/

# demo: the fake API server, a workload and a reflector narrating itself,
# with a live web view (the address is printed; DEMOFLAGS adds flags).
demo:
	$(GO) run ./cmd/kubecache demo --web $(DEMOFLAGS)

clean:
	$(GO) clean -testcache

-include Makefile.e2e
