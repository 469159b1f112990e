package fuzz_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/schedkit/schedkit/atomicx"
	"github.com/schedkit/schedkit/explore"
	"github.com/schedkit/schedkit/fuzz"
	"github.com/schedkit/schedkit/runnext"
)

// The interleaved targets (FuzzRingInterleaved, ...) run a program of two
// to four threads under the explorer, which takes every scheduling decision
// from the input's schedule bytes (explore mode Bytes). Each execution is
// judged by ivHist below: conservation, and the sequential model's rules
// that survive concurrency (the empty rule, FIFO, Len's bounds), each
// checked against call intervals stamped where the calls happen.

// ivSkip skips a target in a build without -tags schedcheck, where the
// explorer has no hook (and fails it under SCHEDKIT_REQUIRE_SCHEDCHECK=1).
func ivSkip(f *testing.F) { explore.SkipWithoutSchedcheck(f) }

// ivExplore explores one execution of build whose schedule comes from
// schedule, and returns its failure as an error: the explorer's report (the
// schedule, the trace, the replay line) and the program.
func ivExplore(name string, schedule []byte, program func() string, build func() explore.Run) error {
	res, err := explore.Explore(explore.Options{Name: name, Mode: explore.Bytes, Decisions: schedule}, build)
	if err != nil {
		return err
	}
	if res.Failure != nil {
		return fmt.Errorf("%s\nprogram: %s", res.Failure, program())
	}
	return nil
}

// ivTargets are the interleaved targets by name, each as the function its
// f.Fuzz calls on one input; TestInterleavedRegressions runs them too.
var ivTargets = map[string]func(data []byte) error{}

// ivProg is a decoded input of an interleaved target.
type ivProg interface {
	encode() []byte     // the input that decodes to it
	String() string     // for failure messages and the round-trip test
	build() explore.Run // one execution of its threads
}

// ivRegister adds the target name to ivTargets: an input decodes with
// decode and runs once under the schedule its bytes give.
func ivRegister[P ivProg](name string, decode func([]byte) P) {
	ivTargets[name] = func(data []byte) error {
		p := decode(data)
		_, schedule := fuzz.SplitInterleaved(data)
		return ivExplore(name, schedule, p.String, p.build)
	}
}

// ivFuzz is the body of every interleaved target: skip without -tags
// schedcheck, add the hand-written seeds and the real-world corpus, fuzz.
func ivFuzz[P ivProg](f *testing.F, seeds []P) {
	ivSkip(f)
	run := ivTargets[f.Name()]
	if run == nil {
		f.Fatalf("%s is not in ivTargets", f.Name())
	}
	for _, p := range seeds {
		f.Add(p.encode())
	}
	for _, b := range corpusSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := run(data); err != nil {
			t.Fatal(err)
		}
	})
}

// ivSeedsRoundTrip requires the hand-written seeds to decode to what they
// were written as.
func ivSeedsRoundTrip[P ivProg](t *testing.T, seeds []P, decode func([]byte) P) {
	t.Helper()
	for i, p := range seeds {
		if got := decode(p.encode()); got.String() != p.String() {
			t.Errorf("seed %d decodes to\n%s, want\n%s", i, got, p)
		}
	}
}

// ivProgram is the program whose Threads are threads: their steps in
// thread order, each step's actor its thread.
func ivProgram(threads [][]fuzz.Step) fuzz.Program {
	prog := fuzz.Program{Actors: len(threads)}
	for k, steps := range threads {
		for _, st := range steps {
			st.Actor = k
			prog.Steps = append(prog.Steps, st)
		}
	}
	return prog
}

// ivWriteThreads writes one line a thread, "  <label>T<k>:" then each
// step as name gives it.
func ivWriteThreads(b *strings.Builder, label string, threads [][]fuzz.Step, name func(k int, st fuzz.Step) string) {
	for k, steps := range threads {
		fmt.Fprintf(b, "  %sT%d:", label, k)
		for _, st := range steps {
			b.WriteString(" " + name(k, st))
		}
		b.WriteByte('\n')
	}
}

// ivThreads makes the explorer's threads: thread k runs op on each of its
// steps in order.
func ivThreads(threads [][]fuzz.Step, op func(k int, st fuzz.Step)) []func() {
	out := make([]func(), len(threads))
	for k, steps := range threads {
		out[k] = func() {
			for _, st := range steps {
				op(k, st)
			}
		}
	}
	return out
}

// ivDelay is a victim's steal delay: runnext's, or 0 when zero is set.
func ivDelay(zero bool) time.Duration {
	if zero {
		return 0
	}
	return runnext.StealDelay
}

// ivFirst keeps the first failure an execution reports.
type ivFirst struct{ err error }

func (r *ivFirst) fail(err error) {
	if err != nil && r.err == nil {
		r.err = err
	}
}

// verdict is the first failure reported, or else h's.
func (r *ivFirst) verdict(h *ivHist) error {
	if r.err != nil {
		return r.err
	}
	return h.check()
}

// never stands for "not yet" in stamps: an item never taken, an op not
// yet ended.
const never = math.MaxInt

// ivItem is what one item went through.
type ivItem struct {
	place      int // where it was put, -1: never put (made, handed back)
	putB, putE int
	putPos     int // position in its put's batch, -1: put alone
	// The op that took it out of place: known only when that op says which
	// items it took from where (exitB, exitE, pos within the op's result).
	exitKnown    bool
	exitB, exitE int
	pos          int
	outs         int      // times it was handed to someone
	by           []string // who, for messages
}

// ivOp is an op that reported something to check: nothing taken from a
// place, a length, or that the place was not empty.
type ivOp struct {
	thread int
	what   string
	place  int
	b, e   int
	length int // ivNothing, ivSomething, or a length it read
}

const (
	ivNothing   = -1 // the op took nothing, or called the place empty: the empty rule
	ivSomething = -2 // the op called the place not empty
)

// ivHist records an execution's calls, each stamped at its start and end
// by a counter the threads share: the explorer runs one thread at a time,
// and every op begins with a scheduling point (a load of gate) before its
// start stamp, so the stamps order the calls as they really ran. Threads
// and Check call it; nothing else may.
type ivHist struct {
	gate  atomicx.Uint32
	now   int
	items []ivItem
	ops   []ivOp
	fifo  map[int]bool // places that are FIFO queues
	names []string     // place names
	// later are a target's own rules, run by check once every exit is
	// known (a rule judged mid-execution would see items not yet taken as
	// never taken).
	later []func() error
}

// ivCaller is the place of an item handed straight back to its caller (an
// overflowing Put's new item): it must come out once, and is in no queue.
const ivCaller = 9

func newIVHist(places ...string) *ivHist {
	h := &ivHist{names: places, fifo: map[int]bool{}}
	explore.Name(&h.gate, "gate")
	return h
}

func (h *ivHist) place(p int) string {
	switch {
	case p == ivCaller:
		return "the caller's hands"
	case p >= 0 && p < len(h.names):
		return h.names[p]
	}
	return fmt.Sprintf("place%d", p)
}

// begin stamps the start of an op, after a scheduling point.
func (h *ivHist) begin() int {
	h.gate.Load()
	h.now++
	return h.now
}

// end stamps the end of an op.
func (h *ivHist) end() int {
	h.now++
	return h.now
}

// newItem makes an item not yet put.
func (h *ivHist) newItem() *item {
	h.items = append(h.items, ivItem{place: -1, exitB: never, exitE: never, pos: -1, putPos: -1})
	t := &item{id: len(h.items) - 1}
	explore.Name(t, fmt.Sprintf("item%d", t.id)) // traces show &item3
	return t
}

// newItems makes n items not yet put.
func (h *ivHist) newItems(n int) []*item {
	ts := make([]*item, n)
	for i := range ts {
		ts[i] = h.newItem()
	}
	return ts
}

// overflowed records a Put of t into place p over [b, e] that overflowed:
// t went back to the caller with spill, the oldest half of p, never
// through p, so it has a place of its own (ivCaller). took records each
// item of spill coming out.
func (h *ivHist) overflowed(t *item, spill []*item, p, b, e int, who string, took func(x *item, p, b, e, pos int, who string)) {
	h.put(t, ivCaller, b, e)
	for i, x := range spill {
		from := p
		if x == t {
			from = ivCaller
		}
		took(x, from, b, e, i, who)
	}
}

// drained records a Drain of place p by thread over [b, e] that returned
// ts: took records each item's exit, in order; none is the empty rule's
// to judge.
func (h *ivHist) drained(thread, p, b, e int, ts []*item, who string, took func(x *item, p, b, e, pos int, who string)) {
	if len(ts) == 0 {
		h.nothing(thread, "Drain", p, b, e)
	}
	for i, t := range ts {
		took(t, p, b, e, i, who)
	}
}

// relabel gives t a new record: the same pointer put again after it came
// out is a new item to the history.
func (h *ivHist) relabel(t *item) {
	h.items = append(h.items, ivItem{place: -1, exitB: never, exitE: never, pos: -1, putPos: -1})
	t.id = len(h.items) - 1
}

// putting records that t is going into place p by an op that began at b
// and has not ended: a record there before the item is, for takers that
// are quicker than the putter's return. put completes it.
func (h *ivHist) putting(t *item, p, b int) {
	it := &h.items[t.id]
	it.place, it.putB, it.putE = p, b, never
}

// put records that t went into place p by an op of [b, e].
func (h *ivHist) put(t *item, p, b, e int) {
	it := &h.items[t.id]
	it.place, it.putB, it.putE = p, b, e
}

// putBatch records that ts went into place p, in this order, by one op of
// [b, e].
func (h *ivHist) putBatch(ts []*item, p, b, e int) {
	for i, t := range ts {
		h.put(t, p, b, e)
		h.items[t.id].putPos = i
	}
}

// before reports that a surely went into its place before b did.
func (a *ivItem) before(b *ivItem) bool {
	if a.putE < b.putB {
		return true
	}
	return a.putB == b.putB && a.putE == b.putE && a.putPos >= 0 && b.putPos >= 0 && a.putPos < b.putPos
}

// took records that t was handed to who by an op of [b, e] that took it
// out of place p, at position pos of its result (-1: unordered). Taken from
// where it was put, its exit is known; taken from elsewhere (it moved
// there unseen, as the rest of a steal does), only that it came out.
func (h *ivHist) took(t *item, p, b, e, pos int, who string) error {
	if t == nil {
		return fmt.Errorf("%s took nil from %s", who, h.place(p))
	}
	if t.id < 0 || t.id >= len(h.items) {
		return fmt.Errorf("%s took item %d from %s, an item the program never made", who, t.id, h.place(p))
	}
	it := &h.items[t.id]
	it.outs++
	it.by = append(it.by, fmt.Sprintf("%s [%d,%d]", who, b, e))
	if p == it.place && !it.exitKnown {
		it.exitKnown, it.exitB, it.exitE, it.pos = true, b, e, pos
	}
	return nil
}

// nothing records that an op of [b, e] by thread took nothing from place
// p: right only if p was empty at some instant of the call.
func (h *ivHist) nothing(thread int, what string, p, b, e int) {
	h.ops = append(h.ops, ivOp{thread: thread, what: what, place: p, b: b, e: e, length: ivNothing})
}

// something records that an op of [b, e] called place p not empty: right
// only if it held an item at some instant of the call.
func (h *ivHist) something(thread int, what string, p, b, e int) {
	h.ops = append(h.ops, ivOp{thread: thread, what: what, place: p, b: b, e: e, length: ivSomething})
}

// between returns how many items place p held for the whole of [b, e] (lo,
// the ones an op of that interval took from it counted in: it found them
// there) and how many it may have held at some instant of it (hi).
func (h *ivHist) between(p, b, e int) (lo, hi int) {
	for _, it := range h.items {
		if it.surely(p, b, e) || (it.place == p && it.exitKnown && it.exitB == b && it.exitE == e) {
			lo++
		}
		if it.maybe(p, b, e) {
			hi++
		}
	}
	return lo, hi
}

// length records that an op of [b, e] read n as p's length.
func (h *ivHist) length(thread int, what string, p, b, e, n int) {
	h.ops = append(h.ops, ivOp{thread: thread, what: what, place: p, b: b, e: e, length: n})
}

// surely reports that it was in place p for the whole of [b, e].
func (it *ivItem) surely(p, b, e int) bool {
	return it.place == p && it.putE < b && it.exitKnown && it.exitB > e
}

// maybe reports that it may have been in place p at some instant of [b, e].
func (it *ivItem) maybe(p, b, e int) bool {
	return it.place == p && it.putB < e && (!it.exitKnown || it.exitE > b)
}

// check judges the execution once every item still queued has been taken
// (with took, stamps never): conservation, then the empty rule, Len's
// bounds, FIFO order and the target's own rules (later).
func (h *ivHist) check() error {
	for id, it := range h.items {
		switch {
		case it.place < 0 && it.outs > 0:
			return fmt.Errorf("conservation: item %d was never put but came out %d times: %s", id, it.outs, strings.Join(it.by, ", "))
		case it.place >= 0 && it.outs == 0:
			return fmt.Errorf("conservation: item %d was put into %s at [%d,%d] and never came out (lost)", id, h.place(it.place), it.putB, it.putE)
		case it.place >= 0 && it.outs > 1:
			return fmt.Errorf("conservation: item %d came out %d times: %s", id, it.outs, strings.Join(it.by, ", "))
		}
	}
	for _, op := range h.ops {
		if op.length == ivNothing {
			for id, it := range h.items {
				if it.surely(op.place, op.b, op.e) {
					return fmt.Errorf("empty rule: T%d's %s at [%d,%d] took nothing from %s, but item %d was there the whole call (put by [%d,%d], taken by %s)",
						op.thread, op.what, op.b, op.e, h.place(op.place), id, it.putB, it.putE, strings.Join(it.by, ", "))
				}
			}
			continue
		}
		lo, hi := 0, 0
		for _, it := range h.items {
			if it.surely(op.place, op.b, op.e) {
				lo++
			}
			if it.maybe(op.place, op.b, op.e) {
				hi++
			}
		}
		if op.length == ivSomething {
			if hi == 0 {
				return fmt.Errorf("empty rule: T%d's %s at [%d,%d] called %s not empty, but no item was there at any instant of the call",
					op.thread, op.what, op.b, op.e, h.place(op.place))
			}
			continue
		}
		if op.length < lo || op.length > hi {
			return fmt.Errorf("length: T%d's %s at [%d,%d] read %d for %s, which held between %d and %d items during the call",
				op.thread, op.what, op.b, op.e, op.length, h.place(op.place), lo, hi)
		}
	}
	for x := range h.items {
		a := &h.items[x]
		if !h.fifo[a.place] || !a.exitKnown {
			continue
		}
		for y := range h.items {
			b := &h.items[y]
			if b.place != a.place || !b.exitKnown || !a.before(b) {
				continue
			}
			// a went in before b did: b may not come out first.
			sameOp := a.exitB == b.exitB && a.exitE == b.exitE
			if b.exitE < a.exitB || (sameOp && a.pos >= 0 && b.pos >= 0 && b.pos < a.pos) {
				return fmt.Errorf("FIFO: item %d went into %s before item %d (puts [%d,%d]#%d and [%d,%d]#%d) but came out after it (%s; %s)",
					x, h.place(a.place), y, a.putB, a.putE, a.putPos, b.putB, b.putE, b.putPos, strings.Join(a.by, ", "), strings.Join(b.by, ", "))
			}
		}
	}
	for _, rule := range h.later {
		if err := rule(); err != nil {
			return err
		}
	}
	return nil
}

// TestIVHistCatchesBrokenHistories: each rule of ivHist.check rejects a
// history that breaks it, and accepts the same history unbroken.
func TestIVHistCatchesBrokenHistories(t *testing.T) {
	// Two items put into a FIFO place one after the other, taken one after
	// the other; a Len and an empty take after both are gone.
	good := func() (*ivHist, []*item) {
		h := newIVHist("q")
		h.fifo[0] = true
		a, b := h.newItem(), h.newItem()
		h.put(a, 0, 1, 2)
		h.put(b, 0, 3, 4)
		h.length(0, "Len", 0, 5, 6, 2)
		return h, []*item{a, b}
	}
	take := func(h *ivHist, ts []*item, first, second int) {
		must(t, h.took(ts[0], 0, first, first+1, -1, "T1 Get"))
		must(t, h.took(ts[1], 0, second, second+1, -1, "T1 Get"))
	}
	h, ts := good()
	take(h, ts, 7, 9)
	h.nothing(1, "Get", 0, 11, 12)
	h.something(1, "Empty", 0, 8, 9) // b is there until 9
	if lo, hi := h.between(0, 9, 10); lo != 1 || hi != 1 {
		t.Errorf("between the take of b = %d, %d, want 1, 1 (b, found by that take)", lo, hi)
	}
	if err := h.check(); err != nil {
		t.Fatalf("a good history fails: %v", err)
	}
	for name, c := range map[string]struct {
		mutate func(h *ivHist, ts []*item)
		want   string
	}{
		"lost": {func(h *ivHist, ts []*item) {
			must(t, h.took(ts[0], 0, 7, 8, -1, "T1 Get"))
		}, "never came out"},
		"twice": {func(h *ivHist, ts []*item) {
			take(h, ts, 7, 9)
			must(t, h.took(ts[1], 0, 11, 12, -1, "T2 steal"))
		}, "came out 2 times"},
		"never put": {func(h *ivHist, ts []*item) {
			take(h, ts, 7, 9)
			must(t, h.took(h.newItem(), 0, 11, 12, -1, "T2 steal"))
		}, "never put"},
		"empty while full": {func(h *ivHist, ts []*item) {
			take(h, ts, 7, 11)
			h.nothing(2, "Get", 0, 9, 10) // item 1 is there from 4 to 11
		}, "empty rule"},
		"out of order": {func(h *ivHist, ts []*item) { take(h, ts, 9, 7) }, "FIFO"},
		"a batch put out of order": {func(h *ivHist, ts []*item) {
			h.putBatch(ts, 0, 1, 2) // a went in before b, in one batch
			must(t, h.took(ts[1], 0, 7, 8, -1, "T1 Get"))
			must(t, h.took(ts[0], 0, 9, 10, -1, "T1 Get"))
		}, "FIFO"},
		"out of order in a batch": {func(h *ivHist, ts []*item) {
			must(t, h.took(ts[1], 0, 7, 8, 0, "T1 Drain"))
			must(t, h.took(ts[0], 0, 7, 8, 1, "T1 Drain"))
		}, "FIFO"},
		"not empty while empty": {func(h *ivHist, ts []*item) {
			take(h, ts, 7, 9)
			h.something(2, "Empty", 0, 13, 14)
		}, "not empty"},
		"length": {func(h *ivHist, ts []*item) {
			take(h, ts, 7, 9)
			h.length(2, "Len", 0, 13, 14, 1) // both gone by 10
		}, "length"},
	} {
		h, ts := good()
		c.mutate(h, ts)
		err := h.check()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: check() = %v, want an error mentioning %q", name, err, c.want)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// ivRegressions lists the saved inputs of target, testdata/fuzz/<target>/*.
func ivRegressions(tb testing.TB, target string) map[string][]byte {
	dir := filepath.Join("testdata", "fuzz", target)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		tb.Fatal(err)
	}
	out := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			tb.Fatal(err)
		}
		data, err := parseCorpusFile(b)
		if err != nil {
			tb.Fatalf("%s: %v", e.Name(), err)
		}
		out[e.Name()] = data
	}
	return out
}

// parseCorpusFile reads a "go test fuzz v1" file of one []byte value.
func parseCorpusFile(b []byte) ([]byte, error) {
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	if len(lines) != 2 || lines[0] != "go test fuzz v1" || !strings.HasPrefix(lines[1], "[]byte(") || !strings.HasSuffix(lines[1], ")") {
		return nil, errors.New("not a go test fuzz v1 file of one []byte")
	}
	var s string
	if _, err := fmt.Sscanf(strings.TrimSuffix(strings.TrimPrefix(lines[1], "[]byte("), ")"), "%q", &s); err != nil {
		return nil, err
	}
	return []byte(s), nil
}

// ivInputs splits an interleaved input and decodes its program's set-up
// with r, the steps with spec.
func ivInputs(data []byte) (setup *fuzz.Reader, schedule []byte) {
	program, schedule := fuzz.SplitInterleaved(data)
	return fuzz.NewReader(program), schedule
}
