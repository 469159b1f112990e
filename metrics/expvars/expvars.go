// Package expvars publishes an executor's Stats through the standard
// library's expvar, so /debug/vars shows them with no dependency:
//
//	expvars.Publish("schedkit", e)
//	http.ListenAndServe("localhost:8080", nil) // GET /debug/vars
//
// The variable is an expvar.Func: Stats is read when the variable is
// read, never in between. Its JSON is executor.Stats as encoding/json writes
// it (durations in nanoseconds): {"Procs":[{"Tasks":...},...],"Total":{...},
// "GlobalLen":0,"Ms":2,...,"Latency":{"Count":..,"P50":..,"P99":..,"Max":..,"Sum":..,
// "Buckets":[{"Lower":..,"Upper":..,"Count":..},...]}}.
//
// # Properties -> tests
//
//	the JSON read back equals e.Stats() after a known workload   expvars_test.go TestPublishedJSONIsStats
//	  (TestJSONCheckCatchesStaleVar: the check catches a var that
//	  is not read at each read)
//	a second Publish of one name panics naming the call          expvars_test.go TestPublishTwicePanics
package expvars

import (
	"expvar"

	"github.com/schedkit/schedkit/executor"
)

// Func returns an expvar.Var that reads e.Stats each time it is read, for
// use in an expvar.Map or under a name of the caller's choosing.
func Func(e *executor.Executor) expvar.Func {
	if e == nil {
		panic("expvars.Func: nil executor")
	}
	return func() any { return e.Stats() }
}

// Publish publishes e's Stats as the expvar named name. Like
// expvar.Publish, it panics if the name is taken: two executors need two
// names.
func Publish(name string, e *executor.Executor) {
	if expvar.Get(name) != nil {
		panic("expvars.Publish: the name " + name + " is already published")
	}
	expvar.Publish(name, Func(e))
}
