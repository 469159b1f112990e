//go:build schedcheck

package executor

import "fmt"

// Exploring is an executor built for the interleaving explorer (package
// explore, -tags schedcheck), so that a package built on the executor
// (taskchan, future) can explore its own code running in real tasks: the
// executor's Ms, and the spare workers a parking task hands its P to, are
// the explorer's threads instead of goroutines. It exists only in the
// schedcheck build.
//
//	x := executor.NewExploring(executor.Config{Procs: 1}, 0, 1)
//	threads := append(x.Threads(), func() {
//		x.AwaitSpares()          // before a task parks
//		_ = x.E.Go(...)          // the scenario's tasks
//		closeErr = x.E.Close()
//	})
//	return explore.Run{Threads: threads, Check: func() error { return errors.Join(closeErr, x.Check()) }}
type Exploring struct {
	E       *Executor
	threads []func()
	spares  int
	started bool
	late    int
}

// NewExploring builds an executor with cfg's Procs Ps and Procs+extraM Ms,
// and spares spare workers, all to be run as the explorer's threads
// (Threads). A goroutine the executor would start during the run (a
// spare beyond those, a new M after a Goexit) does not run: Check reports
// it. Sysmon is not started: scenarios that need it are the executor's
// own.
func NewExploring(cfg Config, extraM, spares int) *Exploring {
	x := &Exploring{spares: spares}
	e, err := build(cfg, func(f func()) {
		if x.started {
			x.late++
			return
		}
		x.threads = append(x.threads, f)
	}, false)
	if err != nil {
		panic(err)
	}
	x.E = e
	for range e.procs + extraM {
		e.startM()
	}
	for range spares {
		y := e.newWorker()
		e.live.Add(1)
		x.threads = append(x.threads, func() {
			y.gid.Store(goid())
			defer e.mexit(y)
			e.schedule(y)
		})
	}
	return x
}

// Threads returns the executor's threads, and from then on counts any
// goroutine the executor starts as late (Check).
func (x *Exploring) Threads() []func() {
	x.started = true
	return append([]func(){}, x.threads...)
}

// AwaitSpares waits until the spare workers are listed, so that a task's
// park finds one (call it in the scenario's thread before a task parks).
func (x *Exploring) AwaitSpares() { x.E.awaitSpares(x.spares) }

// Check reports a goroutine started during the run, and tasks left in the
// global queue, after Close.
func (x *Exploring) Check() error {
	if x.late != 0 {
		return fmt.Errorf("executor: %d goroutines were started during the run (give NewExploring more spares)", x.late)
	}
	if n := x.E.global.Len(); n != 0 {
		return fmt.Errorf("executor: %d tasks left in the global queue", n)
	}
	return nil
}
