package vyukovq

import "testing"

func TestFIFOAndBounds(t *testing.T) {
	q := New(4)
	if _, ok := q.Dequeue(); ok {
		t.Fatal("dequeue of an empty queue succeeded")
	}
	for lap := range 3 {
		for i := range 4 {
			if !q.Enqueue(uint64(lap*10 + i)) {
				t.Fatalf("lap %d: enqueue %d refused", lap, i)
			}
		}
		if q.Enqueue(99) {
			t.Fatal("enqueue into a full queue succeeded")
		}
		for i := range 4 {
			if v, ok := q.Dequeue(); !ok || v != uint64(lap*10+i) {
				t.Fatalf("lap %d: Dequeue = %d, %v", lap, v, ok)
			}
		}
	}
}

func TestNewRejectsBadSizes(t *testing.T) {
	for _, n := range []int{0, 1, 3, 6} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("New(%d) did not panic", n)
				}
			}()
			New(n)
		}()
	}
}
