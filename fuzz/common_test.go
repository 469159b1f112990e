package fuzz_test

import (
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

// seqStep is a step of a hand-written sequential program.
func seqStep(actor, op, arg int) fuzz.Step { return fuzz.Step{Actor: actor, Op: op, Arg: arg} }

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
