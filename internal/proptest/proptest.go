// Package proptest proves that a property test can fail: ExpectFailure runs a
// rapid property on a Recorder instead of the test, so a test can assert
// that the property catches a deliberately broken implementation (docs/DESIGN.md:
// a check that cannot fail is a defect). Every component's model test uses it,
// and ExpectPanic for the hot-path misuse that must panic naming its call.
package proptest

import (
	"flag"
	"fmt"
	"strings"
	"sync"
	"testing"

	"pgregory.net/rapid"
)

// Recorder is a rapid.TB that records failures instead of failing the
// enclosing test.
type Recorder struct {
	name   string
	mu     sync.Mutex
	failed bool
	errs   []string
}

// failNow is what Recorder.FailNow panics with; ExpectFailure recovers it.
type failNow struct{}

func (f *Recorder) Helper()                   {}
func (f *Recorder) Name() string              { return f.name }
func (f *Recorder) Logf(string, ...any)       {}
func (f *Recorder) Log(...any)                {}
func (f *Recorder) Skipf(string, ...any)      { f.SkipNow() }
func (f *Recorder) Skip(...any)               { f.SkipNow() }
func (f *Recorder) SkipNow()                  { f.Errorf("rapid skipped the check"); f.FailNow() }
func (f *Recorder) Error(args ...any)         { f.Errorf("%s", fmt.Sprint(args...)) }
func (f *Recorder) Fatal(args ...any)         { f.Error(args...); f.FailNow() }
func (f *Recorder) Fatalf(s string, a ...any) { f.Errorf(s, a...); f.FailNow() }
func (f *Recorder) FailNow()                  { f.Fail(); panic(failNow{}) }

// Errorf records a failure.
func (f *Recorder) Errorf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed = true
	f.errs = append(f.errs, fmt.Sprintf(format, args...))
}

// Fail marks the run failed.
func (f *Recorder) Fail() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.failed = true
}

// Failed reports whether the property failed.
func (f *Recorder) Failed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

// Errors returns the failure messages, in order.
func (f *Recorder) Errors() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.errs...)
}

// FirstError returns the first line of the failure messages, or "".
func (f *Recorder) FirstError() string {
	first, _, _ := strings.Cut(strings.Join(f.Errors(), "\n"), "\n")
	return first
}

// setFlag sets a command-line flag for the rest of the test.
func setFlag(t *testing.T, name, value string) {
	t.Helper()
	fl := flag.Lookup(name)
	if fl == nil {
		t.Fatalf("no flag %s", name)
	}
	old := fl.Value.String()
	if err := fl.Value.Set(value); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = fl.Value.Set(old) })
}

// ExpectFailure runs rapid.Check(prop) on a Recorder and returns it. No fail
// file is written, shrinking is kept short, up to 1000 cases are tried and
// the seed is fixed, so the verdict on given code is the same on every run
// (the kill matrix counts it as a deterministic checker when prop itself
// starts no goroutines); rapid stops at the first failure.
func ExpectFailure(t *testing.T, prop func(*rapid.T)) *Recorder {
	t.Helper()
	setFlag(t, "rapid.checks", "1000")
	setFlag(t, "rapid.nofailfile", "true")
	setFlag(t, "rapid.shrinktime", "5s")
	setFlag(t, "rapid.seed", "1")
	rec := &Recorder{name: t.Name()}
	func() {
		defer func() {
			if r := recover(); r != nil {
				if _, ok := r.(failNow); !ok {
					panic(r)
				}
			}
		}()
		rapid.Check(rec, prop)
	}()
	return rec
}

// Fataler is what ExpectPanic reports to: a *testing.T, a *rapid.T or a
// Recorder.
type Fataler interface {
	Helper()
	Fatalf(format string, args ...any)
}

// Panicked runs f and returns what it panicked with, or nil.
func Panicked(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// ExpectPanic runs f, which must panic with a message containing want (a
// misuse on a hot path panics naming the call); what names the step in the
// failure.
func ExpectPanic(t Fataler, what, want string, f func()) {
	t.Helper()
	r := Panicked(f)
	if r == nil {
		t.Fatalf("%s: did not panic, want a panic containing %q", what, want)
	}
	if msg := fmt.Sprint(r); !strings.Contains(msg, want) {
		t.Fatalf("%s: panicked with %q, want a message containing %q", what, msg, want)
	}
}
