// Package demo is schedkit demo: it hashes a directory tree on the
// executor and prints the per-P stats. cmd/schedkit runs it; with -prom,
// cmd/schedkit/demoprom runs it and adds the Prometheus scrape, so that
// cmd/schedkit itself imports only the standard library and the module's
// own packages (its usage must not wait for the Prometheus modules).
package demo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/trace"
	"strconv"
	"sync/atomic"
	"text/tabwriter"
	"time"

	"github.com/schedkit/schedkit/executor"
)

// Usage is demo's -h text.
const Usage = `usage: schedkit demo [-dir PATH] [-procs N] [-trace FILE] [-files N] [-blocking] [-maxblocking N] [-quiet] [-prom]

Hashes a directory tree in parallel on the executor: a task per directory
and per file, a group per directory whose Wait runs its children while it
waits, every read inside Task.Syscall (the P stays with a read that returns
within 20µs, and sysmon hands it off from one that takes longer while work
waits), or with -blocking inside Task.Blocking (the P is handed off before
every read). With -maxblocking N at most N reads are in progress at once:
a read past the cap parks its task (no M) until one returns, so the Ms
made stay near Procs+N. Prints the files, bytes and a digest of the whole tree (SHA-256
of each directory's sorted entries, the same on every run for the same
tree), then the per-P stats. Without -dir it generates a tree of -files
small files in a temporary directory and removes it afterwards.`

// Example is demo's -h example.
const Example = `  go run ./cmd/schedkit demo
  go run ./cmd/schedkit demo -dir "$(go env GOROOT)/src" -procs 4
  go run ./cmd/schedkit demo -blocking -maxblocking 4
  go run ./cmd/schedkit demo -trace demo.trace && go tool trace demo.trace
  go run ./cmd/schedkit demo -prom | grep '^schedkit_tasks_total'`

// demoStats are what a hash of a tree did.
type demoStats struct {
	files, dirs, bytes, skipped atomic.Int64
	// reading counts the reads in progress, mostReading the most at once:
	// what the Ms made beyond the Ps are judged against.
	reading, mostReading atomic.Int64
}

// treeHasher hashes a tree on an executor. A directory's digest is the
// SHA-256 of its entries in name order, each as a kind byte ('d' or 'f'),
// its name, a zero byte and its digest; a file's is the SHA-256 of its
// contents. Entries that are neither (symlinks, devices) are skipped.
type treeHasher struct {
	stats demoStats
	// blocking reads with Task.Blocking (the pessimistic path) instead of
	// Task.Syscall.
	blocking bool
}

// read runs a read on t's behalf: in Syscall, or Blocking if h.blocking.
func (h *treeHasher) read(t executor.Task, f func()) error {
	counted := func() {
		n := h.stats.reading.Add(1)
		for m := h.stats.mostReading.Load(); n > m && !h.stats.mostReading.CompareAndSwap(m, n); m = h.stats.mostReading.Load() {
		}
		defer h.stats.reading.Add(-1)
		f()
	}
	if h.blocking {
		return t.Blocking(counted)
	}
	return t.Syscall(counted)
}

// dir hashes the directory at path: its listing in read, then a task
// per entry in a group of its own.
func (h *treeHasher) dir(t executor.Task, path string) ([32]byte, error) {
	var ents []os.DirEntry
	var err error
	if berr := h.read(t, func() { ents, err = os.ReadDir(path) }); berr != nil {
		return [32]byte{}, berr
	}
	if err != nil {
		return [32]byte{}, err
	}
	h.stats.dirs.Add(1)
	sums := make([][32]byte, len(ents))
	kinds := make([]byte, len(ents))
	g, _ := t.NewGroup(context.Background())
	for i, de := range ents {
		p := filepath.Join(path, de.Name())
		switch {
		case de.IsDir():
			kinds[i] = 'd'
			g.Go(func(t executor.Task) (err error) { sums[i], err = h.dir(t, p); return err })
		case de.Type().IsRegular():
			kinds[i] = 'f'
			g.Go(func(t executor.Task) (err error) { sums[i], err = h.file(t, p); return err })
		default:
			h.stats.skipped.Add(1)
		}
	}
	if err := g.Wait(); err != nil {
		return [32]byte{}, err
	}
	d := sha256.New()
	for i, de := range ents {
		if kinds[i] == 0 {
			continue
		}
		d.Write([]byte{kinds[i]})
		d.Write([]byte(de.Name()))
		d.Write([]byte{0})
		d.Write(sums[i][:])
	}
	var sum [32]byte
	d.Sum(sum[:0])
	return sum, nil
}

// file hashes one file, inside read.
func (h *treeHasher) file(t executor.Task, path string) ([32]byte, error) {
	var sum [32]byte
	var n int64
	var err error
	berr := h.read(t, func() {
		f, oerr := os.Open(path)
		if oerr != nil {
			err = oerr
			return
		}
		defer f.Close()
		d := sha256.New()
		n, err = io.Copy(d, f)
		d.Sum(sum[:0])
	})
	if berr != nil {
		return sum, berr
	}
	if err != nil {
		return sum, err
	}
	h.stats.bytes.Add(n)
	h.stats.files.Add(1)
	return sum, nil
}

// hashTree hashes root on e with h and waits for it.
func hashTree(e *executor.Executor, root string, h *treeHasher) ([32]byte, error) {
	var sum [32]byte
	g, _ := e.NewGroup(context.Background())
	g.Go(func(t executor.Task) (err error) { sum, err = h.dir(t, root); return err })
	return sum, g.Wait()
}

// GenTree writes n small files of deterministic contents under dir, in
// directories of at most 30 files two levels deep: the same tree (and
// digest) for the same n on every run.
func GenTree(dir string, n int) error {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	buf := make([]byte, 8192)
	for i := range n {
		sub := filepath.Join(dir, "d"+strconv.Itoa(i/300), "d"+strconv.Itoa(i/30%10))
		if i%30 == 0 {
			if err := os.MkdirAll(sub, 0o755); err != nil {
				return err
			}
		}
		b := buf[:r.IntN(len(buf))]
		for j := range b {
			b[j] = byte(r.Uint32())
		}
		if err := os.WriteFile(filepath.Join(sub, "f"+strconv.Itoa(i)+".dat"), b, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Options are demo's flags.
type Options struct {
	Dir      string
	Procs    int
	Trace    string
	Files    int
	Blocking bool
	MaxBlock int
	Quiet    bool
	Prom     bool
}

// Register defines demo's flags on fs and returns where they land.
func Register(fs *flag.FlagSet) *Options {
	o := new(Options)
	fs.StringVar(&o.Dir, "dir", "", "the tree to hash (default: a generated one of -files files)")
	fs.IntVar(&o.Procs, "procs", 0, "Ps of the executor (0: GOMAXPROCS)")
	fs.StringVar(&o.Trace, "trace", "", "write a runtime/trace of the run to this file (`go tool trace FILE`)")
	fs.IntVar(&o.Files, "files", 3000, "without -dir: how many files the generated tree has")
	fs.BoolVar(&o.Blocking, "blocking", false, "read with Task.Blocking (hand the P off before every read) instead of Task.Syscall")
	fs.IntVar(&o.MaxBlock, "maxblocking", 0, "at most this many reads in progress at once; a read past it parks its task (Config.MaxBlocking; 0: no cap)")
	fs.BoolVar(&o.Quiet, "quiet", false, "no progress line (it is off anyway when stderr is not a terminal)")
	fs.BoolVar(&o.Prom, "prom", false, "at the end, print the Prometheus text a scrape of metrics/prom's collector returns (runs cmd/schedkit/demoprom, which builds the Prometheus client)")
	return o
}

// Scrape writes what a metrics scrape of e returns, after the run: the
// hook demoprom gives Run for -prom.
type Scrape func(w io.Writer, e *executor.Executor) error

// Run is `schedkit demo` with parsed flags: 0 when the tree was hashed, 1
// when it could not be (one line saying why), 2 for a bad flag value.
// scrape, if not nil, writes the -prom section after the table.
func Run(o Options, stdout, stderr io.Writer, scrape Scrape) int {
	fail := func(format string, args ...any) int {
		fmt.Fprintf(stderr, "schedkit demo: "+format+"\n", args...)
		return 1
	}
	if o.Prom && scrape == nil {
		fmt.Fprintln(stderr, "schedkit demo: -prom needs the Prometheus client, which this binary leaves out: go run ./cmd/schedkit/demoprom [flags]")
		return 2
	}
	if o.Procs < 0 || o.Procs > executor.MaxProcs {
		fmt.Fprintf(stderr, "schedkit demo: -procs %d: want 1..%d, or 0 for GOMAXPROCS\n", o.Procs, executor.MaxProcs)
		return 2
	}
	if o.Files < 1 {
		fmt.Fprintf(stderr, "schedkit demo: -files %d: want at least 1\n", o.Files)
		return 2
	}
	if o.MaxBlock < 0 {
		fmt.Fprintf(stderr, "schedkit demo: -maxblocking %d: want 0 (no cap) or more\n", o.MaxBlock)
		return 2
	}

	root := o.Dir
	generated := root == ""
	if generated {
		tmp, err := os.MkdirTemp("", "schedkit-demo-")
		if err != nil {
			return fail("cannot make a temporary directory (%v): pass -dir PATH to hash an existing tree", err)
		}
		defer os.RemoveAll(tmp)
		if err := GenTree(tmp, o.Files); err != nil {
			return fail("cannot generate the tree in %s (%v): pass -dir PATH to hash an existing tree", tmp, err)
		}
		root = tmp
	} else if fi, err := os.Stat(root); err != nil || !fi.IsDir() {
		return fail("-dir %s: not a directory you can read: pass an existing directory, such as \"$(go env GOROOT)/src\"", root)
	}

	var tf *os.File
	if o.Trace != "" {
		f, err := os.Create(o.Trace)
		if err != nil {
			return fail("-trace %s: cannot write it (%v): pass a path in a writable directory", o.Trace, errors.Unwrap(err))
		}
		tf = f
		if err := trace.Start(f); err != nil {
			f.Close()
			return fail("-trace: %v (is another trace running?)", err)
		}
	}

	e, err := executor.New(executor.Config{Procs: o.Procs, MaxBlocking: o.MaxBlock})
	if err != nil {
		if tf != nil {
			trace.Stop()
			tf.Close()
		}
		return fail("%v", err)
	}
	h := &treeHasher{blocking: o.Blocking}
	total := int64(-1) // unknown: a spinner
	if generated {
		total = int64(o.Files)
	}
	stopBar := startBar(stderr, o.Quiet, total, h.stats.files.Load)
	start := time.Now()
	sum, herr := hashTree(e, root, h)
	stopBar()
	elapsed := time.Since(start)
	cerr := e.Close()
	if tf != nil {
		trace.Stop()
		if err := tf.Close(); err != nil && herr == nil {
			herr = fmt.Errorf("-trace %s: %w", o.Trace, err)
		}
	}
	if herr != nil {
		return fail("%v: check that the tree is readable, or pass another -dir", herr)
	}
	if cerr != nil {
		return fail("the executor reported: %v", cerr)
	}

	what := root
	if generated {
		what = "a generated tree"
	}
	s := e.Stats()
	fmt.Fprintf(stdout, "demo: hashed %s: %d files, %d bytes, %d directories (%d entries skipped: not files or directories)\n",
		what, h.stats.files.Load(), h.stats.bytes.Load(), h.stats.dirs.Load(), h.stats.skipped.Load())
	fmt.Fprintf(stdout, "demo: digest %s\n", hex.EncodeToString(sum[:]))
	fmt.Fprintf(stdout, "demo: %d tasks on %d Ps and %d Ms in %v; latency from outside p50 %v p99 %v max %v\n\n",
		s.Total.Tasks, len(s.Procs), s.Ms, elapsed.Round(time.Millisecond), s.Latency.P50, s.Latency.P99, s.Latency.Max)
	how := "Task.Syscall"
	if h.blocking {
		how = "Task.Blocking"
	}
	fmt.Fprintf(stdout, "demo: %d Ms made beyond the %d Ps, for at most %d reads in progress at once (reads in %s)\n\n",
		s.Ms-len(s.Procs), len(s.Procs), h.stats.mostReading.Load(), how)
	printProcTable(stdout, s)
	fmt.Fprintln(stdout, "(RING and GLOBAL count takes from those queues, a task's resume after a read included;\n"+
		" HANDOFFS: Ps given away, by Blocking (-blocking) or a Wait; RETAKES: Ps sysmon took, mostly from reads in\n"+
		" Syscall past 20µs; Ms: worker goroutines made, one per P handed off while no M idled; PARKS: Ms that gave\n"+
		" the P back and slept, and in row \"no P\" Ms that slept holding none: new ones, or whose P was retaken or\n"+
		" handed to a task back from a read; WAITS: tasks that parked on the P (Task.Park: a channel, a future, a\n"+
		" timer) while their P went on; each column's \"all\" is the sum of the rows above it)")
	if o.Prom && scrape != nil {
		fmt.Fprintln(stdout, "\ndemo: the Prometheus scrape (metrics/prom):")
		if err := scrape(stdout, e); err != nil {
			return fail("-prom: %v", err)
		}
	}
	if tf != nil {
		fmt.Fprintf(stdout, "\ndemo: trace written to %s: go tool trace %s\n", o.Trace, o.Trace)
	}
	return 0
}

// startBar shows a progress line of the files hashed (read) on stderr,
// unless quiet or stderr is not a terminal, and returns what stops it
// (and clears the line).
func startBar(stderr io.Writer, quiet bool, total int64, read func() int64) (stop func()) {
	f, ok := stderr.(*os.File)
	if quiet || !ok || !isTerminal(f) {
		return func() {}
	}
	start := time.Now()
	show := func() {
		n := read()
		rate := float64(n) / max(time.Since(start).Seconds(), 1e-3)
		if total >= 0 {
			fmt.Fprintf(f, "\rhashing %d/%d files, %.0f files/s ", n, total, rate)
		} else {
			fmt.Fprintf(f, "\rhashing %d files, %.0f files/s ", n, rate)
		}
	}
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				show()
			}
		}
	}()
	return func() {
		close(done)
		<-stopped
		fmt.Fprint(f, "\r\033[K") // clear the line
	}
}

// isTerminal reports whether f is a terminal (a character device), with
// the standard library alone.
func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// printProcTable writes the per-P counters and their total as a table.
func printProcTable(w io.Writer, s executor.Stats) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "P\tTASKS\tRUNNEXT\tRING\tGLOBAL\tSTEALS\tSTOLEN\tHANDOFFS\tRETAKES\tHELPED\tPARKS\tSPINS\tWAITS\t")
	line := func(name string, p executor.ProcStats) {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t\n", name, p.Tasks, p.RunnextHits, p.RingGets,
			p.GlobalGets+p.GlobalBatchTasks, p.Steals, p.Stolen, p.Handoffs, p.Retakes, p.Helped, p.Parks, p.SpinStarts, p.TaskParks)
	}
	var parks, waits uint64
	for i, p := range s.Procs {
		line(strconv.Itoa(i), p)
		parks += p.Parks
		waits += p.TaskParks
	}
	// Total.Parks also counts the parks of Ms that held no P, and
	// Total.TaskParks those of tasks that held none (Stats): a row of
	// their own, so that every column's "all" is the sum above it.
	fmt.Fprintf(tw, "no P	-	-	-	-	-	-	-	-	-	%d	-	%d	\n", s.Total.Parks-parks, s.Total.TaskParks-waits)
	line("all", s.Total)
	tw.Flush()
}
