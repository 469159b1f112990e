package explore

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// ModeEnv is the environment variable that switches every DFS scenario a
// test binary runs to another search, without editing the tests:
// SCHEDKIT_MODE=dpor runs them under DPOR, =reduce under unbounded DFS with
// sleep sets (Reduce), =unbounded under unbounded DFS, =bound=N under DFS
// with preemption bound N. Scenarios that ask for Random, PCT, Bytes or DPOR,
// and replays, are left alone; MaxExecutions still applies. It is for
// comparing searches on existing suites (the package documentation's table
// came from it); a test that asserts its count of executions sees another.
const ModeEnv = "SCHEDKIT_MODE"

// MaxExecutionsEnv is the environment variable that lowers MaxExecutions
// of every DFS and DPOR scenario a test binary runs, never raising it:
// SCHEDKIT_MAX_EXECUTIONS=2000 with ModeEnv=unbounded runs, of a suite,
// the scenarios unbounded DFS finishes within 2000 executions and cuts the
// others short (Result.Complete is false for them).
const MaxExecutionsEnv = "SCHEDKIT_MAX_EXECUTIONS"

// maxExecutionsFromEnv applies MaxExecutionsEnv, once MaxExecutions has its
// default.
func (c *config) maxExecutionsFromEnv() error {
	v := strings.TrimSpace(os.Getenv(MaxExecutionsEnv))
	if v == "" || (c.Mode != DFS && c.Mode != DPOR) {
		return nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		return fmt.Errorf("explore %s: %s=%q: want a positive number of executions", c.Name, MaxExecutionsEnv, v)
	}
	c.MaxExecutions = min(c.MaxExecutions, n)
	return nil
}

// modeFromEnv applies ModeEnv to a DFS scenario.
func (c *config) modeFromEnv() error {
	v := strings.TrimSpace(os.Getenv(ModeEnv))
	if v == "" || c.Mode != DFS || c.Replay != "" {
		return nil
	}
	c.LongBound = 0
	switch {
	case v == "dpor":
		c.Mode, c.Reduce = DPOR, false
	case v == "reduce":
		c.Bound, c.Reduce = Unbounded, true
	case v == "unbounded":
		c.Bound, c.Reduce = Unbounded, false
	case strings.HasPrefix(v, "bound="):
		b, err := strconv.Atoi(strings.TrimPrefix(v, "bound="))
		if err != nil || b < 0 {
			return fmt.Errorf("explore %s: %s=%q: want bound=N with N >= 0", c.Name, ModeEnv, v)
		}
		c.Bound, c.Reduce = b, false
		if b == 0 {
			c.Bound = NoPreemption
		}
	default:
		return fmt.Errorf("explore %s: %s=%q: want dpor, reduce, unbounded or bound=N", c.Name, ModeEnv, v)
	}
	return nil
}
