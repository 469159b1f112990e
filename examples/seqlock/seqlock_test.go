package seqlock

import "testing"

func TestReadAfterWrite(t *testing.T) {
	var p Pair
	if a, b := p.Read(); a != 0 || b != 0 {
		t.Fatalf("zero Pair reads (%d, %d)", a, b)
	}
	p.Write(3, 4)
	if a, b := p.Read(); a != 3 || b != 4 {
		t.Fatalf("Read = (%d, %d), want (3, 4)", a, b)
	}
}
