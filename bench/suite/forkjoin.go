package suite

import (
	"context"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	_ "unsafe" // go:linkname

	"github.com/alitto/pond/v2"
	"github.com/panjf2000/ants/v2"
	"github.com/sourcegraph/conc/pool"
	"golang.org/x/sync/errgroup"

	"github.com/schedkit/schedkit/executor"
)

// ForkDepth is the depth of the forkjoin tree: 20 (2^21-1 nodes, about 2M
// tasks), or 16 under Quick, where the goroutine-based peers would take
// seconds per depth-20 tree on a small shared machine.
func ForkDepth() int {
	if Quick {
		return 16
	}
	return 20
}

// maxForkDepth bounds ForkDepth, for the per-depth funcs made once.
const maxForkDepth = 20

// forkLeaves counts the leaves that ran, one counter per Go P (leaf): their
// sum is 2^depth when the tree is done.
var forkLeaves [64]leafCount

// leafCount is one Go P's count of leaves, alone on its two cache lines
// (the adjacent-line prefetcher pairs them).
type leafCount struct {
	n atomic.Int64
	_ [120]byte
}

// leaf counts a leaf on the counter of the Go P it runs on. With one shared
// counter every leaf's add pulled the line from the other core at 2 Ps:
// Task.Join's tree took 100 cpu-ns a node there (53 at 1 P), and 68 to 73
// with the leaves counting nothing (issue 25). That measured the counter's
// line, not the pools, and weighed most on the cheapest tree.
func leaf() {
	i := procPin()
	procUnpin()
	forkLeaves[i%len(forkLeaves)].n.Add(1)
}

// leaves sums the leaf counters; forkBench reads and resets them between
// trees only.
func leaves(reset bool) int64 {
	var s int64
	for i := range forkLeaves {
		if reset {
			forkLeaves[i].n.Store(0)
		} else {
			s += forkLeaves[i].n.Load()
		}
	}
	return s
}

// procPin and procUnpin are the runtime's (sync.Pool pins its shard the
// same way): the Go P the caller runs on, which it keeps until the unpin.
//
//go:linkname procPin runtime.procPin
func procPin() int

//go:linkname procUnpin runtime.procUnpin
func procUnpin()

// forkImpl is one implementation of the tree: open starts the pool and
// returns tree, which runs one whole tree of the given depth and returns
// when it is done, and close.
type forkImpl struct {
	name string
	open func(b *testing.B) (tree func(depth int), close func())
}

// Per-depth child funcs, made once, so that a node spawns its children
// without allocating a closure where the API lets the pool track the child
// (schedkit's group, errgroup, conc): kids*[d] runs a node of depth d-1,
// up to the root (d = maxForkDepth+1).
var (
	kidsSchedkit [maxForkDepth + 2]func(executor.Task) error
	kidsJoin     [maxForkDepth + 2]func(executor.Task)
	kidsErr      [maxForkDepth + 2]func() error
	kidsConc     [maxForkDepth + 2]func()
)

func init() {
	for d := 1; d <= maxForkDepth+1; d++ {
		kidsSchedkit[d] = func(t executor.Task) error { return nodeSchedkit(t, d-1) }
		kidsJoin[d] = func(t executor.Task) { nodeJoin(t, d-1) }
		kidsErr[d] = func() error { return nodeErrgroup(d - 1) }
		kidsConc[d] = func() { nodeConc(d - 1) }
	}
}

// nodeSchedkit spawns its two children locally in a group of the task and
// waits; the Wait runs queued tasks (its children first) meanwhile.
func nodeSchedkit(t executor.Task, d int) error {
	if d == 0 {
		leaf()
		return nil
	}
	g, _ := t.NewGroup(context.Background())
	g.Go(kidsSchedkit[d])
	g.Go(kidsSchedkit[d])
	return g.Wait()
}

// nodeJoin runs its two children with Task.Join: one inline, the other
// left in the P's runnext for a thief and taken back if none came.
func nodeJoin(t executor.Task, d int) {
	if d == 0 {
		leaf()
		return
	}
	if err := t.Join(kidsJoin[d], kidsJoin[d]); err != nil {
		panic(err)
	}
}

// nodeGo starts each child with a go statement and waits on a WaitGroup.
func nodeGo(d int) {
	if d == 0 {
		leaf()
		return
	}
	var wg sync.WaitGroup
	wg.Add(2)
	for range 2 {
		go func() {
			nodeGo(d - 1)
			wg.Done()
		}()
	}
	wg.Wait()
}

// nodeErrgroup gives each node its own errgroup: a shared one cannot be
// waited on per node. Its limit bounds only the node's own two children,
// so this is a go statement per child with errgroup's bookkeeping.
func nodeErrgroup(d int) error {
	if d == 0 {
		leaf()
		return nil
	}
	var g errgroup.Group
	g.SetLimit(Procs())
	g.Go(kidsErr[d])
	g.Go(kidsErr[d])
	return g.Wait()
}

// nodeConc gives each node its own conc pool, as nodeErrgroup does: a
// goroutine per child with the pool's bookkeeping.
func nodeConc(d int) {
	if d == 0 {
		leaf()
		return
	}
	p := pool.New().WithMaxGoroutines(Procs())
	p.Go(kidsConc[d])
	p.Go(kidsConc[d])
	p.Wait()
}

// nodeTry is the tree on a pool of bounded workers that cannot help while
// it waits: a child goes to a worker only if one is free at once (try), and
// otherwise runs inline in its parent (caller-runs). A child queued behind
// busy workers would deadlock the tree once every worker waits on its
// children, so a bounded pool has no other deadlock-free way.
func nodeTry(try func(func()) bool, d int) {
	if d == 0 {
		leaf()
		return
	}
	var wg sync.WaitGroup
	wg.Add(2)
	for range 2 {
		c := func() {
			nodeTry(try, d-1)
			wg.Done()
		}
		if !try(c) {
			c()
		}
	}
	wg.Wait()
}

// forkImpls are the implementations of forkjoin, schedkit first.
var forkImpls = []forkImpl{
	{"schedkit", func(b *testing.B) (func(int), func()) {
		e := NewExecutor(b, executor.Config{})
		return func(depth int) {
			g, _ := e.NewGroup(context.Background())
			g.Go(kidsSchedkit[depth+1])
			if err := g.Wait(); err != nil {
				b.Fatal(err)
			}
		}, func() {}
	}},
	{"schedkit-join", func(b *testing.B) (func(int), func()) {
		e := NewExecutor(b, executor.Config{})
		done := make(chan struct{}, 1)
		return func(depth int) {
			if err := e.Go(func(t executor.Task) { kidsJoin[depth+1](t); done <- struct{}{} }); err != nil {
				b.Fatal(err)
			}
			<-done
		}, func() {}
	}},
	{"go", func(b *testing.B) (func(int), func()) {
		return nodeGo, func() {}
	}},
	{"ants", func(b *testing.B) (func(int), func()) {
		p, err := ants.NewPool(Procs(), ants.WithNonblocking(true))
		if err != nil {
			b.Fatal(err)
		}
		try := func(f func()) bool { return p.Submit(f) == nil }
		return func(depth int) { nodeTry(try, depth) }, p.Release
	}},
	{"pond", func(b *testing.B) (func(int), func()) {
		// No queue, non-blocking: Go fails at once when every worker is busy.
		p := pond.NewPool(Procs(), pond.WithQueueSize(0), pond.WithNonBlocking(true))
		try := func(f func()) bool { return p.Go(f) == nil }
		return func(depth int) { nodeTry(try, depth) }, p.StopAndWait
	}},
	{"errgroup", func(b *testing.B) (func(int), func()) {
		return func(depth int) {
			if err := nodeErrgroup(depth); err != nil {
				b.Fatal(err)
			}
		}, func() {}
	}},
	{"conc", func(b *testing.B) (func(int), func()) {
		return nodeConc, func() {}
	}},
	{"chanpool", func(b *testing.B) (func(int), func()) {
		p := NewChanPool(Procs(), 0) // unbuffered: TrySubmit only to a waiting worker
		return func(depth int) { nodeTry(p.TrySubmit, depth) }, p.Close
	}},
}

// forkBench is one impl of forkjoin: one tree per op, ns/task per node, and
// stack-MiB, the largest StackInuse seen right after a tree. No warm-up
// round: one tree is warm-up enough for itself.
func forkBench(im forkImpl) func(b *testing.B) {
	return func(b *testing.B) {
		b.ReportAllocs()
		depth := ForkDepth()
		nodes := 1<<(depth+1) - 1
		tree, closePool := im.open(b)
		defer closePool()
		var stack uint64
		round := func() {
			leaves(true)
			tree(depth)
			if got := leaves(false); got != 1<<depth {
				b.Fatalf("%d leaves ran, want %d", got, 1<<depth)
			}
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms) // one stop per tree: noise next to it
			stack = max(stack, ms.StackInuse)
		}
		m := StartTasks(nodes)
		for b.Loop() {
			round()
		}
		m.Report(b)
		b.ReportMetric(float64(stack)/(1<<20), "stack-MiB")
	}
}

func init() {
	w := Workload{
		Name:  "forkjoin",
		Title: "fork-join tree of depth 20, 2^21-1 tasks",
		About: `One binary fork-join tree per op: every node of depth d > 0 spawns two
children of depth d-1 and waits for both; a leaf does one atomic add. Depth 20 is
2^21-1 nodes (about 2M tasks); -quick uses depth 16. The add goes to a
counter of the Go P the leaf runs on, so two cores' leaves share no line. ns/task is per node. The root
is submitted from outside. stack-MiB is the largest runtime.MemStats.StackInuse
seen right after a tree: the goroutine stacks the implementation needed (for
schedkit, the Ms' stacks, which hold the nested Waits).

What "spawn and wait" is in each:

- schedkit: Task.NewGroup, Group.Go (a local spawn into the P's runnext),
  Group.Wait (runs queued tasks, its own children first, while it waits).
- schedkit-join: Task.Join(a, b) per node (Rayon's join): b goes to the tail of
  the P's ring, where an idle M may steal it at once, a runs inline, b is taken
  back by its claim word and run inline unless a thief took it; a Join whose b
  was stolen runs queued tasks (or sleeps) until it is done. No group; a b
  taken back is left in the ring, dead, for its next get to drop.
- go: a go statement per child, a sync.WaitGroup per node.
- errgroup, conc: a new errgroup.Group (SetLimit(GOMAXPROCS)) or conc pool
  (WithMaxGoroutines(GOMAXPROCS)) per node, since a shared one cannot be waited
  on per node; its limit bounds only that node's two children, so this is a
  goroutine per child plus the library's bookkeeping, not a bounded pool.
- ants, pond, chanpool: one pool of GOMAXPROCS workers cannot nest waits without
  deadlock (every worker waiting on children queued behind them), so a child goes
  to a worker only when one is free at once (ants WithNonblocking, pond
  WithQueueSize(0) and WithNonBlocking, chanpool a try-send on an unbuffered
  channel) and otherwise runs inline in its parent (caller-runs), with a
  WaitGroup per node. Most nodes then run inline, depth first, as a plain
  recursion would.`,
	}
	for _, im := range forkImpls {
		w.Impls = append(w.Impls, Impl{Name: im.name, Bench: forkBench(im)})
	}
	Register(w)
}
