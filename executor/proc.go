package executor

import (
	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/lfq"
	"github.com/schedkit/schedkit/runnext"
	"github.com/schedkit/schedkit/spinning"
	"github.com/schedkit/schedkit/timers"
)

// A P's status word is the runtime's p.status, with the holder in it: the
// low three bits are the state, the next idBits the id of the worker that
// holds the P (0 for none), the rest the generation of the worker's
// innermost task (w.top) in pTask, pSpawn and pSyscall, 0 otherwise. A
// task's start is one store of its pTask word and its end one CAS from it
// (issue 25), so the word alone says which Task is current while the task
// holds its P; w.cur says it while the task runs without one
// (proofs/tla/TaskGen.tla). Every change of holder or state that another
// goroutine could race with is a CAS on the whole word, so a worker whose P
// was retaken cannot use it: its CAS names it, and fails.
const (
	// pIdle: no worker holds the P (it is idle, or being handed off).
	pIdle uint64 = iota
	// pSched: the holder runs scheduler code and alone uses the P's queue
	// (the runtime's _Prunning outside user code). Nobody else changes the
	// word.
	pSched
	// pTask: the holder runs a task. Sysmon may retake the P (CAS to
	// pIdle), and the task's handle may lock the queue for a spawn (CAS to
	// pSpawn). There is no preemption, so this is also the runtime's
	// _Psyscall: the P can be taken from under a running task.
	pTask
	// pSpawn: a spawn through the holder's Task uses the queue; the holder
	// itself waits for it to end before it takes the P back.
	pSpawn
	// pSyscall: the holder's task is in Task.Syscall, a call that usually
	// returns soon (the runtime's _Psyscall after entersyscall). Only the
	// holder moves pTask to pSyscall and back, by CAS; sysmon retakes the
	// P (CAS to pIdle) once the call has lasted Config.SyscallThreshold
	// while work waits. Nobody else uses the queue meanwhile.
	pSyscall

	stateBits = 3
	stateMask = 1<<stateBits - 1

	// idBits is the width of the holder id; the generation has the rest.
	idBits    = 24
	genShift  = stateBits + idBits
	genMask   = 1<<(64-genShift) - 1
	holderMsk = 1<<genShift - 1 // the state and the holder, no generation
)

// own is the status word of P held by worker id in state st, generation 0.
// A word loaded from p.status carries its task's generation in pTask,
// pSpawn and pSyscall: compare it with own as s&holderMsk (sysmon,
// Shutdown), or with the task's own word (w.word).
func own(id uint32, st uint64) uint64 { return uint64(id)<<stateBits | st }

// word is the status word of w's P in state st under w's innermost task.
// Only w's own goroutine calls it (w.top is its plain field).
func (w *worker) word(st uint64) uint64 { return w.top<<genShift | own(w.id, st) }

// genOf is the generation in status word s.
func genOf(s uint64) uint64 { return s >> genShift }

// taskOn puts p, which w holds in pSched, in the pTask word of w's innermost
// task. w.cur, which names the task while it runs without a P, is cleared
// first: no retaker writes it while the word is not pTask (TaskGen.tla's
// Reacquire).
func (w *worker) taskOn(p *proc) {
	if w.cur.Load() != 0 {
		w.cur.Store(0)
	}
	p.status.Store(w.word(pTask))
}

// cacheLine pads the words a P or an M writes on every task (a P's status
// word and runnext count, an M's current task) off the lines of any other
// P's or M's, so that Ps running side by side never write one line.
const cacheLine = 64

// proc is a P: its local run queue (a runnext slot before an lfq ring), its
// free task records, its status word and counters.
type proc struct {
	_      [cacheLine]byte // off the line of whatever was allocated before
	id     int
	status atomicx.Uint64
	m      atomicx.Pointer[worker] // the holder; stored before the status word names it

	// schedtick counts tasks that started a slice (not inheriting one from
	// runnext); sysmon watches it to see a task overrun, as the runtime's
	// sysmontick does. The holder is its only writer.
	schedtick atomicx.Uint32
	// preempted is set by sysmon when the P's slice overran while work
	// waits (its request to end the slice, and on a retake) and cleared by
	// the holder's next get from the P's queue, which, if it is the
	// runnext task, puts it on the global queue instead of letting it
	// inherit the slice (a later runnext task inherits as usual).
	preempted atomicx.Uint32
	// dying is set while SetProcs takes the P away (resize.go): its
	// holder lets it go at its next look for work.
	dying atomicx.Uint32
	// takes counts takeP on this P, so that abandonAll can tell that no M
	// took it while it looked.
	takes atomicx.Uint64
	// syscalltick counts Task.Syscall calls entered on this P, so that
	// sysmon tells one long call from a run of short ones (the runtime's
	// p.syscalltick). The holder is its only writer: a load and a store.
	syscalltick atomicx.Uint32
	// callSince is when the call in pSyscall began (Nanotime, stored by
	// the holder before its CAS to pSyscall), so that an M between tasks
	// can judge the call's age without sysmon (helpRetake): the runtime's
	// pp.syscallwhen.
	callSince atomicx.Int64

	// Used only by the holder in pSched or pSpawn.
	q      runnext.Queue[task]
	gfree  *task // free task records (the runtime's p.gFree; gfree.go)
	ngfree int
	spill  []*task // overflow batch buffer for runnext.Queue.PutNext
	batch  []*task // the rest of a global batch, for the ring
	victim int     // the P this P's last steal took from (trace.go)

	// sysmon's own view (the runtime's sysmontick): read and written only
	// by sysmon.
	seenTick uint32
	seenWhen int64
	// The call sysmon last saw the P in (syscalltick) and when it first
	// saw it.
	seenCall     uint32
	seenCallWhen int64

	// timers are the P's timers (timer.go): run by its holder at each
	// schedule, by spinning Ms of other Ps, and by sysmon.
	timers timers.Heap

	stats procStats
	_     [cacheLine]byte
}

// worker is an M: a goroutine that runs the schedule loop, holding a
// spinning.M (and through it at most one P). Its fields are its own unless
// said otherwise.
type worker struct {
	_  [cacheLine]byte // see ticks
	e  *Executor
	id uint32 // from 1; the holder id in P status words

	// sm is the spinning state of the M. A worker whose task waits for a P
	// (see reacquire) is handed the sm of the worker that runs its resume
	// token, P and all, and leaves it its own: the pair swap. Only the
	// worker uses it, or a retaker while lent says so; it is an atomic cell
	// because another worker's swap writes it.
	sm atomicx.Pointer[spinning.M]

	// p is the P the worker holds, nil if none. Written by the worker (and
	// by the resumer that hands it one); read by Task handles, which only
	// use it through a CAS on the status word.
	p atomicx.Pointer[proc]

	// cur is the generation of the worker's innermost task while that task
	// runs without a P (its P given up in Blocking, Yield or a Wait, or
	// retaken), else 0: written by the task before it gives its P up, by a
	// retaker after its CAS (before lent drops), and cleared when the task
	// gets a P back (taskOn) or ends without one. While the task holds its
	// P the status word names it (word). gen counts the worker's tasks, top
	// is the generation of its innermost running task (0 for none): both
	// are the worker goroutine's own.
	cur atomicx.Uint64
	gen uint64
	top uint64
	// ticks counts the tasks the M loop ran, for yieldEvery. The fields
	// from e to here are the M's hot ones: the pad before them and the
	// cold fields after them keep them off any other M's line.
	ticks uint32

	// lent counts retakers (sysmon, Shutdown) that are using sm because
	// they took the worker's P from under its task. The worker touches sm
	// again only once it has seen its P gone and lent at zero.
	lent atomicx.Int32

	// note parks the worker while its task waits for a P; token is the
	// queue item whose run hands it one. wt is its group-wait registration.
	note  atomicx.Note
	token task
	wt    waiter
	// exitToken is token for a task back from Task.Syscall without a P;
	// exitWait is non-zero while it waits (exitWaiting, exitQueued:
	// syscall.go), and whoever CASes it to 0 (the M
	// that runs the token, or a retake: handToWaiter) hands it a P.
	exitToken task
	exitWait  atomicx.Uint32

	rnd uint64 // xorshift state for the victim order
	rng func() uint32

	gid atomicx.Int64 // the goroutine running the worker, for Close's check

	// goexit is set when a task called runtime.Goexit: the goroutine is
	// ending and the M continues on a new one.
	goexit bool

	// nest counts the Waits on this M that are running a task inline.
	nest int
	// helpers run the help loops of the M's Waits, one per nesting level
	// (group.go's helper).
	helpers []*helper
	// joins is the M's free list of join states (join.go), linked
	// through Group.jnext: a Task.Join's handle never escapes, so its
	// state is reused once the Join has returned.
	joins *Group
	// pk is the park word (park.go): the seq of the task's current
	// Waker and its state. inherit, set by whoever hands the worker a P
	// to resume its task, says whether the task goes on in the slice of
	// the task that readied it.
	pk      atomicx.Uint64
	inherit bool
	// first is a task a parking task handed on with its P (handOn), to
	// run before the worker looks at the queues; firstInherit is its
	// inherit. retire: a spare beyond spareCap, ending its goroutine.
	first        *task
	firstInherit bool
	retire       bool
	// sleepT is the task's Sleep timer (timer.go), sleepK the Waker it
	// readies.
	sleepT timers.Timer
	sleepK Waker
	// baton is what a task parked with its P, and a spare, sleep on: a
	// handoff that is always taken, cheaper than note (park.go).
	baton atomicx.Baton

	// jpush counts the M's Joins (joinTickEvery).
	jpush uint64
}

// rand is the victim order's random source: xorshift64*, seeded per worker,
// so an explorer run is deterministic.
func (w *worker) rand() uint32 {
	x := w.rnd
	x ^= x >> 12
	x ^= x << 25
	x ^= x >> 27
	w.rnd = x
	return uint32((x * 2685821657736338717) >> 32)
}

// newProc makes P id for e.
func newProc(id int, cfg Config) *proc {
	p := &proc{
		id:    id,
		spill: make([]*task, 0, lfq.OverflowLen),
		batch: make([]*task, 0, lfq.Size/2),
	}
	p.q.SetStealDelay(cfg.StealDelay)
	p.stats.init()
	return p
}
