#!/usr/bin/env bash
# Every check of the project, the same on a laptop and in CI.
# Prints one line per step and ends with "test: N passed, N failed, N skipped".
# A step is skipped only when it cannot run here (TLC without tla2tools.jar or java).
#
# SCHEDKIT_TEST_STEPS="tlc ..." runs only the steps named (ids: gofmt vet vet-tags test explore
# checked killmatrix bench tlc), and SCHEDKIT_TLC_RUNNER replaces the schedkit binary the tlc step runs:
# cmd/schedkit's TestScriptTLCStep uses both to prove how the tlc step is counted.
set -uo pipefail
cd "$(dirname "$0")/.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Go keeps its build and module caches under $HOME by default. An empty HOME is fine (the
# modules come from GOPROXY again); no HOME at all leaves Go with neither cache, so give it
# ones outside the checkout that a second run reuses.
if [ "$(go env GOCACHE)" = off ] || [ -z "$(go env GOMODCACHE)" ]; then
	cache="${TMPDIR:-/tmp}/schedkit-go-$(id -u)"
	[ "$(go env GOCACHE)" = off ] && export GOCACHE="$cache/build"
	[ -z "$(go env GOMODCACHE)" ] && export GOPATH="$cache/path"
	echo "note: no HOME for Go's caches; using $cache"
fi

passed=0 failed=0 skipped=0
failed_ids=()
skip_rc=3 # what a skippable step exits with when it cannot run here

selected() { [ -z "${SCHEDKIT_TEST_STEPS:-}" ] || [[ " ${SCHEDKIT_TEST_STEPS//,/ } " == *" $1 "* ]]; }

# step ID NAME CMD...: CMD's exit code 0 passes and anything else fails.
step() {
	local id=$1 name=$2
	shift 2
	selected "$id" || return 0
	echo "== $name"
	local t0=$SECONDS
	if "$@" 2>&1 | tee "$tmp/$id.log"; then
		passed=$((passed + 1))
		echo "-- passed in $(elapsed "$t0"): $name"
	else
		failed=$((failed + 1))
		failed_ids+=("$id")
		echo "!! FAILED: $name (after $(elapsed "$t0"))"
	fi
}

# recap: CI keeps only the tail of this output, so each failed step's failure
# lines are printed again at the end (test failures, panics, the kill matrix's
# verdict lines), then its last lines.
recap() {
	local id
	for id in "${failed_ids[@]}"; do
		echo "== why $id failed (its failure lines, then its last 15)"
		grep -E -e '^(--- FAIL|FAIL|panic:|fatal error:|ok|!!)' -e '^ +[A-Za-z0-9_]+\.go:[0-9]+:' -e '^\s+(Error|Messages):' -e 'killmatrix\.go:[0-9]+' "$tmp/$id.log" | grep -v -e '^ok' -e 'slowest cells' | head -60
		echo "..."
		tail -n 15 "$tmp/$id.log"
	done
}

# elapsed T0: the time since $SECONDS was T0, as 1m05s.
elapsed() { local d=$((SECONDS - $1)); printf '%dm%02ds' $((d / 60)) $((d % 60)); }

# skippable_step ID NAME CMD...: as step, but exit code $skip_rc counts as skipped.
skippable_step() {
	local id=$1 name=$2 rc
	shift 2
	selected "$id" || return 0
	echo "== $name"
	local t0=$SECONDS
	"$@" 2>&1 | tee "$tmp/$id.log"
	rc=${PIPESTATUS[0]}
	if [ "$rc" -eq 0 ]; then
		passed=$((passed + 1))
		echo "-- passed in $(elapsed "$t0"): $name"
	elif [ "$rc" -eq "$skip_rc" ]; then
		skipped=$((skipped + 1))
		echo "-- SKIPPED: $name"
	else
		failed=$((failed + 1))
		failed_ids+=("$id")
		echo "!! FAILED: $name (exit code $rc)"
	fi
}

fmt_clean() {
	local bad
	bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
	[ -z "$bad" ] || { echo "gofmt would change: $bad"; return 1; }
}

# Every package but proofs/tla, whose TLC run is the tlc step below. The race
# step leaves out internal/killmatrix too: its tests start fake kill matrices'
# child processes (70 s under the race detector, with nothing shared to race
# on), and the explorer step runs them (it holds schedcheck files).
go_packages() { go list ./... | grep -v '/proofs/tla$'; }
unit_tests() { go test -race -short -count=1 $(go_packages | grep -v '/internal/killmatrix$'); }
# The explorer step: only the packages the schedcheck build changes (a file of
# theirs carries the tag) or whose tests drive the explorer; the rest would
# run the race step's tests again, unchanged (cmd/schedkit's alone took 74 s).
explorer_packages() {
	{
		git ls-files '*.go' | xargs grep -l '^//go:build.*schedcheck'
		git ls-files '*.go' | xargs grep -lE '"github.com/schedkit/schedkit/(internal/)?explore"'
	} | xargs -n1 dirname | sort -u | sed 's|^|./|'
}
# explorer_files: the test files the schedcheck build changes or that drive
# the explorer; explorer_runs: a -run pattern of their tests, examples and fuzz
# targets. The packages' other tests are the race step's, unchanged here.
explorer_files() {
	{
		git ls-files '*_test.go' | xargs grep -l '^//go:build.*schedcheck'
		git ls-files '*_test.go' | xargs grep -lE '"github.com/schedkit/schedkit/(internal/)?explore"'
		git ls-files 'explore/*_test.go' 'atomicx/*_test.go' # the explorer's own, all of them
		git ls-files 'internal/killmatrix/*_test.go'       # the harness's: left out of the race step
	} | sort -u
}
explorer_runs() {
	local names
	names=$(explorer_files | xargs sed -n 's/^func \(\(Test\|Example\|Fuzz\)[A-Za-z0-9_]*\)(.*/\1/p' | grep -v '^TestKillMatrix' | sort -u | paste -sd'|')
	echo "^($names)\$"
}
# SCHEDKIT_REQUIRE_SCHEDCHECK=1: a scenario that finds no explorer hook fails
# here instead of skipping (the build has the tag, so a skip would be a bug).
# Built with schedmutant too, as vet-tags and the kill matrix are, so that
# the three steps compile the packages once: no seeded fault is on (an
# exported SCHEDKIT_MUTATION is dropped here), and the matrices' own tests
# are the killmatrix step's, left out here.
explorer_tests() { SCHEDKIT_REQUIRE_SCHEDCHECK=1 env -u SCHEDKIT_MUTATION go test -tags schedcheck,schedmutant -short -count=1 -run "$(explorer_runs)" $(explorer_packages); }

# The schedkit_checked build: owner methods assert one owner at a time and a
# destination stolen into by one thief at a time. Only the packages with tests
# for it, run under the race detector.
checked_tests() {
	local pkgs
	pkgs=$(grep -l '^//go:build.*schedkit_checked' */*_test.go | xargs -n1 dirname | sort -u | sed 's|^|./|')
	go vet -tags schedkit_checked $pkgs && go test -race -tags schedkit_checked -short -count=1 $pkgs
}

# Every component with a kill matrix (and the workload servers under servers/); it prints as the test's log (-v).
kill_matrix() {
	local pkgs
	pkgs=$(grep -l 'killmatrix.Run' */killmatrix_test.go servers/*/killmatrix_test.go | xargs -n1 dirname | sed 's|^|./|')
	go test -tags schedcheck,schedmutant -short -count=1 -timeout 30m -run '^TestKillMatrix$' -v $pkgs |
		grep -v -e '^=== RUN' -e '^=== CONT' -e '^=== PAUSE'
}

# The bench module's own tests (the suite runner's, the workloads' checks),
# every benchmark once, then the front door: `schedkit bench -quick` runs the
# whole suite through the runner and writes nothing. BenchmarkSuite, go test's
# way into the same workloads, runs only its chain ones here: the runner runs
# every workload next, and running them twice cost 6 s of CPU.
bench_module() {
	(cd bench && go vet ./... && go test -count=1 -short -bench . -skip '^BenchmarkSuite$/^[^c]' -benchtime=1x ./...) &&
		go run ./cmd/schedkit bench -quick
}

# TLC runs from a binary built here, never through `go run`: go run turns every non-zero exit
# of the program into 1, and "skipped, no jar" (exit 3) would read as a failure.
tlc() {
	local bin=${SCHEDKIT_TLC_RUNNER:-}
	if [ -z "$bin" ]; then
		bin="$tmp/schedkit"
		go build -buildvcs=false -o "$bin" ./cmd/schedkit || return 1
	fi
	"$bin" tlc -jobs 3 # three models at once: most are small, and a JVM start is mostly one thread; two ran a quiet 2-core machine at 1.6 cores
	local rc=$?
	if [ "$rc" -eq "$skip_rc" ]; then
		echo "TLC skipped: no tla2tools.jar or java here (go run ./cmd/schedkit tlc -install fetches the jar)"
	fi
	return "$rc"
}

step gofmt "gofmt" fmt_clean
step vet "go vet" go vet ./...
step vet-tags "go vet -tags schedcheck,schedmutant" go vet -tags schedcheck,schedmutant ./...
step test "go test -race -short (unit, property, fuzz seeds, stress)" unit_tests
step explore "go test -tags schedcheck,schedmutant with no fault on (interleaving explorer on the real code)" explorer_tests
step checked "go test -tags schedkit_checked (single-owner and single-thief guards)" checked_tests
step killmatrix "kill matrix: every seeded mutant caught by at least two deterministic checkers" kill_matrix
step bench "bench module: vet, its tests, every benchmark once, schedkit bench -quick" bench_module
skippable_step tlc "TLC: every spec passes, every mutant is rejected" tlc

echo "all steps took $(elapsed 0)"
[ "$failed" -eq 0 ] || { recap; echo "failed: ${failed_ids[*]}"; }
echo "test: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
