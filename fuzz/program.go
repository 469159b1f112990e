package fuzz

import (
	"fmt"
	"strings"
)

// DefaultMaxSteps bounds a decoded program when Spec.MaxSteps is zero.
const DefaultMaxSteps = 1024

// Reader hands out the bytes of a fuzz input as small integers. It is
// deterministic and total: once the input is exhausted every read returns
// zero, so any byte string decodes to something.
type Reader struct {
	b   []byte
	off int
}

// NewReader returns a Reader over b. It does not copy b.
func NewReader(b []byte) *Reader { return &Reader{b: b} }

// Len returns the number of bytes not yet consumed.
func (r *Reader) Len() int { return len(r.b) - r.off }

// Byte consumes one byte and returns it, or returns 0, false when the input
// is exhausted.
func (r *Reader) Byte() (byte, bool) {
	if r.off >= len(r.b) {
		return 0, false
	}
	c := r.b[r.off]
	r.off++
	return c, true
}

// Bool consumes one byte and reports whether it is odd.
func (r *Reader) Bool() bool {
	c, _ := r.Byte()
	return c&1 == 1
}

// Intn returns a value in [0, n). It consumes IntnWidth(n) bytes, read big
// endian, and reduces them modulo n; missing bytes read as zero. For n <= 1
// it consumes nothing and returns 0.
func (r *Reader) Intn(n int) int {
	w := IntnWidth(n)
	if w == 0 {
		return 0
	}
	var v uint64
	for range w {
		c, _ := r.Byte()
		v = v<<8 | uint64(c)
	}
	return int(v % uint64(n))
}

// IntnWidth returns how many bytes Reader.Intn(n) consumes: 0 for n <= 1,
// then 1, 2, 4 or 8, the fewest that can hold every value below n.
func IntnWidth(n int) int {
	switch {
	case n <= 1:
		return 0
	case n <= 1<<8:
		return 1
	case n <= 1<<16:
		return 2
	case uint64(n) <= 1<<32:
		return 4
	default:
		return 8
	}
}

// Op describes one operation of a target's program.
type Op struct {
	Name string // for messages
	Args int    // the argument is in [0, Args); 0 or 1: the operation takes none
}

// Spec describes the programs of one target: how many actors, which
// operations. Its zero value is not usable; a Spec needs MinActors >= 1,
// MaxActors >= MinActors and at least one Op.
type Spec struct {
	MinActors, MaxActors int
	Ops                  []Op
	MaxSteps             int // 0 means DefaultMaxSteps
}

// Step is one operation by one actor. Actor is in [0, Program.Actors), Op
// indexes Spec.Ops and Arg is in [0, Spec.Ops[Op].Args).
type Step struct {
	Actor, Op, Arg int
}

// Program is a decoded fuzz input: the number of actors and the steps, run
// in order.
type Program struct {
	Actors int
	Steps  []Step
}

func (s Spec) check() {
	if s.MinActors < 1 || s.MaxActors < s.MinActors || len(s.Ops) == 0 || s.MaxSteps < 0 {
		panic(fmt.Sprintf("fuzz: invalid Spec: actors %d..%d, %d ops, max steps %d",
			s.MinActors, s.MaxActors, len(s.Ops), s.MaxSteps))
	}
}

func (s Spec) maxSteps() int {
	if s.MaxSteps == 0 {
		return DefaultMaxSteps
	}
	return s.MaxSteps
}

// Decode turns b into a program. The first Intn reads the number of actors
// (MinActors plus a value below MaxActors-MinActors+1); then, while input is
// left and fewer than MaxSteps steps have been read, each step reads its
// actor, its operation and, if the operation takes one, its argument. A step
// cut short by the end of the input reads zeros for what is missing.
// Decode panics if s is invalid.
func (s Spec) Decode(b []byte) Program {
	s.check()
	r := NewReader(b)
	p := Program{Actors: s.MinActors + r.Intn(s.MaxActors-s.MinActors+1)}
	for max := s.maxSteps(); len(p.Steps) < max && r.Len() > 0; {
		st := Step{Actor: r.Intn(p.Actors), Op: r.Intn(len(s.Ops))}
		st.Arg = r.Intn(s.Ops[st.Op].Args)
		p.Steps = append(p.Steps, st)
	}
	return p
}

// Encode returns bytes that Decode turns back into p, for writing seeds by
// hand. It panics if p does not fit s (an actor count, actor, operation or
// argument out of range). A program of more than MaxSteps steps is cut when
// decoded, as is any program whose steps consume no bytes at all (one
// actor, one operation, no argument).
func (s Spec) Encode(p Program) []byte {
	s.check()
	if p.Actors < s.MinActors || p.Actors > s.MaxActors {
		panic(fmt.Sprintf("fuzz: Encode: %d actors, want %d..%d", p.Actors, s.MinActors, s.MaxActors))
	}
	var b []byte
	b = putIntn(b, p.Actors-s.MinActors, s.MaxActors-s.MinActors+1)
	for i, st := range p.Steps {
		if st.Actor < 0 || st.Actor >= p.Actors || st.Op < 0 || st.Op >= len(s.Ops) ||
			st.Arg < 0 || st.Arg >= max(s.Ops[st.Op].Args, 1) {
			panic(fmt.Sprintf("fuzz: Encode: step %d %+v out of range", i, st))
		}
		b = putIntn(b, st.Actor, p.Actors)
		b = putIntn(b, st.Op, len(s.Ops))
		b = putIntn(b, st.Arg, s.Ops[st.Op].Args)
	}
	return b
}

// putIntn appends v (< n) in the IntnWidth(n) bytes that Intn(n) reads.
func putIntn(b []byte, v, n int) []byte {
	for i := IntnWidth(n) - 1; i >= 0; i-- {
		b = append(b, byte(uint64(v)>>(8*i)))
	}
	return b
}

// Format writes p one step a line, with the operations' names, for failure
// messages.
func (s Spec) Format(p Program) string {
	var sb strings.Builder
	fmt.Fprintf(&sb, "%d actors, %d steps\n", p.Actors, len(p.Steps))
	for i, st := range p.Steps {
		name := fmt.Sprintf("op%d", st.Op)
		if st.Op >= 0 && st.Op < len(s.Ops) {
			name = s.Ops[st.Op].Name
		}
		fmt.Fprintf(&sb, "%4d: actor %d %s(%d)\n", i, st.Actor, name, st.Arg)
	}
	return sb.String()
}
