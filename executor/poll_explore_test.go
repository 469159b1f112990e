package executor

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/netpoll"
)

// The explorer on the network poller (-tags schedcheck, where the poller's
// kernel is poll_schedcheck.go's fake: a scenario makes a descriptor ready
// with pollInject, polls take the pending events, the eventfd is a flag
// and the blocking wait a note). Threads: the M, a spare for the parking
// task's P, sysmon (whose all-idle sleep is the blocking poll), and the
// outside thread. An M that parks while tasks wait for I/O blocks in the
// fake epoll_wait itself (mPoll), else sysmon does when every P idles. In
// every interleaving the task returns exactly once, Close returns and
// sysmon exits: a lost event or a lost break shows as a deadlock, a resume
// before the park as two holders of a P.
//
//	scenario        race                                        kill-matrix column
//	poll-ready      an event against the read's park: found by     pollready
//	                findRunnable's poll, sysmon's blocking poll,
//	                or as data before the park
//	poll-ready-2p   the same on 2 Ps: sysmon's round polls while   pollready2
//	                P1 idles, racing the park's commit on P0
//	poll-vs-close   Close against a blocking poll (sysmon's or an  pollclose
//	                M's) with a reader parked (evictAll's and
//	                stop's breaks)
//	poll-submit     a submit's takeP against sysmon entering its   pollsubmit
//	                blocking poll (the Dekker pair), then Close

// fakeFD is the descriptor number the scenarios register.
const fakeFD = 7

// readUntil is a reader's loop on f: until data (the cell) is set, prepare,
// look, wait; it returns the wait's error, if any.
func readUntil(t Task, f *FD, data *atomicx.Bool) error {
	for {
		if err := f.PrepareRead(); err != nil {
			return err
		}
		if data.Load() { // the read(2) that succeeds
			return nil
		}
		if err := f.WaitRead(t); err != nil {
			return err
		}
	}
}

// pollReached labels how a poll scenario ended, from the outside thread
// once Close has returned.
func pollReached(e *Executor) {
	np := e.np.Load()
	if pollBroken(e) != 0 {
		explore.Reached("a blocking poll ended by a break")
	}
	if np.blockSkips.Load() != 0 {
		explore.Reached("sysmon saw the waker before it blocked")
	}
}

// pollReadyCase is poll-ready on procs Ps: the outside thread stores the
// data and injects the event while the task reads.
func pollReadyCase(name string, procs int) exploreCase {
	return exploreCase{
		name: name, procs: procs, spares: 1, sysmon: true, tasks: 1,
		submit: func(e *Executor, ran []atomicx.Int32) {
			f := openFake(e)
			var data atomicx.Bool
			var done atomicx.Note
			explore.Name(&data, "data")
			explore.Name(&done, "done")
			_ = e.Go(func(t Task) {
				defer done.Wakeup()
				if err := readUntil(t, f, &data); err != nil {
					panic(err)
				}
				if np := e.np.Load(); np.readies.Load() != 0 {
					explore.Reached("parked, then readied by a poll")
					if earlyReadies(e) != 0 {
						explore.Reached("readied by a poll before the park committed")
					}
					if np.mPolls.Load() != 0 {
						explore.Reached("an M blocked in epoll_wait")
					}
				} else {
					explore.Reached("the data came before the park")
				}
				ran[0].Add(1)
			})
			data.Store(true)
			pollInject(e, netpoll.Read)
			done.Sleep() // Close fails the I/O of tasks that have not done it yet
		},
	}
}

// earlyReadies sums the Ps' parks readied before they committed.
func earlyReadies(e *Executor) uint64 {
	var n uint64
	for _, p := range e.ps {
		n += p.stats.earlyReadies.Load()
	}
	return n
}

// pollCloseCase parks a reader that never gets data, runs more (the
// submits of more tasks, each counted), then closes the executor: the
// reader must wake with ErrPollerClosed and sysmon must leave its poll.
func pollCloseCase(name string, procs, more int) exploreCase {
	return exploreCase{
		name: name, procs: procs, spares: 1, sysmon: true, tasks: 1 + more,
		submit: func(e *Executor, ran []atomicx.Int32) {
			f := openFake(e)
			var never atomicx.Bool
			_ = e.Go(func(t Task) {
				if err := readUntil(t, f, &never); errors.Is(err, ErrPollerClosed) {
					ran[0].Add(1)
				}
			})
			for i := range more {
				_ = e.Go(count(ran, 1+i)) // takeP against sysmon's way into the poll
			}
			if err := e.Close(); err != nil {
				panic(err)
			}
			pollReached(e)
		},
	}
}

// openFake waits for the spare, then registers fakeFD with the fake
// kernel, which takes descriptors only once pollFake has opted in.
func openFake(e *Executor) *FD {
	awaitSpares(e, 1)
	pollFake(e)
	f, err := e.OpenFD(fakeFD)
	if err != nil {
		panic(err)
	}
	return f
}

var pollCases = []exploreCase{
	pollReadyCase("poll-ready", 1),
	pollReadyCase("poll-ready-2p", 2),
	pollCloseCase("poll-vs-close", 1, 0),
	pollCloseCase("poll-submit", 1, 1),
}

// pollOptions are each poll scenario's options: PCT from a fixed seed
// (three threads beside sysmon's loop make bound 1 too wide), as many
// executions as its MustReach needs (each label reached several times in
// them), with its MustReach. poll-submit's "saw the waker" is a window of
// a few steps in sysmon: from seed 7, 2 of 1000 executions reach it (seed
// 2 reached it 3 times until SetProcs's loads moved the schedules; seeds 1
// to 9 reach it 0 to 2 times). Each scenario goes on from the next seeds
// while a label is unreached (pctOptions' Seeds; poll-submit's 8).
// poll-ready-2p's second label is the window PollReadyNoClaim needs (a
// poll's ready before the park commits): with it required, the mutant's
// kill rests on no one seed (seeds 1, 2, 3, 5 and 9 each reach the
// window and kill it).
func pollOptions(c exploreCase) explore.Options {
	o := map[string]struct {
		seed  int64
		n     int
		reach []string
	}{
		"poll-ready":    {1, 300, []string{"parked, then readied by a poll", "the data came before the park", "an M blocked in epoll_wait"}},
		"poll-ready-2p": {2, 1000, []string{"parked, then readied by a poll", "readied by a poll before the park committed"}},
		"poll-vs-close": {1, 300, []string{"a blocking poll ended by a break"}},
		"poll-submit":   {7, 1000, []string{"a blocking poll ended by a break", "sysmon saw the waker before it blocked"}},
	}[c.name]
	opts := pctOptions(c, o.reach...)
	opts.Seed, opts.MaxExecutions = o.seed, o.n
	if c.name == "poll-submit" {
		opts.Seeds = 8 // seeds 7 to 14: its window was lost twice by a seed
	}
	return opts
}

func TestExplorePoll(t *testing.T) {
	for _, c := range pollCases {
		t.Run(c.name, func(t *testing.T) { explore.Check(t, pollOptions(c), c.run) })
	}
}

// ExplorePoll runs the poll scenario named name for the kill matrix, with
// its MustReach; applicable is false without -tags schedcheck.
func ExplorePoll(name string) (applicable bool, err error) {
	for _, c := range pollCases {
		if c.name == name {
			return exploreCell(name, pollOptions(c), c.run, true)
		}
	}
	panic("executor: no poll scenario " + name)
}

// pollEarlyReady is a direct check of the poller's ready against a park
// not yet committed: a task starts its wait (Task.Waker: gParking) and a
// poll readies it before its Park, as a poll on another P can between the
// Desc's commit and gopark's. The ready must claim the park word and
// queue nothing (Park then returns at once); a token queued for an
// uncommitted park would resume the task before it parked
// (PollReadyNoClaim). With the mutant the token is moved to the global
// queue here, so the task still ends.
func pollEarlyReady(*testing.T) error {
	for _, procs := range []int{1, 2} {
		e, err := New(Config{Procs: procs})
		if err != nil {
			return err
		}
		np, err := e.netpoller()
		if err != nil {
			return err
		}
		done := make(chan error, 1)
		if err := e.Go(func(t Task) {
			k := t.Waker()
			np.readyFired(pollWaiter{k: k})
			queued := e.takeFired(nil, nil) != 0
			t.Park(k)
			if queued {
				done <- errors.New("a poll queued the resume token of a task that had not committed its park")
				return
			}
			done <- nil
		}); err != nil {
			return err
		}
		err = <-done
		if cerr := e.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// pollBlockSeesWaker is a direct check of sysmon's side of the Dekker
// pair in poller.block: a waker has cleared sysmonWait (and, finding no
// blocking poll, written no eventfd) before sysmon took the blocking
// slot. block must see the cleared flag and not wait: it counts a skip.
// A block that waited (BlockSkipsRecheck) would sleep through that
// wakeup; here it waits out the millisecond given it and counts nothing.
// The verdict is the count, not the time.
func pollBlockSeesWaker(*testing.T) error {
	// An executor whose goroutines never start: no sysmon to race the
	// flag this check sets by hand.
	e, err := build(Config{Procs: 1}, func(func()) {}, false)
	if err != nil {
		return err
	}
	np, err := e.netpoller()
	if err != nil {
		return err
	}
	defer np.sys.close()
	e.sysmonWait.Store(0) // the waker's CAS, as wakeSysmon does it
	took := np.block(time.Millisecond)
	if skips := np.blockSkips.Load(); !took || skips != 1 {
		return fmt.Errorf("sysmon's blocking poll waited after a waker had cleared sysmonWait (took %v, skips %d): the waker's wakeup is lost", took, skips)
	}
	return nil
}

// pollLeaveWakesSysmon is a direct check of mPoll's way out: an M leaves
// its blocking poll with nothing to run while a goroutine still waits on a
// descriptor, and sysmon, having found the poll taken, sleeps on its note
// with every P idle (sysmonWait 1). The M must wake sysmon (clear
// sysmonWait), or nobody polls again: the hang the servers' tests on the
// executor found (a goroutine in Accept, every M parked).
func pollLeaveWakesSysmon(*testing.T) error {
	e, err := build(Config{Procs: 1}, func(func()) {}, false) // no goroutine of its own runs
	if err != nil {
		return err
	}
	np, err := e.netpoller()
	if err != nil {
		return err
	}
	defer np.sys.close()
	np.waiting.Store(1)   // a goroutine waits on a descriptor
	e.sysmonWait.Store(1) // sysmon asleep on its note, the poll having been taken
	np.sys.wakeup()       // a break: the M's epoll_wait returns at once, with nothing
	if e.mPoll(e.newWorker()) {
		return errors.New("mPoll took a P with nothing readied")
	}
	if e.sysmonWait.Load() != 0 {
		return errors.New("an M left its blocking poll to park without waking sysmon: with every P idle nobody polls")
	}
	return nil
}

// pollChecks are this file's direct checks, for the kill matrix.
var pollChecks = map[string]func(*testing.T) error{
	"early": bubbled(pollEarlyReady),
	"block": pollBlockSeesWaker,
	"leave": pollLeaveWakesSysmon,
}

// PollCheck is the direct poll check named name, for the kill matrix.
func PollCheck(name string) func(*testing.T) error { return pollChecks[name] }

func TestPollChecks(t *testing.T) {
	for name, c := range pollChecks {
		t.Run(name, func(t *testing.T) {
			if err := c(t); err != nil {
				t.Fatal(err)
			}
		})
	}
}
