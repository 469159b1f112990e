//go:build schedcheck

package executor

import (
	"errors"
	"testing"

	"github.com/schedkit/schedkit/netpoll"
)

// pollInject makes fakeFD ready for m in the fake kernel.
func pollInject(e *Executor, m netpoll.Mode) { e.np.Load().sys.inject(fakeFD, m) }

// pollBroken is how many blocking waits of the fake kernel a break ended.
func pollBroken(e *Executor) uint32 { return e.np.Load().sys.broken.Load() }

// pollFake makes e's poller and lets its fake kernel take descriptors
// (pollSys.fake): a scenario calls it before it opens fakeFD.
func pollFake(e *Executor) {
	np, err := e.netpoller()
	if err != nil {
		panic(err)
	}
	np.sys.fake = true
}

// TestOpenFDFailsWithoutExplorer: in a schedcheck build, OpenFD outside an
// explorer scenario returns errNoRealPoll at once; a real descriptor would
// otherwise be registered with a kernel that never reports it ready, and
// its reader would park forever.
func TestOpenFDFailsWithoutExplorer(t *testing.T) {
	e, err := New(Config{Procs: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	if _, err := e.OpenFD(fakeFD); !errors.Is(err, errNoRealPoll) {
		t.Fatalf("OpenFD in a schedcheck build outside a scenario: %v, want %v", err, errNoRealPoll)
	}
	pollFake(e)
	f, err := e.OpenFD(fakeFD)
	if err != nil {
		t.Fatalf("OpenFD after pollFake: %v", err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}
