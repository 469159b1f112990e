package explore

import (
	"fmt"
	"strconv"
	"strings"
)

// encodeSchedule writes the thread chosen at every scheduling point,
// run-length encoded: runs separated by dots, "TxN" for N steps of thread T
// and "T" for one; "-" for no step at all.
func encodeSchedule(s []uint8) string {
	if len(s) == 0 {
		return "-"
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		j := i + 1
		for j < len(s) && s[j] == s[i] {
			j++
		}
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strconv.Itoa(int(s[i])))
		if j-i > 1 {
			b.WriteByte('x')
			b.WriteString(strconv.Itoa(j - i))
		}
		i = j
	}
	return b.String()
}

// parseSchedule reads what encodeSchedule writes.
func parseSchedule(s string) ([]uint8, error) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, tokenPrefix) {
		return parseToken(s) // token.go
	}
	if s == "-" {
		return []uint8{}, nil
	}
	var out []uint8
	for run := range strings.SplitSeq(s, ".") {
		th, n, hasCount := strings.Cut(run, "x")
		t, err := strconv.Atoi(th)
		if err != nil || t < 0 || t >= MaxThreads {
			return nil, fmt.Errorf("bad thread %q in schedule %q", th, s)
		}
		count := 1
		if hasCount {
			count, err = strconv.Atoi(n)
			if err != nil || count < 1 || count > 1<<20 {
				return nil, fmt.Errorf("bad count %q in schedule %q", n, s)
			}
		}
		for range count {
			out = append(out, uint8(t))
		}
	}
	return out, nil
}
