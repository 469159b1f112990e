package msqueue

import "testing"

func TestFIFO(t *testing.T) {
	q := New()
	if _, ok := q.Dequeue(); ok {
		t.Fatal("dequeue of an empty queue succeeded")
	}
	for i := range 5 {
		q.Enqueue(i)
	}
	for want := range 5 {
		if got, ok := q.Dequeue(); !ok || got != want {
			t.Fatalf("Dequeue = %d, %v; want %d", got, ok, want)
		}
	}
}
