package once

import "testing"

func TestDoRunsOnce(t *testing.T) {
	var o Once
	n := 0
	for range 3 {
		o.Do(func() { n++ })
	}
	if n != 1 {
		t.Fatalf("f ran %d times", n)
	}
}
