package fuzz

import "fmt"

// Rest returns the bytes not yet consumed. It does not copy them.
func (r *Reader) Rest() []byte { return r.b[r.off:] }

// An interleaved input is the bytes of an interleaved target: its first
// byte n says how many bytes after it hold the program (a target's set-up
// and its steps, which Spec.Decode reads); everything after those is the
// schedule, the bytes the explorer takes its scheduling decisions from
// (explore's mode Bytes). An n past the end takes every byte for
// the program and leaves an empty schedule.

// SplitInterleaved splits an interleaved input into its program and its
// schedule. It is total: any byte string splits, the empty one into two
// empty parts.
func SplitInterleaved(data []byte) (program, schedule []byte) {
	if len(data) == 0 {
		return nil, nil
	}
	n := min(int(data[0]), len(data)-1)
	return data[1 : 1+n], data[1+n:]
}

// JoinInterleaved is the input SplitInterleaved splits into program and
// schedule, for writing seeds. It panics if the program is longer than 255
// bytes.
func JoinInterleaved(program, schedule []byte) []byte {
	if len(program) > 255 {
		panic(fmt.Sprintf("fuzz: JoinInterleaved: a program of %d bytes, the most is 255", len(program)))
	}
	out := make([]byte, 0, 1+len(program)+len(schedule))
	out = append(out, byte(len(program)))
	out = append(out, program...)
	return append(out, schedule...)
}

// Threads groups p's steps by actor, each actor becoming a thread of the
// interleaved program: Threads()[i] holds actor i's steps in program order.
// A thread keeps at most perThread steps (the rest are dropped), so that an
// execution stays short enough to explore. perThread < 1 keeps every step.
func (p Program) Threads(perThread int) [][]Step {
	out := make([][]Step, p.Actors)
	for _, st := range p.Steps {
		if perThread < 1 || len(out[st.Actor]) < perThread {
			out[st.Actor] = append(out[st.Actor], st)
		}
	}
	return out
}
