package stealing

import "fmt"

// MaxProcs is the largest number of Ps an Order (and so a Stealer) takes.
// The bound keeps Reset's table of strides small; it is far above any
// GOMAXPROCS a machine runs with.
const MaxProcs = 1 << 16

// Order is the order in which a thief visits the Ps: for a P count n it
// holds every stride in 1..n that is coprime with n, and Start picks a
// starting P and one of those strides from a random number. Walking n steps
// of a coprime stride from any start visits every P exactly once, so one
// pass is a permutation of the Ps, picked at random among n times the
// number of strides, without any allocation or shuffling. It is the
// runtime's randomOrder (proc.go).
//
// An Order is written only by Reset; after that any number of goroutines
// may call Start at once. The zero value has no Ps: Reset it first.
type Order struct {
	count    uint32
	coprimes []uint32
}

// Reset prepares o for n Ps: it lists the strides in 1..n that share no
// factor with n (for n = 1 that is the stride 1). It returns an error, and
// leaves o as it was, if n is not in 1..MaxProcs. It mirrors
// randomOrder.reset (called by procresize); Steal.tla's operator
// Coprimes(n) is the same list.
func (o *Order) Reset(n int) error {
	if n < 1 || n > MaxProcs {
		return fmt.Errorf("stealing: Order.Reset called with %d Ps, want 1..%d: %w", n, MaxProcs, ErrProcCount)
	}
	o.count = uint32(n)
	o.coprimes = o.coprimes[:0]
	for s := uint32(1); s <= o.count; s++ {
		if gcd(s, o.count) == 1 || mutant == strideNotCoprime {
			o.coprimes = append(o.coprimes, s)
		}
	}
	return nil
}

// Count returns the number of Ps o was Reset for (0 for a zero Order).
func (o *Order) Count() int { return int(o.count) }

// Coprimes returns a copy of the strides Start chooses among, ascending.
func (o *Order) Coprimes() []uint32 { return append([]uint32(nil), o.coprimes...) }

// Start returns an enumeration of the Ps chosen by r: it starts at P
// r % n with stride Coprimes()[r/n % len(Coprimes())], so that r drawn
// uniformly from the uint32s picks (almost) uniformly among every start and
// every stride. It panics if o was never Reset. It mirrors
// randomOrder.start and Steal.tla's action Start.
func (o *Order) Start(r uint32) Enum {
	if o.count == 0 {
		panic("stealing: Order.Start called on an Order that was never Reset")
	}
	return Enum{
		count: o.count,
		pos:   r % o.count,
		inc:   o.coprimes[r/o.count%uint32(len(o.coprimes))],
	}
}

// Enum is one pass over the Ps, as Order.Start returns it:
//
//	for e := o.Start(r); !e.Done(); e = e.Next() {
//		visit(e.Position())
//	}
//
// It visits Count Ps, each exactly once. It is the runtime's randomEnum,
// as a value: Next returns the moved-on Enum instead of changing this one,
// so a pass keeps it in registers. In Steal.tla its position and stride
// are the variables pos and inc, moved on by the step Visit.
type Enum struct {
	i     uint32 // Ps visited so far
	count uint32
	pos   uint32
	inc   uint32
}

// Done reports whether the pass has visited every P. It mirrors
// randomEnum.done.
func (e Enum) Done() bool { return e.i == e.count }

// Next returns the enumeration moved on to the next P. It mirrors
// randomEnum.next, with a compare in place of its modulo: pos < count and
// inc <= count, so one subtraction wraps the sum.
func (e Enum) Next() Enum {
	e.i++
	e.pos += e.inc
	if e.pos >= e.count {
		e.pos -= e.count
	}
	return e
}

// Position returns the index of the P the pass is at. It mirrors
// randomEnum.position.
func (e Enum) Position() int { return int(e.pos) }

// Stride returns the step between two consecutive Positions.
func (e Enum) Stride() int { return int(e.inc) }

// gcd is Euclid's algorithm, as the runtime's gcd.
func gcd(a, b uint32) uint32 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
