// Command netbench runs issue 24's network workloads (http-hello,
// http-echo, resp) against the same servers of servers/ on schedkit's
// executor (tasknet: a task per connection, parked on the poller) and on
// plain goroutines with package net, in one process and one run, driven by
// the in-process load generator (bench/netload, always there) and by the
// Debian tools when they are found: wrk and ab (apache2-utils) for HTTP,
// redis-benchmark (redis-tools) for RESP. net/http's server is a third
// HTTP impl, and redis-server, when its Debian package unpacks, the RESP
// ceiling. It prints a Markdown report: the machine, the load, the tool
// versions and which tool is missing and why, then per workload, driver,
// connection count and GOMAXPROCS the medians over -count rounds of req/s
// and p99 for the executor and each peer, and the ratio executor/peer (the
// median of the per-round ratios: above 1 is the executor ahead for req/s,
// below 1 for p99).
//
// A tool not in PATH is fetched (-tools auto) without root: apt-get
// download of its package and of the library packages it needs that dpkg
// does not list as installed, each unpacked with dpkg -x into -cache, the
// binary run with LD_LIBRARY_PATH. A tool that cannot be had is named, with
// why, and the run goes on without it.
//
// Rounds interleave: each round runs every cell once (every impl of a cell
// back to back), so a busy spell of a shared machine lands on the impls of
// a round alike. The server side runs at GOMAXPROCS Ps (the executor with as
// many Ps); the in-process generator shares that process, the tools run
// beside it.
//
//	cd bench && go run ./cmd/netbench -count 3                 # the recorded run
//	cd bench && go run ./cmd/netbench -quick -tools none       # a check that it runs
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/schedkit/schedkit/bench/netload"
	"github.com/schedkit/schedkit/internal/cputime"
)

type options struct {
	procs    []int
	conns    []int
	rconns   []int
	count    int
	requests int
	duration time.Duration
	tools    string
	cache    string
	run      *regexp.Regexp
	drivers  *regexp.Regexp
	wrkThr   int
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func parse(args []string, stderr io.Writer) (options, bool) {
	fs := flag.NewFlagSet("netbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	procs := fs.String("procs", "1,2", "GOMAXPROCS values (the executor gets as many Ps)")
	conns := fs.String("conns", "100,1000", "keep-alive connection counts of the HTTP workloads")
	rconns := fs.String("resp-conns", "50", "connection counts of the RESP workload (redis-benchmark's -c)")
	var o options
	fs.IntVar(&o.count, "count", 3, "rounds, interleaved")
	fs.IntVar(&o.requests, "requests", 20000, "requests per run (in-process generator, ab, redis-benchmark)")
	fs.DurationVar(&o.duration, "duration", 2*time.Second, "wrk's -d (whole seconds)")
	fs.IntVar(&o.wrkThr, "wrk-threads", 1, "wrk's -t (capped at the connection count)")
	fs.StringVar(&o.tools, "tools", "auto", "auto: PATH, the cache, else fetch with apt-get download; path: PATH and the cache only; none: the in-process generator only")
	fs.StringVar(&o.cache, "cache", netload.DefaultCache(), "where fetched tools are unpacked")
	runRE := fs.String("run", "", "only the workloads matching this regexp (http-hello, http-echo, resp)")
	drvRE := fs.String("drivers", "", "only the drivers matching this regexp (inproc, wrk, ab, redis-benchmark)")
	quick := fs.Bool("quick", false, "a check that it runs: 1 round, 8 connections, 400 requests, wrk 1s, GOMAXPROCS 1")
	if err := fs.Parse(args); err != nil {
		return o, false
	}
	var err error
	if o.procs, err = ints(*procs); err != nil {
		fmt.Fprintln(stderr, "netbench: -procs:", err)
		return o, false
	}
	if o.conns, err = ints(*conns); err != nil {
		fmt.Fprintln(stderr, "netbench: -conns:", err)
		return o, false
	}
	if o.rconns, err = ints(*rconns); err != nil {
		fmt.Fprintln(stderr, "netbench: -resp-conns:", err)
		return o, false
	}
	if *quick {
		o.count, o.conns, o.rconns, o.requests, o.duration, o.procs = 1, []int{8}, []int{8}, 400, time.Second, []int{1}
	}
	if o.count < 1 || o.requests < 1 {
		fmt.Fprintln(stderr, "netbench: -count and -requests must be positive")
		return o, false
	}
	if !slices.Contains([]string{"auto", "path", "none"}, o.tools) {
		fmt.Fprintf(stderr, "netbench: -tools %q: want auto, path or none\n", o.tools)
		return o, false
	}
	if o.run, err = regexp.Compile(*runRE); err != nil {
		fmt.Fprintln(stderr, "netbench: -run:", err)
		return o, false
	}
	if o.drivers, err = regexp.Compile(*drvRE); err != nil {
		fmt.Fprintln(stderr, "netbench: -drivers:", err)
		return o, false
	}
	return o, true
}

func ints(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("%q: want a comma-separated list of positive counts", s)
		}
		out = append(out, n)
	}
	return out, nil
}

// sample is one run of one impl in one cell.
type sample struct {
	rps    float64
	p99    time.Duration
	ms     int     // the executor's Ms after the run
	cpuReq float64 // this process's CPU µs per request (NaN: unknown)
	err    string
}

// cell is a workload driven one way at one connection count and GOMAXPROCS.
type cell struct {
	work    netload.Proto
	driver  string // inproc, wrk, ab, redis-benchmark
	test    string // redis-benchmark's test name, "" otherwise
	conns   int
	procs   int
	impls   []string
	samples map[string][]sample // by impl, one per round
}

func run(args []string, stdout, stderr io.Writer) int {
	o, ok := parse(args, stderr)
	if !ok {
		return 2
	}
	tools := map[string]*netload.Tool{}
	var missing []string
	if o.tools != "none" {
		for _, name := range []string{"wrk", "ab", "redis-benchmark", "redis-server"} {
			if !o.drivers.MatchString(name) && name != "redis-server" {
				continue
			}
			t, err := netload.Find(name, o.cache, o.tools == "auto")
			if err != nil {
				missing = append(missing, err.Error())
				fmt.Fprintln(stderr, "netbench: missing:", err)
				continue
			}
			tools[name] = t
			fmt.Fprintf(stderr, "netbench: %s: %s (%s)\n", name, t.Version, t.From)
		}
	} else {
		missing = append(missing, "wrk, ab, redis-benchmark, redis-server: not looked for (-tools none)")
	}

	var cells []*cell
	for _, procs := range o.procs {
		for _, w := range []netload.Proto{netload.HTTPHello, netload.HTTPEcho, netload.RESP} {
			if !o.run.MatchString(w.String()) {
				continue
			}
			impls := []string{netload.Executor, netload.Goroutines}
			drivers := []string{"inproc"}
			if w == netload.RESP {
				if tools["redis-server"] != nil {
					impls = append(impls, "redis-server")
				}
				drivers = append(drivers, "redis-benchmark")
			} else {
				impls = append(impls, netload.NetHTTP)
				drivers = append(drivers, "wrk", "ab")
			}
			for _, d := range drivers {
				if !o.drivers.MatchString(d) || (d != "inproc" && tools[d] == nil) {
					continue
				}
				conns := o.conns
				if w == netload.RESP {
					conns = o.rconns
				}
				for _, c := range conns {
					cells = append(cells, &cell{work: w, driver: d, conns: c, procs: procs, impls: impls, samples: map[string][]sample{}})
				}
			}
		}
	}
	loadStart := loadAvg()
	start := time.Now()
	var extra []*cell // redis-benchmark's tests past the first, made in round 1
	for round := range o.count {
		for _, c := range cells {
			for _, impl := range c.impls {
				fmt.Fprintf(stderr, "netbench: round %d/%d %v %s conns=%d procs=%d impl=%s\n", round+1, o.count, c.work, c.driver, c.conns, c.procs, impl)
				res := measure(o, tools, c, impl)
				for test, s := range res {
					if s.err != "" {
						fmt.Fprintf(stderr, "netbench:   %s: FAILED: %s\n", test, s.err)
					}
					dst := c
					if test != "" {
						dst = findTest(c, &extra, test)
					}
					dst.samples[impl] = append(dst.samples[impl], s)
				}
			}
		}
	}
	report(stdout, o, tools, missing, append(plainCells(cells), extra...), loadStart, loadAvg(), time.Since(start))
	for _, c := range append(plainCells(cells), extra...) {
		for _, ss := range c.samples {
			for _, s := range ss {
				if s.err != "" {
					return 1
				}
			}
		}
	}
	return 0
}

// plainCells leaves out the redis-benchmark cells, whose figures went to
// a cell per test.
func plainCells(cs []*cell) []*cell {
	var out []*cell
	for _, c := range cs {
		if c.driver != "redis-benchmark" {
			out = append(out, c)
		}
	}
	return out
}

func findTest(c *cell, extra *[]*cell, test string) *cell {
	for _, e := range *extra {
		if e.work == c.work && e.driver == c.driver && e.conns == c.conns && e.procs == c.procs && e.test == test {
			return e
		}
	}
	e := &cell{work: c.work, driver: c.driver, test: test, conns: c.conns, procs: c.procs, impls: c.impls, samples: map[string][]sample{}}
	*extra = append(*extra, e)
	return e
}

// measure runs impl's server for the cell and drives it once. The result
// is keyed by redis-benchmark's test name ("" for the other drivers).
func measure(o options, tools map[string]*netload.Tool, c *cell, impl string) map[string]sample {
	fail := func(err error) map[string]sample { return map[string]sample{"": {err: err.Error()}} }
	old := runtime.GOMAXPROCS(c.procs)
	defer runtime.GOMAXPROCS(old)
	runtime.GC()
	var (
		addr    string
		ms      = func() int { return 0 }
		stopSrv func() error
	)
	if impl == "redis-server" {
		a, stop, err := startRedis(tools["redis-server"])
		if err != nil {
			return fail(err)
		}
		addr, stopSrv = a, stop
	} else {
		s, err := netload.Start(impl, c.work, c.procs)
		if err != nil {
			return fail(err)
		}
		addr, ms, stopSrv = s.Addr, s.Ms, s.Close
	}
	cpu0, cpuOK := cputime.Process()
	out := map[string]sample{}
	var reqs float64
	switch c.driver {
	case "inproc":
		s, n := inproc(o, c, addr)
		out[""], reqs = s, n
	case "wrk":
		s, n := wrk(o, tools["wrk"], c, addr)
		out[""], reqs = s, n
	case "ab":
		out[""], reqs = ab(o, tools["ab"], c, addr), float64(o.requests)
	case "redis-benchmark":
		out, reqs = redisBenchmark(o, tools["redis-benchmark"], c, addr)
	}
	cpu1, cpuOK2 := cputime.Process()
	m := ms()
	if err := stopSrv(); err != nil {
		for k, s := range out {
			if s.err == "" {
				s.err = "closing the server: " + err.Error()
			}
			out[k] = s
		}
	}
	for k, s := range out {
		s.ms = m
		s.cpuReq = nan()
		if cpuOK && cpuOK2 && reqs > 0 && impl != "redis-server" { // its CPU is another process's
			s.cpuReq = float64((cpu1 - cpu0).Microseconds()) / reqs
		}
		out[k] = s
	}
	return out
}

func inproc(o options, c *cell, addr string) (sample, float64) {
	l, err := netload.Open(addr, c.work, c.conns)
	if err != nil {
		return sample{err: err.Error()}, 0
	}
	defer l.Close()
	if _, err := l.Run(2 * c.conns); err != nil { // warm up: every connection served once
		return sample{err: err.Error()}, 0
	}
	r, err := l.Run(max(o.requests, c.conns))
	if err != nil {
		return sample{err: err.Error()}, 0
	}
	return sample{rps: r.ReqPerSec(), p99: r.P99}, float64(r.Requests)
}

func toolCtx(d time.Duration) (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), d)
}

func wrk(o options, t *netload.Tool, c *cell, addr string) (sample, float64) {
	args := []string{"-t", strconv.Itoa(min(o.wrkThr, c.conns)), "-c", strconv.Itoa(c.conns),
		"-d", fmt.Sprintf("%ds", wrkSeconds(o.duration)), "--latency"}
	url := "http://" + addr + "/"
	if c.work == netload.HTTPEcho {
		script, err := echoScript()
		if err != nil {
			return sample{err: err.Error()}, 0
		}
		args = append(args, "-s", script)
		url += "echo"
	}
	ctx, cancel := toolCtx(o.duration + 30*time.Second)
	defer cancel()
	out, err := t.Command(ctx, append(args, url)...).CombinedOutput()
	if err != nil {
		return sample{err: fmt.Sprintf("wrk: %v: %s", err, out)}, 0
	}
	r, err := netload.ParseWrk(string(out))
	if err != nil {
		return sample{err: err.Error()}, 0
	}
	if r.Errors != "" {
		return sample{err: "wrk counted errors: " + r.Errors}, 0
	}
	return sample{rps: r.ReqPerSec, p99: r.P99}, r.ReqPerSec * float64(wrkSeconds(o.duration))
}

// wrkSeconds is d in whole seconds, at least 1: wrk's -d takes no
// milliseconds.
func wrkSeconds(d time.Duration) int { return max(1, int((d+time.Second/2)/time.Second)) }

// echoScript writes the wrk script that posts netload.EchoBody.
func echoScript() (string, error) {
	p := filepath.Join(os.TempDir(), "netbench-echo.lua")
	s := fmt.Sprintf("wrk.method = \"POST\"\nwrk.body = %q\nwrk.headers[\"Content-Type\"] = \"application/octet-stream\"\n", netload.EchoBody)
	return p, os.WriteFile(p, []byte(s), 0o644)
}

func ab(o options, t *netload.Tool, c *cell, addr string) sample {
	args := []string{"-q", "-k", "-c", strconv.Itoa(c.conns), "-n", strconv.Itoa(max(o.requests, c.conns))}
	url := "http://" + addr + "/"
	if c.work == netload.HTTPEcho {
		p := filepath.Join(os.TempDir(), "netbench-echo.body")
		if err := os.WriteFile(p, netload.EchoBody, 0o644); err != nil {
			return sample{err: err.Error()}
		}
		args = append(args, "-p", p, "-T", "application/octet-stream")
		url += "echo"
	}
	ctx, cancel := toolCtx(5 * time.Minute)
	defer cancel()
	out, err := t.Command(ctx, append(args, url)...).CombinedOutput()
	if err != nil {
		return sample{err: fmt.Sprintf("ab: %v: %s", err, out)}
	}
	r, err := netload.ParseAB(string(out))
	if err != nil {
		return sample{err: err.Error()}
	}
	if r.Errors != "" {
		return sample{err: "ab counted errors: " + r.Errors}
	}
	return sample{rps: r.ReqPerSec, p99: r.P99}
}

func redisBenchmark(o options, t *netload.Tool, c *cell, addr string) (map[string]sample, float64) {
	host, port, _ := net.SplitHostPort(addr)
	ctx, cancel := toolCtx(5 * time.Minute)
	defer cancel()
	out, err := t.Command(ctx, "-h", host, "-p", port, "-c", strconv.Itoa(c.conns), "-n", strconv.Itoa(o.requests),
		"-t", "ping,set,get,incr", "--csv").Output()
	if err != nil {
		return map[string]sample{"PING_INLINE": {err: fmt.Sprintf("redis-benchmark: %v: %s", err, out)}}, 0
	}
	rs, err := netload.ParseRedisBenchmark(string(out))
	if err != nil {
		return map[string]sample{"PING_INLINE": {err: err.Error()}}, 0
	}
	res := map[string]sample{}
	for k, r := range rs {
		res[k] = sample{rps: r.ReqPerSec, p99: r.P99}
	}
	return res, float64(o.requests * len(rs))
}

// startRedis starts redis-server on a free loopback port, without
// persistence, and waits until it answers.
func startRedis(t *netload.Tool) (string, func() error, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	addr := l.Addr().String()
	l.Close()
	_, port, _ := net.SplitHostPort(addr)
	cmd := t.Command(context.Background(), "--port", port, "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no", "--loglevel", "warning")
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() error {
		cmd.Process.Kill()
		cmd.Wait()
		return nil
	}
	for i := 0; ; i++ {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return addr, stop, nil
		}
		if i == 100 {
			stop()
			return "", nil, fmt.Errorf("redis-server did not answer on %s in 5 s", addr)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "CPU model unknown"
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "CPU model unknown"
}
