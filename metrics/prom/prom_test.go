package prom

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/schedkit/schedkit/executor"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// fakeStats gives every counter of every P a distinct value, so a value
// sent under the wrong name or label cannot match by chance.
func fakeStats(procs int) executor.Stats {
	s := executor.Stats{Procs: make([]executor.ProcStats, procs), GlobalLen: 7, Ms: 5, Spinning: 1, IdleProcs: 2,
		Dropped: 3, Latency: executor.LatencyStats{Count: 42, P50: time.Microsecond, P99: time.Millisecond, Max: time.Second}}
	for p := range s.Procs {
		ps := &s.Procs[p]
		for i, v := range []*uint64{&ps.Tasks, &ps.RunnextHits, &ps.RingGets, &ps.GlobalGets, &ps.GlobalBatches,
			&ps.GlobalBatchTasks, &ps.Steals, &ps.Stolen, &ps.Overflows, &ps.Handoffs, &ps.Retakes, &ps.Resumes,
			&ps.Yields, &ps.Helped, &ps.Parks, &ps.Unparks, &ps.SpinStarts, &ps.SpinStops, &ps.Panics} {
			*v = uint64(1000*(p+1) + i)
		}
		ps.QueueLen = 10 + p
	}
	for _, ps := range s.Procs {
		s.Total = sum(s.Total, ps)
	}
	return s
}

// sum adds two ProcStats field by field through the counters table plus
// QueueLen (the executor's own add is not exported).
func sum(a, b executor.ProcStats) executor.ProcStats {
	return executor.ProcStats{
		Tasks: a.Tasks + b.Tasks, RunnextHits: a.RunnextHits + b.RunnextHits, RingGets: a.RingGets + b.RingGets,
		GlobalGets: a.GlobalGets + b.GlobalGets, GlobalBatches: a.GlobalBatches + b.GlobalBatches,
		GlobalBatchTasks: a.GlobalBatchTasks + b.GlobalBatchTasks, Steals: a.Steals + b.Steals,
		Stolen: a.Stolen + b.Stolen, Overflows: a.Overflows + b.Overflows, Handoffs: a.Handoffs + b.Handoffs,
		Retakes: a.Retakes + b.Retakes, Resumes: a.Resumes + b.Resumes, Yields: a.Yields + b.Yields,
		Helped: a.Helped + b.Helped, Parks: a.Parks + b.Parks, Unparks: a.Unparks + b.Unparks,
		SpinStarts: a.SpinStarts + b.SpinStarts, SpinStops: a.SpinStops + b.SpinStops, Panics: a.Panics + b.Panics,
		QueueLen: a.QueueLen + b.QueueLen,
	}
}

// scrape gathers c through a fresh registry (which also checks that the
// descriptions and label sets are consistent).
func scrape(c prometheus.Collector) (map[string]*dto.MetricFamily, error) {
	reg := prometheus.NewPedanticRegistry()
	if err := reg.Register(c); err != nil {
		return nil, err
	}
	fams, err := reg.Gather()
	if err != nil {
		return nil, err
	}
	m := map[string]*dto.MetricFamily{}
	for _, f := range fams {
		m[f.GetName()] = f
	}
	return m, nil
}

func value(m *dto.Metric) float64 {
	if m.Counter != nil {
		return m.Counter.GetValue()
	}
	return m.Gauge.GetValue()
}

// checkScrape is the property: every per-P series equals that P's counter,
// one series per P, and every total equals Stats.Total's.
func checkScrape(c prometheus.Collector, s executor.Stats) error {
	fams, err := scrape(c)
	if err != nil {
		return err
	}
	for _, k := range counters {
		f := fams["schedkit_p_"+k.name+"_total"]
		if f == nil || len(f.Metric) != len(s.Procs) {
			return fmt.Errorf("%s: want %d series, one per P", k.name, len(s.Procs))
		}
		for _, m := range f.Metric {
			var p int
			if _, err := fmt.Sscan(m.Label[0].GetValue(), &p); err != nil || p < 0 || p >= len(s.Procs) {
				return fmt.Errorf("%s: bad p label %q", k.name, m.Label[0].GetValue())
			}
			if got, want := value(m), float64(k.get(&s.Procs[p])); got != want {
				return fmt.Errorf("%s{p=%d} = %v, want %v", k.name, p, got, want)
			}
		}
		t := fams["schedkit_"+k.name+"_total"]
		if t == nil || value(t.Metric[0]) != float64(k.get(&s.Total)) {
			return fmt.Errorf("%s total: want %v", k.name, k.get(&s.Total))
		}
	}
	return nil
}

func TestScrapeMatchesStats(t *testing.T) {
	s := fakeStats(3)
	c := newCollector(func() executor.Stats { return s }, counters)
	require.NoError(t, checkScrape(c, s))

	const want = `
# HELP schedkit_global_queue_length Tasks in the global queue when scraped.
# TYPE schedkit_global_queue_length gauge
schedkit_global_queue_length 7
# HELP schedkit_p_queue_length Tasks in a P's local queue (runnext and ring) when scraped.
# TYPE schedkit_p_queue_length gauge
schedkit_p_queue_length{p="0"} 10
schedkit_p_queue_length{p="1"} 11
schedkit_p_queue_length{p="2"} 12
# HELP schedkit_local_queue_length Tasks in every P's local queue when scraped.
# TYPE schedkit_local_queue_length gauge
schedkit_local_queue_length 33
# HELP schedkit_latency_p50_seconds Median submit-to-start latency (its histogram bucket's upper bound, within 25% above).
# TYPE schedkit_latency_p50_seconds gauge
schedkit_latency_p50_seconds 1e-06
# HELP schedkit_latency_p99_seconds 99th percentile submit-to-start latency (its histogram bucket's upper bound, within 25% above).
# TYPE schedkit_latency_p99_seconds gauge
schedkit_latency_p99_seconds 0.001
# HELP schedkit_latency_max_seconds Largest submit-to-start latency recorded.
# TYPE schedkit_latency_max_seconds gauge
schedkit_latency_max_seconds 1
# HELP schedkit_latency_samples_total Tasks submitted from outside whose submit-to-start latency was recorded.
# TYPE schedkit_latency_samples_total counter
schedkit_latency_samples_total 42
# HELP schedkit_dropped_tasks_total Tasks dropped at a Shutdown deadline.
# TYPE schedkit_dropped_tasks_total counter
schedkit_dropped_tasks_total 3
# HELP schedkit_procs Ps of the executor.
# TYPE schedkit_procs gauge
schedkit_procs 3
# HELP schedkit_workers Ms (worker goroutines) made so far.
# TYPE schedkit_workers gauge
schedkit_workers 5
# HELP schedkit_spinning_workers Ms spinning when scraped.
# TYPE schedkit_spinning_workers gauge
schedkit_spinning_workers 1
# HELP schedkit_idle_procs Ps idle when scraped.
# TYPE schedkit_idle_procs gauge
schedkit_idle_procs 2
`
	assert.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(want),
		"schedkit_global_queue_length", "schedkit_p_queue_length", "schedkit_local_queue_length",
		"schedkit_latency_p50_seconds", "schedkit_latency_p99_seconds", "schedkit_latency_max_seconds", "schedkit_latency_samples_total",
		"schedkit_dropped_tasks_total", "schedkit_procs", "schedkit_workers", "schedkit_spinning_workers", "schedkit_idle_procs"))
	assert.Equal(t, len(counters)*(3+1)+3+11, testutil.CollectAndCount(c),
		"each counter per P (3) and in total, the queue length per P (3), eleven more")
}

// dropP is a broken collector: it loses one P's series.
type dropP struct{ *Collector }

func (d dropP) Collect(ch chan<- prometheus.Metric) {
	in := make(chan prometheus.Metric)
	go func() { d.Collector.Collect(in); close(in) }()
	for m := range in {
		var pb dto.Metric
		_ = m.Write(&pb)
		if len(pb.Label) == 1 && pb.Label[0].GetName() == "p" && pb.Label[0].GetValue() == "2" {
			continue
		}
		ch <- m
	}
}

// The check above must fail on a collector that drops a P, one that sends
// a counter under another's name, and one that reads a stale snapshot for
// its totals.
func TestScrapeCheckCatchesBrokenCollector(t *testing.T) {
	s := fakeStats(3)
	good := newCollector(func() executor.Stats { return s }, counters)
	assert.Error(t, checkScrape(dropP{good}, s), "a lost P")

	swapped := append([]counter(nil), counters...)
	swapped[1].get, swapped[2].get = counters[2].get, counters[1].get
	assert.Error(t, checkScrape(newCollector(func() executor.Stats { return s }, swapped), s), "swapped counters")

	stale := fakeStats(3)
	stale.Total.Tasks++
	assert.Error(t, checkScrape(newCollector(func() executor.Stats { return s }, counters), stale), "totals of another snapshot")
}

// A known workload: 100 tasks submitted from outside, each spawning two
// local children, on 2 Ps. After Close every task is counted once.
func TestKnownWorkload(t *testing.T) {
	e, err := executor.New(executor.Config{Procs: 2})
	require.NoError(t, err)
	c := New(e)
	for range 100 {
		require.NoError(t, e.Go(func(t executor.Task) {
			t.Go(func(executor.Task) {})
			g, _ := t.NewGroup(context.Background())
			g.Go(func(executor.Task) error { return nil })
			_ = g.Wait()
		}))
	}
	require.NoError(t, e.Close())
	s := e.Stats()
	require.NoError(t, checkScrape(c, s))
	const want = `
# HELP schedkit_tasks_total Tasks started. All Ps.
# TYPE schedkit_tasks_total counter
schedkit_tasks_total 300
# HELP schedkit_latency_samples_total Tasks submitted from outside whose submit-to-start latency was recorded.
# TYPE schedkit_latency_samples_total counter
schedkit_latency_samples_total 100
# HELP schedkit_procs Ps of the executor.
# TYPE schedkit_procs gauge
schedkit_procs 2
# HELP schedkit_global_queue_length Tasks in the global queue when scraped.
# TYPE schedkit_global_queue_length gauge
schedkit_global_queue_length 0
# HELP schedkit_local_queue_length Tasks in every P's local queue when scraped.
# TYPE schedkit_local_queue_length gauge
schedkit_local_queue_length 0
`
	assert.NoError(t, testutil.CollectAndCompare(c, strings.NewReader(want), "schedkit_tasks_total",
		"schedkit_latency_samples_total", "schedkit_procs", "schedkit_global_queue_length", "schedkit_local_queue_length"))
	assert.Equal(t, 2, testutil.CollectAndCount(c, "schedkit_p_tasks_total"), "one series per P")
}

func TestLint(t *testing.T) {
	s := fakeStats(2)
	problems, err := testutil.CollectAndLint(newCollector(func() executor.Stats { return s }, counters))
	require.NoError(t, err)
	assert.Empty(t, problems)
}

func TestNewNilPanics(t *testing.T) {
	assert.PanicsWithValue(t, "prom.New: nil executor", func() { New(nil) })
}
