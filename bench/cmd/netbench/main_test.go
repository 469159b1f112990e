package main

import (
	"bytes"
	"strings"
	"testing"
)

// TestQuickWithoutTools: -quick -tools none runs every workload with the
// in-process generator, says the tools were not looked for, and prints a
// row per peer with figures for both sides.
func TestQuickWithoutTools(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run([]string{"-quick", "-tools", "none"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s%s", code, out.String(), errOut.String())
	}
	s := out.String()
	if !strings.Contains(s, "Missing: wrk, ab, redis-benchmark, redis-server: not looked for (-tools none)") {
		t.Errorf("no line saying the tools were not looked for:\n%s", s)
	}
	for _, row := range []string{"| http-hello | inproc | 8 | 1 | go |", "| http-hello | inproc | 8 | 1 | nethttp |",
		"| http-echo | inproc | 8 | 1 | go |", "| resp | inproc | 8 | 1 | go |"} {
		i := strings.Index(s, row)
		if i < 0 {
			t.Errorf("no row %q in:\n%s", row, s)
			continue
		}
		line, _, _ := strings.Cut(s[i:], "\n")
		if strings.Contains(line, "FAILED") || strings.Count(line, "| – |") > 0 {
			t.Errorf("row without figures: %s", line)
		}
	}
}

// TestFlagErrors: a bad flag value is exit 2 with the reason.
func TestFlagErrors(t *testing.T) {
	for _, args := range [][]string{{"-procs", "0"}, {"-conns", "x"}, {"-tools", "some"}, {"-count", "0"}, {"-run", "("}} {
		var out, errOut bytes.Buffer
		if code := run(args, &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "netbench") && !strings.Contains(errOut.String(), "invalid") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and the reason", args, code, errOut.String())
		}
	}
	if got := wrkSeconds(300e6); got != 1 {
		t.Errorf("wrkSeconds(300ms) = %d, want 1", got)
	}
}
