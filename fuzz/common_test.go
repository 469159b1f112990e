package fuzz_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/schedkit/schedkit/fuzz"
)

// What the five sequential targets (FuzzRing, FuzzRunnext, FuzzGlobalQ,
// FuzzStealing, FuzzSpinning) share: their seeds, their f.Fuzz body, the
// test of their hand-written seeds and the test that their interpreter
// rejects broken components. Each target file keeps its own model.

// item is what the components carry. Every item an interpreter or an
// execution makes has a fresh id.
type item struct{ id int }

// sentinel (id -1) only ever sits in a caller's buffer, a Drain's dst,
// which the call must append to and keep.
var sentinel = &item{id: -1}

// pastSentinel checks that got, what a call returned for a buffer of
// the caller's (called buf in the message) that held the sentinel if held,
// still starts with it, and returns what the call appended.
func pastSentinel(got []*item, held bool, call, buf string) ([]*item, error) {
	if !held {
		return got, nil
	}
	if len(got) == 0 || got[0] != sentinel {
		return nil, fmt.Errorf("%s lost %s's first element: %s", call, buf, ids(got))
	}
	return got[1:], nil
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func ids(ts []*item) string {
	s := make([]string, len(ts))
	for i, t := range ts {
		if t == nil {
			s[i] = "nil"
		} else {
			s[i] = fmt.Sprint(t.id)
		}
	}
	return "[" + strings.Join(s, " ") + "]"
}

func id(t *item) string {
	if t == nil {
		return "nil"
	}
	return fmt.Sprint(t.id)
}

// panics runs f and returns the value it panicked with, or nil.
func panics(f func()) (v any) {
	defer func() { v = recover() }()
	f()
	return nil
}

// seqStep is a step of a hand-written sequential program.
func seqStep(actor, op, arg int) fuzz.Step { return fuzz.Step{Actor: actor, Op: op, Arg: arg} }

// seqSteps runs p's steps in order, each then check (the component's
// lengths against the model's); a panic in a step that the model did not
// expect is an error too. The first error names its step and actor (who:
// "actor", "P", "M"). Once every step has passed, finish judges the end.
// seen comes back with the step count.
func seqSteps(spec fuzz.Spec, p fuzz.Program, who string, seen map[string]int,
	step func(fuzz.Step) error, check, finish func() error) (map[string]int, error) {
	for n, st := range p.Steps {
		var err error
		if v := panics(func() { err = step(st) }); v != nil {
			err = fmt.Errorf("unexpected panic: %v", v)
		}
		if err == nil {
			err = check()
		}
		if err != nil {
			return seen, fmt.Errorf("step %d (%s %d %s(%d)): %w", n, who, st.Actor, spec.Ops[st.Op].Name, st.Arg, err)
		}
	}
	seen["steps"] = len(p.Steps)
	return seen, finish()
}

// seqTarget is one sequential target: its program format, its hand-written
// programs, and its interpreter run on the real component, which returns
// how often each path of the model was taken and the first difference from
// the model.
type seqTarget struct {
	spec      fuzz.Spec
	seeds     func() []fuzz.Program
	interpret func(data []byte) (map[string]int, error)
	bubble    bool // each input runs in a testing/synctest bubble (fake clock)
}

// inBubble runs body on t, in a synctest bubble if the target needs one.
func (g seqTarget) inBubble(t *testing.T, body func(t *testing.T)) {
	if g.bubble {
		synctest.Test(t, body)
		return
	}
	body(t)
}

// fuzz is the body of the target: the hand-written seeds and the corpus
// files as seeds, and every input compared with the model.
func (g seqTarget) fuzz(f *testing.F) {
	for _, p := range g.seeds() {
		f.Add(g.spec.Encode(p))
	}
	for _, b := range corpusSeeds(f) {
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		g.inBubble(t, func(t *testing.T) {
			if _, err := g.interpret(data); err != nil {
				t.Fatalf("%v\nprogram: %s", err, g.spec.Format(g.spec.Decode(data)))
			}
		})
	})
}

// testSeeds runs the hand-written seeds, which must round-trip through the
// spec, pass, and together take every one of paths; it logs how far the
// corpus files reach.
func (g seqTarget) testSeeds(t *testing.T, paths []string) {
	g.inBubble(t, func(t *testing.T) {
		hand := map[string]int{}
		for n, p := range g.seeds() {
			b := g.spec.Encode(p)
			if got := g.spec.Decode(b); !slices.Equal(got.Steps, p.Steps) || got.Actors != p.Actors {
				t.Fatalf("seed %d does not round-trip: %+v", n, got)
			}
			seen, err := g.interpret(b)
			if err != nil {
				t.Errorf("seed %d: %v", n, err)
			}
			for k, v := range seen {
				hand[k] += v
			}
		}
		for _, path := range paths {
			if hand[path] == 0 {
				t.Errorf("no hand-written seed takes the path %q", path)
			}
		}
		t.Logf("hand-written seeds: %v", hand)
		corpus := map[string]int{}
		for path, b := range corpusSeeds(t) {
			seen, err := g.interpret(b)
			if err != nil {
				t.Errorf("%s: %v", path, err)
			}
			for k, v := range seen {
				corpus[k] += v
			}
		}
		t.Logf("corpus seeds: %v", corpus)
	})
}

// brokenVariant is a broken build of a component (newX makes it) that an
// interpreter must reject with an error mentioning want.
type brokenVariant[N any] struct {
	name string
	newX N
	want string
}

// catchesBroken runs each variant in a subtest: run interprets the fixed
// program on it and must fail, for the expected reason. what names the
// component in the message.
func catchesBroken[N any](t *testing.T, what string, variants []brokenVariant[N], run func(t *testing.T, newX N) error) {
	t.Helper()
	for _, b := range variants {
		t.Run(b.name, func(t *testing.T) {
			err := run(t, b.newX)
			if err == nil {
				t.Fatalf("the interpreter accepted a broken %s", what)
			}
			if !strings.Contains(err.Error(), b.want) {
				t.Fatalf("error %q, want one mentioning %q", err, b.want)
			}
			t.Logf("caught: %v", err)
		})
	}
}

// corpusSeeds returns every file under testdata/corpus/<format>/.
func corpusSeeds(tb testing.TB) map[string][]byte {
	seeds := map[string][]byte{}
	err := filepath.WalkDir(filepath.Join("testdata", "corpus"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if filepath.Dir(filepath.Dir(path)) != filepath.Join("testdata", "corpus") {
			return nil // the LICENSE beside the format folders
		}
		b, err := os.ReadFile(path)
		seeds[path] = b
		return err
	})
	if err != nil {
		tb.Fatalf("reading the seed corpus: %v", err)
	}
	if len(seeds) == 0 {
		tb.Fatal("no seed corpus under testdata/corpus")
	}
	return seeds
}
