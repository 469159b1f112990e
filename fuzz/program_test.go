package fuzz_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/schedkit/schedkit/fuzz"
)

func TestReader(t *testing.T) {
	r := fuzz.NewReader([]byte{7, 0x01, 0x2c, 3, 200})
	if got := r.Intn(256); got != 7 {
		t.Fatalf("Intn(256) = %d, want 7", got)
	}
	if got := r.Intn(301); got != 300 { // 0x012c, two bytes
		t.Fatalf("Intn(301) = %d, want 300", got)
	}
	if got := r.Intn(1); got != 0 || r.Len() != 2 {
		t.Fatalf("Intn(1) = %d and consumed to %d left, want 0 and nothing consumed", got, r.Len())
	}
	if !r.Bool() {
		t.Fatal("Bool of 3 is false")
	}
	if c, ok := r.Byte(); c != 200 || !ok {
		t.Fatalf("Byte() = %d, %v, want 200, true", c, ok)
	}
	if c, ok := r.Byte(); c != 0 || ok {
		t.Fatalf("Byte() past the end = %d, %v, want 0, false", c, ok)
	}
	if r.Intn(1000) != 0 || r.Bool() || r.Len() != 0 {
		t.Fatal("an exhausted Reader does not read zeros")
	}
	// A value cut short reads its missing bytes as zero.
	if got := fuzz.NewReader([]byte{1}).Intn(1 << 16); got != 256 {
		t.Fatalf("Intn(65536) of one byte 1 = %d, want 256", got)
	}
}

func TestIntnWidth(t *testing.T) {
	for _, c := range []struct{ n, w int }{
		{-1, 0}, {0, 0}, {1, 0}, {2, 1}, {256, 1}, {257, 2}, {1 << 16, 2}, {1<<16 + 1, 4}, {1 << 32, 4}, {1<<32 + 1, 8},
	} {
		if got := fuzz.IntnWidth(c.n); got != c.w {
			t.Errorf("IntnWidth(%d) = %d, want %d", c.n, got, c.w)
		}
	}
}

var testSpec = fuzz.Spec{
	MinActors: 1,
	MaxActors: 3,
	Ops:       []fuzz.Op{{Name: "a"}, {Name: "b", Args: 2}, {Name: "c", Args: 1000}},
	MaxSteps:  50,
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for range 1000 {
		p := fuzz.Program{Actors: 1 + rnd.IntN(3)}
		for range rnd.IntN(51) {
			op := rnd.IntN(3)
			p.Steps = append(p.Steps, fuzz.Step{
				Actor: rnd.IntN(p.Actors), Op: op, Arg: rnd.IntN(max(testSpec.Ops[op].Args, 1)),
			})
		}
		got := testSpec.Decode(testSpec.Encode(p))
		if got.Actors != p.Actors || !slices.Equal(got.Steps, p.Steps) {
			t.Fatalf("round trip of\n%s gave\n%s", testSpec.Format(p), testSpec.Format(got))
		}
	}
}

func TestDecodeTotalAndBounded(t *testing.T) {
	if p := testSpec.Decode(nil); p.Actors != 1 || len(p.Steps) != 0 {
		t.Fatalf("Decode(nil) = %+v, want 1 actor and no steps", p)
	}
	big := make([]byte, 4096)
	for i := range big {
		big[i] = byte(i * 7)
	}
	p := testSpec.Decode(big)
	if len(p.Steps) != testSpec.MaxSteps {
		t.Fatalf("Decode of 4 KiB gave %d steps, want the cap %d", len(p.Steps), testSpec.MaxSteps)
	}
	for _, st := range p.Steps {
		if st.Actor < 0 || st.Actor >= p.Actors || st.Op < 0 || st.Op >= len(testSpec.Ops) ||
			st.Arg < 0 || st.Arg >= max(testSpec.Ops[st.Op].Args, 1) {
			t.Fatalf("step out of range: %+v", st)
		}
	}
	if s := testSpec.Format(p); strings.Count(s, "\n") != len(p.Steps)+1 {
		t.Fatalf("Format wrote %d lines for %d steps", strings.Count(s, "\n"), len(p.Steps))
	}
	if got := (fuzz.Spec{MinActors: 1, MaxActors: 1, Ops: []fuzz.Op{{Name: "x"}}}).Decode([]byte{1}); len(got.Steps) != fuzz.DefaultMaxSteps {
		t.Fatalf("a spec whose steps read no bytes gave %d steps, want DefaultMaxSteps", len(got.Steps))
	}
}

func TestSpecMisuse(t *testing.T) {
	for name, f := range map[string]func(){
		"zero Spec":            func() { fuzz.Spec{}.Decode(nil) },
		"MaxActors < Min":      func() { fuzz.Spec{MinActors: 2, MaxActors: 1, Ops: testSpec.Ops}.Decode(nil) },
		"Encode actors":        func() { testSpec.Encode(fuzz.Program{Actors: 4}) },
		"Encode actor":         func() { testSpec.Encode(fuzz.Program{Actors: 1, Steps: []fuzz.Step{{Actor: 1}}}) },
		"Encode op":            func() { testSpec.Encode(fuzz.Program{Actors: 1, Steps: []fuzz.Step{{Op: 3}}}) },
		"Encode arg":           func() { testSpec.Encode(fuzz.Program{Actors: 1, Steps: []fuzz.Step{{Op: 2, Arg: 1000}}}) },
		"Encode arg of no-arg": func() { testSpec.Encode(fuzz.Program{Actors: 1, Steps: []fuzz.Step{{Op: 0, Arg: 1}}}) },
	} {
		func() {
			defer func() {
				if v := recover(); v == nil {
					t.Errorf("%s: no panic", name)
				} else if !strings.HasPrefix(v.(string), "fuzz: ") {
					t.Errorf("%s: panic %q does not name the package", name, v)
				}
			}()
			f()
		}()
	}
}

func TestInterleavedSplitJoin(t *testing.T) {
	for _, c := range []struct {
		data              []byte
		program, schedule []byte
	}{
		{nil, nil, nil},
		{[]byte{0}, []byte{}, []byte{}},
		{[]byte{2, 7, 8, 9}, []byte{7, 8}, []byte{9}},
		{[]byte{9, 7, 8}, []byte{7, 8}, []byte{}}, // n past the end: all program
	} {
		p, s := fuzz.SplitInterleaved(c.data)
		if !slices.Equal(p, c.program) || !slices.Equal(s, c.schedule) {
			t.Errorf("SplitInterleaved(%v) = %v, %v, want %v, %v", c.data, p, s, c.program, c.schedule)
		}
	}
	joined := fuzz.JoinInterleaved([]byte{1, 2, 3}, []byte{4, 5})
	if p, s := fuzz.SplitInterleaved(joined); !slices.Equal(p, []byte{1, 2, 3}) || !slices.Equal(s, []byte{4, 5}) {
		t.Errorf("JoinInterleaved does not split back: %v", joined)
	}
	defer func() {
		if recover() == nil {
			t.Error("JoinInterleaved of a 256-byte program did not panic")
		}
	}()
	fuzz.JoinInterleaved(make([]byte, 256), nil)
}

func TestProgramThreads(t *testing.T) {
	st := func(actor, op int) fuzz.Step { return fuzz.Step{Actor: actor, Op: op} }
	p := fuzz.Program{Actors: 3, Steps: []fuzz.Step{st(1, 0), st(0, 1), st(1, 2), st(1, 3), st(0, 4), st(1, 5)}}
	got := p.Threads(2)
	want := [][]fuzz.Step{{st(0, 1), st(0, 4)}, {st(1, 0), st(1, 2)}, nil}
	if len(got) != len(want) {
		t.Fatalf("Threads(2) has %d threads, want %d", len(got), len(want))
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("thread %d = %v, want %v", i, got[i], want[i])
		}
	}
	if all := p.Threads(0); len(all[1]) != 4 {
		t.Errorf("Threads(0) kept %d of actor 1's 4 steps", len(all[1]))
	}
	r := fuzz.NewReader([]byte{1, 2, 3})
	r.Byte()
	if rest := r.Rest(); !slices.Equal(rest, []byte{2, 3}) {
		t.Errorf("Rest() = %v, want [2 3]", rest)
	}
}
