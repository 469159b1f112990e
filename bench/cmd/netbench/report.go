package main

import (
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/netload"
)

func nan() float64 { return math.NaN() }

// median of xs (NaN for none).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return nan()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// good is the samples of impl that did not fail, in round order; ok is
// false if any failed.
func good(c *cell, impl string) (ss []sample, ok bool) {
	for _, s := range c.samples[impl] {
		if s.err != "" {
			return nil, false
		}
		ss = append(ss, s)
	}
	return ss, len(ss) > 0
}

func fmtRate(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.0f", v)
}

func fmtDur(d float64) string {
	if math.IsNaN(d) {
		return "–"
	}
	return time.Duration(d).Round(time.Microsecond).String()
}

func fmtRatio(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.2f", v)
}

func report(w io.Writer, o options, tools map[string]*netload.Tool, missing []string, cells []*cell, loadStart, loadEnd string, took time.Duration) {
	fmt.Fprintf(w, "Machine: %s/%s, %s, NumCPU %d; %s\n", runtime.GOOS, runtime.GOARCH, cpuModel(), runtime.NumCPU(), runtime.Version())
	fmt.Fprintf(w, "Load average (1, 5, 15 min): %s before, %s after; the run took %v\n", loadStart, loadEnd, took.Round(time.Second))
	fmt.Fprintf(w, "Rounds: %d, interleaved; in-process generator and ab: %d requests per run; wrk: -t %d -d %ds; redis-benchmark: -n %d\n",
		o.count, o.requests, o.wrkThr, wrkSeconds(o.duration), o.requests)
	for _, name := range []string{"wrk", "ab", "redis-benchmark", "redis-server"} {
		if t := tools[name]; t != nil {
			fmt.Fprintf(w, "Tool %s: %s (from %s)\n", name, t.Version, t.From)
		}
	}
	for _, m := range missing {
		fmt.Fprintf(w, "Missing: %s\n", m)
	}
	fmt.Fprintln(w, "req/s and p99: medians over the rounds; the ratios executor/peer: medians of the per-round ratios (req/s above 1 and p99 below 1: the executor ahead).")
	fmt.Fprintln(w, "Executor Ms: Stats.Ms after the run (Ms made). CPU µs/req: this process's CPU time per request (getrusage): the server and the generator with inproc, the server alone with a tool; – for redis-server (another process).")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| workload | driver | conns | Ps | peer | executor req/s | peer req/s | req/s executor/peer | executor p99 | peer p99 | p99 executor/peer | executor Ms | CPU µs/req executor, peer |")
	fmt.Fprintln(w, "|---|---|---:|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|")
	slices.SortStableFunc(cells, func(a, b *cell) int {
		if a.work != b.work {
			return int(a.work) - int(b.work)
		}
		if a.driver != b.driver {
			return strings.Compare(a.driver, b.driver)
		}
		if a.test != b.test {
			return strings.Compare(a.test, b.test)
		}
		if a.conns != b.conns {
			return a.conns - b.conns
		}
		return a.procs - b.procs
	})
	for _, c := range cells {
		base, baseOK := good(c, c.impls[0])
		driver := c.driver
		if c.test != "" {
			driver += " " + c.test
		}
		for _, peer := range c.impls[1:] {
			ps, peerOK := good(c, peer)
			if _, ran := c.samples[peer]; !ran {
				continue
			}
			row := []string{c.work.String(), driver, fmt.Sprint(c.conns), fmt.Sprint(c.procs), peer}
			var bRate, pRate, bP99, pP99, bMs, bCPU, pCPU, rRate, rP99 = nan(), nan(), nan(), nan(), nan(), nan(), nan(), nan(), nan()
			if baseOK {
				bRate, bP99, bMs, bCPU = med(base, rate), med(base, p99), med(base, msf), med(base, cpu)
			}
			if peerOK {
				pRate, pP99, pCPU = med(ps, rate), med(ps, p99), med(ps, cpu)
			}
			if baseOK && peerOK {
				var rr, rp []float64
				for i := range min(len(base), len(ps)) {
					rr = append(rr, base[i].rps/ps[i].rps)
					if ps[i].p99 > 0 {
						rp = append(rp, float64(base[i].p99)/float64(ps[i].p99))
					}
				}
				rRate, rP99 = median(rr), median(rp)
			}
			fail := ""
			if !baseOK {
				fail = " (executor FAILED: " + firstErr(c, c.impls[0]) + ")"
			}
			if !peerOK {
				fail += " (peer FAILED: " + firstErr(c, peer) + ")"
			}
			row = append(row, fmtRate(bRate), fmtRate(pRate), fmtRatio(rRate), fmtDur(bP99), fmtDur(pP99), fmtRatio(rP99),
				fmtRate(bMs), fmt.Sprintf("%s, %s%s", fmtCPU(bCPU), fmtCPU(pCPU), fail))
			fmt.Fprintln(w, "| "+strings.Join(row, " | ")+" |")
		}
	}
}

func fmtCPU(v float64) string {
	if math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.1f", v)
}

func firstErr(c *cell, impl string) string {
	for _, s := range c.samples[impl] {
		if s.err != "" {
			e := strings.ReplaceAll(s.err, "\n", " ")
			if len(e) > 200 {
				e = e[:200] + "…"
			}
			return strings.ReplaceAll(e, "|", "/")
		}
	}
	return "no run"
}

func rate(s sample) float64 { return s.rps }
func p99(s sample) float64  { return float64(s.p99) }
func msf(s sample) float64  { return float64(s.ms) }
func cpu(s sample) float64  { return s.cpuReq }

func med(ss []sample, f func(sample) float64) float64 {
	var xs []float64
	for _, s := range ss {
		if v := f(s); !math.IsNaN(v) {
			xs = append(xs, v)
		}
	}
	return median(xs)
}
