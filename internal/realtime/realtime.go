// Package realtime judges timing promises on the real clock without letting
// the machine's load decide a verdict. A check runs rounds; each round
// measures one duration (how long a queued task waited, say) beside a
// health ticker, a goroutine that ticks every millisecond and records its
// largest gap. A round that measures at most the bound passes. One over the
// bound fails only if the machine kept up meanwhile. If the ticker itself
// stalled (past half the bound by default), or the OS kept one of the
// process's threads waiting for a CPU as long as the excess (Linux's
// schedstat: a loaded machine's many short stalls), the round is
// inconclusive: it is retried, and a check with too many inconclusive
// rounds is skipped with the reason, never passed or failed. A failure no
// load explains (a task lost, a wrong count) fails whatever the machine did.
//
// Contend re-executes the running binary as child processes that keep the
// cores busy, so the same checks run under contention from outside the
// process. Each rule and the test that fails when it breaks:
//
//	over the bound, machine healthy: fail                TestJudge, TestRunFailsAViolation
//	over the bound, ticker stalled: inconclusive,        TestJudge, TestStalledTickerIsInconclusive,
//	  retried, and skipped past Retries                  TestRunSkipsWhenInconclusiveTooOften
//	over the bound by less than a thread's wait for a    TestJudge
//	  CPU: inconclusive
//	a stall of the whole process is seen                 TestProcessStallIsInconclusive (linux)
//	a thread's wait for a CPU is measured                TestStolenTimeIsSeen (linux)
//	an error fails whatever the machine did              TestJudge
//	Apply: Errorf, Skipf or a log line with the count    TestApply
//	Contend's children burn CPU and end with Stop, or    TestContend, TestBusyChildEnds
//	  by themselves at their limit
package realtime

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// DefaultPeriod is the health ticker's period when Check.Period is zero.
const DefaultPeriod = time.Millisecond

// DefaultRetries is how many inconclusive rounds a check tolerates (each
// retried) when Check.Retries is zero.
const DefaultRetries = 5

// Health is what a Ticker saw: how many ticks and the largest gap between
// two of them (or between the last one and Stop); and, for a round, the
// longest any one thread of the process waited for a CPU (Linux only; 0
// elsewhere).
type Health struct {
	Ticks  int
	MaxGap time.Duration
	Stolen time.Duration // a loaded machine's many short stalls, which no one gap shows
}

// Ticker is a goroutine that ticks every period and records the largest
// gap between ticks: a gap far past the period means neither the OS nor
// the Go runtime let a ready goroutine run for that long.
type Ticker struct {
	period time.Duration
	stop   chan struct{}
	done   chan struct{}
	stall  chan time.Duration // tests stop the ticking for a while through it
	once   sync.Once

	mu     sync.Mutex
	last   time.Time
	health Health
}

// StartTicker starts a ticker; Stop ends its goroutine. It panics if
// period is not positive.
func StartTicker(period time.Duration) *Ticker {
	if period <= 0 {
		panic(fmt.Sprintf("realtime: StartTicker called with period %v", period))
	}
	t := &Ticker{period: period, stop: make(chan struct{}), done: make(chan struct{}),
		stall: make(chan time.Duration), last: time.Now()}
	go t.loop()
	return t
}

func (t *Ticker) loop() {
	defer close(t.done)
	timer := time.NewTimer(t.period)
	defer timer.Stop()
	for {
		select {
		case <-t.stop:
			t.tick(time.Now())
			return
		case d := <-t.stall:
			time.Sleep(d) // the next tick sees the gap
		case now := <-timer.C:
			t.tick(now)
			timer.Reset(t.period)
		}
	}
}

func (t *Ticker) tick(now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.health.Ticks++
	t.health.MaxGap = max(t.health.MaxGap, now.Sub(t.last))
	t.last = now
}

// Health returns what the ticker saw so far.
func (t *Ticker) Health() Health {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.health
}

// Stop ends the ticker and returns what it saw, the gap up to Stop
// included (a stall just before Stop is not missed). It may be called more
// than once.
func (t *Ticker) Stop() Health {
	t.once.Do(func() { close(t.stop) })
	<-t.done
	return t.Health()
}

// Verdict is a round's or a check's outcome.
type Verdict int

const (
	// Pass: at most the bound, or a check whose every round passed.
	Pass Verdict = iota
	// Fail: over the bound while the ticker was healthy, or an error.
	Fail
	// Inconclusive: over the bound while the machine stalled too.
	Inconclusive
)

// String is "pass", "FAIL" or "inconclusive".
func (v Verdict) String() string {
	switch v {
	case Pass:
		return "pass"
	case Fail:
		return "FAIL"
	case Inconclusive:
		return "inconclusive"
	}
	return fmt.Sprintf("Verdict(%d)", int(v))
}

// Sample is what one round measured.
type Sample struct {
	Measured time.Duration // judged against Check.Bound
	Err      error         // a failure no load explains: fails the round whatever the ticker saw
	Note     string        // what else the round saw, for the log
}

// Round is one round's sample, the ticker's health beside it and the
// verdict.
type Round struct {
	Sample
	Health  Health
	Verdict Verdict
}

// String is the verdict, the measurement, the machine's health and the
// round's error and note.
func (r Round) String() string {
	s := fmt.Sprintf("%s: measured %v, ticker's largest gap %v (%d ticks), a thread waited %v for a CPU",
		r.Verdict, r.Measured, r.Health.MaxGap, r.Health.Ticks, r.Health.Stolen)
	if r.Err != nil {
		s += ", error: " + r.Err.Error()
	}
	if r.Note != "" {
		s += "; " + r.Note
	}
	return s
}

// Check is a real-time property: how many rounds, against what bound, and
// what stall of the ticker makes a round over the bound inconclusive.
type Check struct {
	Name    string        // names the check in logs, without spaces
	Bound   time.Duration // a round passes when it measures at most Bound
	Stall   time.Duration // a ticker gap past Stall makes a round over Bound inconclusive; 0: Bound/2
	Rounds  int           // conclusive rounds to run; 0: 1
	Retries int           // inconclusive rounds tolerated, each retried; 0: DefaultRetries, <0: none
	Period  time.Duration // the ticker's period; 0: DefaultPeriod
	Wait    time.Duration // how long a round waits for what it measures before it gives up; 0: 10*Bound
}

func (c Check) stall() time.Duration { return cmp0(c.Stall, c.Bound/2) }
func (c Check) rounds() int          { return max(c.Rounds, 1) }
func (c Check) retries() int {
	if c.Retries == 0 {
		return DefaultRetries
	}
	return max(c.Retries, 0)
}
func (c Check) period() time.Duration { return cmp0(c.Period, DefaultPeriod) }

// GiveUp is how long a round should wait for the event it measures: past
// it, the round stops its load and reports the time it waited, which is
// over the bound and judged as any other sample.
func (c Check) GiveUp() time.Duration { return cmp0(c.Wait, 10*c.Bound) }

func cmp0(v, def time.Duration) time.Duration {
	if v == 0 {
		return def
	}
	return v
}

// Judge decides a round from its sample and the machine's health beside
// it. Over the bound, the round is inconclusive if the ticker stalled past
// Stall, or if the time the OS kept a thread off a CPU would account for
// the excess (Measured-Stolen is within the bound): many short stalls of a
// loaded machine add up without one long gap.
func (c Check) Judge(s Sample, h Health) Verdict {
	switch {
	case s.Err != nil:
		return Fail
	case s.Measured <= c.Bound:
		return Pass
	case h.MaxGap > c.stall() || s.Measured-h.Stolen <= c.Bound:
		return Inconclusive
	}
	return Fail
}

// Measure runs one round, f, beside a fresh ticker and judges it.
func (c Check) Measure(f func() Sample) Round {
	return c.measure(func(*Ticker) Sample { return f() })
}

func (c Check) measure(f func(*Ticker) Sample) Round {
	before := runDelays()
	tk := StartTicker(c.period())
	s := f(tk)
	h := tk.Stop()
	h.Stolen = stolen(before, runDelays())
	return Round{Sample: s, Health: h, Verdict: c.Judge(s, h)}
}

// Report is a check's rounds and verdict.
type Report struct {
	Check   Check
	Rounds  []Round // every round run, inconclusive ones included
	Verdict Verdict
}

// Run runs rounds of f (its argument counts from 0, retries included)
// until Rounds of them were conclusive, one failed, or more than Retries
// were inconclusive. It panics if Bound is not positive.
func (c Check) Run(f func(round int) Sample) Report {
	i := 0
	return c.run(func(*Ticker) Sample {
		defer func() { i++ }()
		return f(i)
	})
}

// run is Run with each round given its ticker (tests stall it).
func (c Check) run(f func(*Ticker) Sample) Report {
	if c.Bound <= 0 {
		panic(fmt.Sprintf("realtime: Check.Run called with Bound %v", c.Bound))
	}
	r := Report{Check: c}
	passed, inconclusive := 0, 0
	for passed < c.rounds() {
		round := c.measure(f)
		r.Rounds = append(r.Rounds, round)
		switch round.Verdict {
		case Fail:
			r.Verdict = Fail
			return r
		case Inconclusive:
			if inconclusive++; inconclusive > c.retries() {
				r.Verdict = Inconclusive
				return r
			}
		default:
			passed++
		}
	}
	r.Verdict = Pass
	return r
}

// Count returns how many rounds had verdict v.
func (r Report) Count(v Verdict) int {
	n := 0
	for _, x := range r.Rounds {
		if x.Verdict == v {
			n++
		}
	}
	return n
}

// Worst returns the largest measurement of the rounds with verdict v, and
// the largest ticker gap and wait for a CPU of every round.
func (r Report) Worst(v Verdict) (measured, gap, stolen time.Duration) {
	for _, x := range r.Rounds {
		if x.Verdict == v {
			measured = max(measured, x.Measured)
		}
		gap = max(gap, x.Health.MaxGap)
		stolen = max(stolen, x.Health.Stolen)
	}
	return measured, gap, stolen
}

// String is the report's summary: "realtime NAME: N rounds passed, ..."
// (schedkit verify counts the rounds from it), and the slowest passed
// round with the machine's health beside it.
func (r Report) String() string {
	c := r.Check
	worst, gap, stolen := r.Worst(Pass)
	s := fmt.Sprintf("realtime %s: %d rounds passed (worst %v, bound %v), %d inconclusive, %d failed; ticker's largest gap %v (limit %v), a thread's longest wait for a CPU %v",
		c.Name, r.Count(Pass), worst, c.Bound, r.Count(Inconclusive), r.Count(Fail), gap, c.stall(), stolen)
	for _, x := range r.Rounds {
		if x.Verdict == Pass && x.Measured == worst && worst > c.Bound/4 {
			s += "\n  slowest " + x.String() // how near the bound, and what the machine did meanwhile
			break
		}
	}
	return s
}

// Apply reports r on t: a failure as an error naming the failed round and
// the rounds before it, an inconclusive check as a skip with the reason,
// and a pass as a log line.
func (r Report) Apply(t testing.TB) {
	t.Helper()
	switch r.Verdict {
	case Fail:
		var b strings.Builder
		for i, x := range r.Rounds {
			fmt.Fprintf(&b, "\n  round %d: %v", i, x)
		}
		last := r.Rounds[len(r.Rounds)-1]
		why := fmt.Sprintf("measured %v, over the bound %v while the health ticker's largest gap was %v (at most %v) and no thread waited more than %v for a CPU (less than the excess): the machine kept up",
			last.Measured, r.Check.Bound, last.Health.MaxGap, r.Check.stall(), last.Health.Stolen)
		if last.Err != nil {
			why = last.Err.Error()
		}
		t.Errorf("%v\nFAIL: %s%s", r, why, b.String())
	case Inconclusive:
		t.Skipf("%v\ninconclusive: %d rounds over the bound %v while the health ticker itself stalled past %v or a thread waited for a CPU as long as the excess: the machine was too loaded to judge",
			r, r.Count(Inconclusive), r.Check.Bound, r.Check.stall())
	default:
		t.Log(r.String())
	}
}
