package executor

import (
	"runtime"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/lfq"
)

// Outside submits without a bound (Go, GoContext, TryGo and GoBatch with
// Config.MaxQueued 0) go through e.inj, a globalq.Inject in front of the
// global queue: the submitter writes a func and, for one task in
// LatencySample, its submit time into a slot, with one atomic add and no
// lock, then wakes an M as any submit does. An M that looks at the global
// queue (globalBatch, the fairness tick's globalGet) first drains the
// buffer (injectDrain): it makes each task's record from its own P's free
// list (gfget, no lock, a record its core freed) and appends the batch to
// the global queue in one lock, whose FIFO, batch share and 1-in-61 check
// then apply unchanged. So a record never crosses cores from the
// submitter, and a submit takes no lock; before, each took the free list's
// lock and the global queue's, and wrote a record the M's core had freed.
//
// Submits under a bound, and a group's, keep the record path (submit): the
// record carries what they need (bound, the group). Such a submit first
// moves the buffer to the global queue (injectFlush), so it cannot overtake
// a task its goroutine submitted through the buffer before.
//
// Exactly once: a value is drained once (the buffer's claim), becomes one
// record, which goes through the global queue as any. Close: a submit
// counts itself in inflight before it looks at closing and leaves after
// its Put, as the record path does, so the quiescence checks (checkDead,
// checkQuiet, abandoned) see its task in the buffer through work(). They
// pass only with the buffer empty and no submit in flight, and every later
// submit sees closing: so the buffer is empty for good once Close's or
// Shutdown's wait ends, and drainStopped has nothing to take from it.

// injected is one outside task in the injection buffer: its func and its
// submit time (0 unless sampled).
type injected struct {
	fn func(Task)
	at int64
}

// injectBatch is the most values an M drains at once: the global batch's
// size, so one drain fills one P's share.
const injectBatch = lfq.Size / 2

// injectChunk is how many values GoBatch hands the buffer at once, from
// an array on its stack.
const injectChunk = 64

// inject submits f from outside through the injection buffer (Go,
// GoContext and TryGo without a bound).
func (e *Executor) inject(f func(Task)) error {
	if mutant == submitChecksBeforeInflight && e.closing.Load() != 0 {
		return ErrClosed
	}
	e.inflight.Add(1)
	if e.closing.Load() != 0 && mutant != submitChecksBeforeInflight {
		e.leave()
		return ErrClosed
	}
	v := injected{fn: f}
	if (e.submits.Add(1)-1)%LatencySample == 0 {
		v.at = atomicx.Nanotime()
	}
	if !e.inj.Put(v) {
		e.injectFull(v)
	}
	e.wakeSubmitted(1)
	e.leave()
	return nil
}

// injectBatch submits fs through the injection buffer (GoBatch without a
// bound), injectChunk at a time, waking an M after each chunk so that the
// Ms start on the first while the rest go in.
func (e *Executor) injectBatch(fs []func(Task)) error {
	if mutant == submitChecksBeforeInflight && e.closing.Load() != 0 {
		return ErrClosed
	}
	e.inflight.Add(1)
	if e.closing.Load() != 0 && mutant != submitChecksBeforeInflight {
		e.leave()
		return ErrClosed
	}
	n := uint64(len(fs))
	first := e.submits.Add(n) - n
	var now int64
	var buf [injectChunk]injected
	for off := 0; off < len(fs); off += injectChunk {
		part := fs[off:min(len(fs), off+injectChunk)]
		vs := buf[:len(part)]
		for i, f := range part {
			vs[i] = injected{fn: f}
			if (first+uint64(off+i))%LatencySample == 0 {
				if now == 0 {
					now = atomicx.Nanotime()
				}
				vs[i].at = now
			}
		}
		for len(vs) > 0 {
			k := e.inj.PutBatch(vs)
			if k > 0 {
				e.wakeSubmitted(k)
			} else {
				e.injectFull(vs[0])
				k = 1
			}
			vs = vs[k:]
		}
	}
	clear(buf[:])
	e.leave()
	return nil
}

// injectFull puts v after finding the injection buffer full. Once, it
// yields its goroutine first (runtime.Gosched), as a channel pool's sender
// blocks on a full buffer: the Ms it woke drain the buffer meanwhile. If
// the buffer is still full it drains the buffer itself, into the global
// queue's tail, with records from the global free list (the record path's,
// one lock for the batch), and puts v behind them, so v still comes after
// every value it put before. It never waits for an M.
func (e *Executor) injectFull(v injected) {
	for yielded := false; ; {
		if !yielded {
			yielded = true
			e.wakeSubmitted(1)
			runtime.Gosched()
		} else {
			var vbuf [injectBatch]injected
			vs, _ := e.inj.TryDrainTo(vbuf[:0], len(vbuf), func(vs []injected) {
				var tbuf [injectBatch]*task
				ts := tbuf[:len(vs)]
				e.records(ts)
				for i, x := range vs {
					ts[i].fn, ts[i].at = x.fn, x.at
				}
				e.global.PutBatch(ts)
			})
			if len(vs) == 0 {
				runtime.Gosched() // an M drains it now, or its submitter has not published yet
			} else {
				e.wakeSubmitted(len(vs))
			}
		}
		if e.inj.Put(v) {
			return
		}
	}
}

// globalEmpty reports whether the global queue and the injection buffer
// in front of it were both empty (two loads each).
func (e *Executor) globalEmpty() bool {
	return e.global.Empty() && (e.inj.Empty() || mutant == workIgnoresInject)
}

// injectDrain moves what the injection buffer holds, up to injectBatch
// tasks, to the global queue's tail, as records from p's free list. Holder
// only (gfget). Another M draining, or a buffer that looks empty, costs
// nothing; a drain that found only a slot whose submitter had not yet
// published waits for it (awaitSpawn), as a claim does.
func (e *Executor) injectDrain(p *proc) {
	if e.inj.Empty() {
		return
	}
	vs, pending := e.inj.TryDrainTo(p.injv[:0], injectBatch, func(vs []injected) {
		ts := p.injt[:0]
		for _, v := range vs {
			t := e.gfget(p)
			t.fn, t.at = v.fn, v.at
			ts = append(ts, t)
		}
		if mutant == injectDrainDropsLast {
			ts = ts[:len(ts)-1]
		}
		e.global.PutBatch(ts) // before the claim goes: see injectFlush
		clear(ts)
		p.injt = ts[:0]
	})
	if len(vs) == 0 && pending {
		awaitSpawn()
	}
	clear(vs)
	p.injv = vs[:0]
}

// injectFlush moves everything in the injection buffer to the global
// queue before a submit of the record path (a bound, an outside group's
// Go) puts its own task there, so that it cannot overtake a task the same
// goroutine submitted through the buffer before. A drainer puts what it
// drained into the global queue before it gives its claim back
// (TryDrainTo), so once the buffer is empty and no one drains, every
// earlier value is in the global queue.
func (e *Executor) injectFlush() {
	for !e.inj.Empty() || e.inj.Draining() {
		var vbuf [injectBatch]injected
		vs, _ := e.inj.TryDrainTo(vbuf[:0], len(vbuf), func(vs []injected) {
			var tbuf [injectBatch]*task
			ts := tbuf[:len(vs)]
			e.records(ts)
			for i, x := range vs {
				ts[i].fn, ts[i].at = x.fn, x.at
			}
			e.global.PutBatch(ts)
		})
		if len(vs) == 0 {
			runtime.Gosched() // an M drains, or a submitter has not published yet
		}
	}
}
