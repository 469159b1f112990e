package treiber

import "testing"

func TestLIFO(t *testing.T) {
	s := New(3)
	if _, ok := s.Pop(); ok {
		t.Fatal("pop of an empty stack succeeded")
	}
	for i := range 3 {
		s.Push(i)
	}
	for want := 2; want >= 0; want-- {
		if got, ok := s.Pop(); !ok || got != want {
			t.Fatalf("Pop = %d, %v; want %d", got, ok, want)
		}
	}
}
