#!/usr/bin/env bash
# Every check of the project, the same on a laptop and in CI.
# Prints one line per step and ends with "test: N passed, N failed".
set -uo pipefail
cd "$(dirname "$0")/.."

passed=0 failed=0 skipped=0
step() {
	local name=$1
	shift
	echo "== $name"
	if "$@"; then
		passed=$((passed + 1))
	else
		failed=$((failed + 1))
		echo "!! FAILED: $name"
	fi
}

fmt_clean() {
	local bad
	bad=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go'))
	[ -z "$bad" ] || { echo "gofmt would change: $bad"; return 1; }
}

# Every package but proofs/tla, whose TLC run is the tlc step below.
go_packages() { go list ./... | grep -v '/proofs/tla$'; }

# Every component with a kill matrix; it prints as the test's log (-v).
kill_matrix() {
	local pkgs
	pkgs=$(grep -l 'killmatrix.Run' */killmatrix_test.go | xargs -n1 dirname | sed 's|^|./|')
	go test -tags schedcheck,schedmutant -short -count=1 -run '^TestKillMatrix$' -v $pkgs |
		grep -v -e '^=== RUN' -e '^=== CONT' -e '^=== PAUSE'
}

bench_module() { (cd bench && go vet ./... && go test -count=1 -run '^$' -bench . -benchtime=1x ./...); }

tlc() {
	go run ./cmd/schedkit tlc
	local rc=$?
	if [ "$rc" -eq 3 ]; then
		echo "TLC skipped: no tla2tools.jar (see proofs/tla/README.md to get one)"
		skipped=$((skipped + 1))
		return 0
	fi
	return "$rc"
}

step "gofmt" fmt_clean
step "go vet" go vet ./...
step "go vet -tags schedcheck,schedmutant" go vet -tags schedcheck,schedmutant ./...
step "go test -race -short (unit, property, fuzz seeds, stress)" go test -race -short -count=1 $(go_packages)
step "go test -tags schedcheck (interleaving explorer on the real code)" go test -tags schedcheck -short -count=1 $(go_packages)
step "kill matrix: every seeded mutant caught by at least two checkers" kill_matrix
step "bench module: vet and every benchmark once" bench_module
step "TLC: every spec passes, every mutant is rejected" tlc

echo "test: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
