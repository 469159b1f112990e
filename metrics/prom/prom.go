// Package prom exports an executor's Stats to Prometheus: a
// prometheus.Collector that reads executor.Executor.Stats on every scrape,
// so nothing is counted twice and the executor's hot paths gain no work.
//
// It lives in a package of its own so that the executor and the other core
// packages keep no third-party dependency.
//
//	reg := prometheus.NewRegistry()
//	reg.MustRegister(prom.New(e))
//	http.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
//
// # Metrics
//
// Every counter of executor.ProcStats twice: per P as schedkit_p_<name>_total
// with a "p" label (the P's index), and summed over the Ps as
// schedkit_<name>_total. Prometheus forbids one name with two label sets,
// hence the two names. Gauges: each P's queue length (schedkit_p_queue_length)
// and their sum (schedkit_local_queue_length), schedkit_global_queue_length,
// schedkit_procs, schedkit_workers (Ms made so far), schedkit_spinning_workers
// and schedkit_idle_procs. schedkit_dropped_tasks_total counts the tasks
// dropped at a Shutdown deadline.
//
// Scheduling latency (submit from outside to start) is the histogram
// schedkit_latency_seconds: executor.LatencyStats' buckets as cumulative
// counts per upper bound (le, in seconds), its sum and count (which replaces
// a samples counter). The bounds are the executor's own fixed bucket bounds
// (four per power of two, each within 25% above any latency in its bucket):
// those of the buckets a latency has landed in, and of the bucket below
// each, so that every bucket's interval is its own. Counts never shrink, so
// a bound once listed stays, and series only appear. Quantiles come from the histogram, over any window and summed
// over executors, so there are no quantile gauges:
//
//	histogram_quantile(0.99, rate(schedkit_latency_seconds_bucket[5m]))
//
// is the p99 of the last five minutes, within its bucket (25%), as
// executor.LatencyStats.P99 is over the executor's life. The largest
// latency recorded is the gauge schedkit_latency_max_seconds (a histogram
// has no max).
//
// # Properties -> tests
//
//	each counter per P equals Stats' per P value,      prom_test.go TestScrapeMatchesStats
//	  totals equal Stats.Total, one series per P         (TestScrapeCheckCatchesBrokenCollector:
//	                                                     the check catches a collector that drops a P
//	                                                     or mislabels one)
//	latency histogram: the cumulative count at each    prom_test.go TestScrapeMatchesStats, TestLatencyHistogram
//	  bucket's upper bound and at the one below it, in   (TestScrapeCheckCatchesBrokenCollector: the check
//	  seconds, no other bounds; +Inf = _count = Stats'   catches per-bucket counts, bounds in nanoseconds,
//	  Count, _sum = Stats' Sum                           a lost bucket, no bound below a bucket, a sum
//	                                                     in nanoseconds)
//	histogram_quantile lies in the bucket of the       prom_test.go TestLatencyQuantilesWithinBucket
//	  sample of its rank (within 25%)                      (it fails without the bounds below buckets)
//	after a known workload: tasks_total = tasks run,   prom_test.go TestKnownWorkload
//	  one latency sample per outside task
//	the output passes promlint and registers cleanly   prom_test.go TestLint
package prom

import (
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/schedkit/schedkit/executor"
)

// counter is one ProcStats counter: its metric name stem, help and value.
type counter struct {
	name, help string
	get        func(*executor.ProcStats) uint64
}

// counters mirror executor.ProcStats' fields one to one.
var counters = []counter{
	{"tasks", "Tasks started.", func(s *executor.ProcStats) uint64 { return s.Tasks }},
	{"runnext_hits", "Tasks taken from the runnext slot.", func(s *executor.ProcStats) uint64 { return s.RunnextHits }},
	{"ring_gets", "Tasks taken from the local ring.", func(s *executor.ProcStats) uint64 { return s.RingGets }},
	{"global_gets", "Single tasks taken from the global queue.", func(s *executor.ProcStats) uint64 { return s.GlobalGets }},
	{"global_batches", "Batches taken from the global queue.", func(s *executor.ProcStats) uint64 { return s.GlobalBatches }},
	{"global_batch_tasks", "Tasks in batches taken from the global queue.", func(s *executor.ProcStats) uint64 { return s.GlobalBatchTasks }},
	{"steals", "Successful steals.", func(s *executor.ProcStats) uint64 { return s.Steals }},
	{"stolen_tasks", "Tasks taken by steals.", func(s *executor.ProcStats) uint64 { return s.Stolen }},
	{"overflows", "Full rings that sent half to the global queue.", func(s *executor.ProcStats) uint64 { return s.Overflows }},
	{"handoffs", "Ps given away by their task (Blocking, Yield, Wait).", func(s *executor.ProcStats) uint64 { return s.Handoffs }},
	{"retakes", "Ps taken by sysmon from a task past its slice.", func(s *executor.ProcStats) uint64 { return s.Retakes }},
	{"preempts", "Runnext tasks sent to the global queue after a retake.", func(s *executor.ProcStats) uint64 { return s.Preempts }},
	{"resumes", "Ps handed to a task waiting for one.", func(s *executor.ProcStats) uint64 { return s.Resumes }},
	{"yields", "Yields that gave the P away.", func(s *executor.ProcStats) uint64 { return s.Yields }},
	{"helped", "Tasks run by a group Wait while it waited.", func(s *executor.ProcStats) uint64 { return s.Helped }},
	{"parks", "Ms that gave the P back and parked.", func(s *executor.ProcStats) uint64 { return s.Parks }},
	{"unparks", "Ms woken with the P.", func(s *executor.ProcStats) uint64 { return s.Unparks }},
	{"spin_starts", "Ms that started spinning.", func(s *executor.ProcStats) uint64 { return s.SpinStarts }},
	{"spin_stops", "Spinning Ms that stopped.", func(s *executor.ProcStats) uint64 { return s.SpinStops }},
	{"panics", "Tasks that panicked.", func(s *executor.ProcStats) uint64 { return s.Panics }},
}

const ns = "schedkit"

// Collector is a prometheus.Collector for one executor. Register one per
// executor in a registry; to tell several apart, wrap the registerer
// (prometheus.WrapRegistererWith) with a label.
type Collector struct {
	stats    func() executor.Stats
	counters []counter
	perP     []*prometheus.Desc // one per counter, label "p"
	total    []*prometheus.Desc // one per counter
	pQueue   *prometheus.Desc
	queue    *prometheus.Desc
	global   *prometheus.Desc
	procs    *prometheus.Desc
	ms       *prometheus.Desc
	spinning *prometheus.Desc
	idle     *prometheus.Desc
	dropped  *prometheus.Desc
	latency  *prometheus.Desc
	latMax   *prometheus.Desc
	// histogram turns LatencyStats into a histogram's count, sum (seconds)
	// and cumulative counts by bound (seconds); tests swap in broken ones.
	histogram func(executor.LatencyStats) (uint64, float64, map[float64]uint64)
}

// New returns a Collector reading e.Stats on every scrape.
func New(e *executor.Executor) *Collector {
	if e == nil {
		panic("prom.New: nil executor")
	}
	return newCollector(e.Stats, counters)
}

func newCollector(stats func() executor.Stats, ks []counter) *Collector {
	c := &Collector{stats: stats, counters: ks, histogram: latencyHistogram}
	for _, k := range ks {
		c.perP = append(c.perP, prometheus.NewDesc(ns+"_p_"+k.name+"_total", k.help+" Per P.", []string{"p"}, nil))
		c.total = append(c.total, prometheus.NewDesc(ns+"_"+k.name+"_total", k.help+" All Ps.", nil, nil))
	}
	c.pQueue = prometheus.NewDesc(ns+"_p_queue_length", "Tasks in a P's local queue (runnext and ring) when scraped.", []string{"p"}, nil)
	c.queue = prometheus.NewDesc(ns+"_local_queue_length", "Tasks in every P's local queue when scraped.", nil, nil)
	c.global = prometheus.NewDesc(ns+"_global_queue_length", "Tasks in the global queue when scraped.", nil, nil)
	c.procs = prometheus.NewDesc(ns+"_procs", "Ps of the executor.", nil, nil)
	c.ms = prometheus.NewDesc(ns+"_workers", "Ms (worker goroutines) made so far.", nil, nil)
	c.spinning = prometheus.NewDesc(ns+"_spinning_workers", "Ms spinning when scraped.", nil, nil)
	c.idle = prometheus.NewDesc(ns+"_idle_procs", "Ps idle when scraped.", nil, nil)
	c.dropped = prometheus.NewDesc(ns+"_dropped_tasks_total", "Tasks dropped at a Shutdown deadline.", nil, nil)
	c.latency = prometheus.NewDesc(ns+"_latency_seconds", "Submit-to-start latency of tasks submitted from outside (bounds within 25% above their latencies).", nil, nil)
	c.latMax = prometheus.NewDesc(ns+"_latency_max_seconds", "Largest submit-to-start latency recorded.", nil, nil)
	return c
}

// Describe sends every metric's description.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for i := range c.counters {
		ch <- c.perP[i]
		ch <- c.total[i]
	}
	for _, d := range []*prometheus.Desc{c.pQueue, c.queue, c.global, c.procs, c.ms, c.spinning, c.idle,
		c.dropped, c.latency, c.latMax} {
		ch <- d
	}
}

// Collect reads Stats once and sends every metric from that one snapshot.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	s := c.stats()
	counterOf := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, v, labels...)
	}
	gauge := func(d *prometheus.Desc, v float64, labels ...string) {
		ch <- prometheus.MustNewConstMetric(d, prometheus.GaugeValue, v, labels...)
	}
	for i, k := range c.counters {
		for p := range s.Procs {
			counterOf(c.perP[i], float64(k.get(&s.Procs[p])), strconv.Itoa(p))
		}
		counterOf(c.total[i], float64(k.get(&s.Total)))
	}
	for p := range s.Procs {
		gauge(c.pQueue, float64(s.Procs[p].QueueLen), strconv.Itoa(p))
	}
	gauge(c.queue, float64(s.Total.QueueLen))
	gauge(c.global, float64(s.GlobalLen))
	gauge(c.procs, float64(len(s.Procs)))
	gauge(c.ms, float64(s.Ms))
	gauge(c.spinning, float64(s.Spinning))
	gauge(c.idle, float64(s.IdleProcs))
	counterOf(c.dropped, float64(s.Dropped))
	n, sum, buckets := c.histogram(s.Latency)
	ch <- prometheus.MustNewConstHistogram(c.latency, n, sum, buckets)
	gauge(c.latMax, s.Latency.Max.Seconds())
}

// latencyHistogram gives the histogram's count, sum and cumulative counts,
// in seconds: at each listed bucket's Upper, and at Lower-1 (the bucket
// below's Upper) where that bucket is not listed, so that (le before, le]
// is the bucket itself and histogram_quantile interpolates within it, not
// across the empty buckets below. Count is the buckets' total
// (LatencyStats guarantees it), so +Inf agrees with the last bound.
func latencyHistogram(l executor.LatencyStats) (uint64, float64, map[float64]uint64) {
	buckets := make(map[float64]uint64, 2*len(l.Buckets))
	var cum uint64
	for i, b := range l.Buckets {
		if b.Lower > 0 && (i == 0 || l.Buckets[i-1].Upper < b.Lower-1) {
			buckets[(b.Lower - 1).Seconds()] = cum
		}
		cum += b.Count
		buckets[b.Upper.Seconds()] = cum
	}
	return l.Count, l.Sum.Seconds(), buckets
}
