#!/bin/sh
# bench16.sh: the scaling run of issue 25 on a many-core machine, in one
# call: the chain against one global queue (chain-scaling: schedkit,
# globalqonly and go f()), tiny tasks from outside (tiny-one, tiny-batch:
# schedkit, go and the channel pool) and fork-join (forkjoin: Group,
# Join, go and the channel pool), each at GOMAXPROCS 1, 2, 4, 8 and 16,
# rounds interleaved in one process (bench/cmd/benchsuite).
#
# usage:
#   OUT=DIR scripts/bench16.sh          run, writing into DIR (made if missing)
#   scripts/bench16.sh build [FILE]     only build the suite runner (default
#                                       .bench16/benchsuite: ignored by git, for
#                                       a device call's carry) and exit
#
# It writes five files into $OUT, none in a subfolder (a device call brings
# back at most 8 files):
#   bench16.txt      the tables as the runner prints them (medians, ranges,
#                    ratios, the scaling over 1 P), with the machine named
#   bench16.md       the same as RESULTS.md's generated section
#   bench16.json     every sample and summary (benchsuite -json)
#   bench16.log      progress, one line per run, and the runner's errors
#   bench16-charts.tar  charts/*.svg
#
# Environment (all optional but OUT):
#   BENCH16_BIN        a runner built beforehand (scripts/bench16.sh build);
#                      default .bench16/benchsuite if it exists, else one
#                      is built with go (the device machine has no Go:
#                      build here, carry .bench16)
#   BENCH16_CPU        GOMAXPROCS values (default 1,2,4,8,16)
#   BENCH16_COUNT      rounds (default 3)
#   BENCH16_BENCHTIME  per run (default 300ms)
#   BENCH16_RUN        workloads, a regexp (default the four above)
#   BENCH16_IMPL       peers beside each workload's base (default
#                      go, globalqonly, chanpool and schedkit-join)
#
# On 2 vCPUs (load 5) -cpu 1,2 -count 1 took about 60 s, so 1..16 at
# count 3 is about 3 to 5 minutes on 16 idle cores; bench/RESULTS.md's
# "The run-queue experiment on 16 cores" says how the figures are read
# and recorded (with the machine named). The device call, from the
# checkout's root:
#   scripts/bench16.sh build    # here, once
#   run(command: "OUT=$OUT scripts/bench16.sh", carry: [".bench16"], timeout_s: 600)
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
bin_default="$root/.bench16/benchsuite"

build() {
	out=$1
	mkdir -p "$(dirname "$out")"
	(cd "$root/bench" && CGO_ENABLED=0 GOOS=linux GOARCH=amd64 go build -o "$out" ./cmd/benchsuite)
}

if [ "${1:-}" = build ]; then
	out=${2:-$bin_default}
	case $out in /*) ;; *) out="$PWD/$out" ;; esac
	build "$out"
	echo "bench16: built $out"
	exit 0
fi
if [ $# -ne 0 ]; then
	echo "bench16: unexpected argument $1 (usage: OUT=DIR scripts/bench16.sh, or scripts/bench16.sh build [FILE])" >&2
	exit 2
fi
: "${OUT:?bench16: set OUT to the directory the results go in}"
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

bin=${BENCH16_BIN:-}
tmp=$(mktemp -d)
mkdir -p "$tmp/res"
trap 'rm -rf "$tmp"' EXIT
if [ -z "$bin" ]; then
	if [ -x "$bin_default" ]; then
		bin=$bin_default
	else
		bin="$tmp/benchsuite"
		build "$bin"
	fi
fi

cpu=${BENCH16_CPU:-1,2,4,8,16}
count=${BENCH16_COUNT:-3}
benchtime=${BENCH16_BENCHTIME:-300ms}
runre=${BENCH16_RUN:-'^(chain-scaling|tiny-one|tiny-batch|forkjoin)$'}
implre=${BENCH16_IMPL:-'^(go|globalqonly|chanpool|schedkit-join)$'}

echo "bench16: $(nproc 2>/dev/null || echo '?') CPUs, load $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?'), runner $bin" >"$OUT/bench16.log"
status=0
# The runner writes RESULTS.md and charts/ into -out: a scratch folder,
# whose files are renamed into $OUT's flat list below.
(cd "$root/bench" && "$bin" -run "$runre" -impl "$implre" -cpu "$cpu" -count "$count" -benchtime "$benchtime" \
	-out "$tmp/res" -json "$OUT/bench16.json" \
	-cmdline "scripts/bench16.sh (BENCH16_CPU=$cpu BENCH16_COUNT=$count BENCH16_BENCHTIME=$benchtime)") \
	>"$OUT/bench16.txt" 2>>"$OUT/bench16.log" || status=$?
if [ -f "$tmp/res/RESULTS.md" ]; then
	cp "$tmp/res/RESULTS.md" "$OUT/bench16.md"
fi
if [ -d "$tmp/res/charts" ]; then
	tar -C "$tmp/res" -cf "$OUT/bench16-charts.tar" charts
fi
cat "$OUT/bench16.txt"
echo "bench16: exit status $status; wrote $(ls "$OUT" | tr '\n' ' ')"
exit $status
