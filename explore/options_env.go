package explore

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// The environment variables that set Options for every exploration of a
// test binary, over what the code says, without editing the tests (the
// replay command a failure prints carries them):
//
//	SCHEDKIT_EXPLORE_MAXSTEPS=50000     Options.MaxSteps
//	SCHEDKIT_EXPLORE_DEADLINE=10m       Options.Deadline (a time.Duration)
//	SCHEDKIT_EXPLORE_SEED=7             Options.Seed (Random, PCT)
//	SCHEDKIT_EXPLORE_KEEPGOING=1        Options.KeepGoing (0 turns it off)
//	SCHEDKIT_EXPLORE_MAXFAILURES=5      Options.MaxFailures
//
// ModeEnv and MaxExecutionsEnv choose the search and cap its executions.
const (
	MaxStepsEnv    = "SCHEDKIT_EXPLORE_MAXSTEPS"
	DeadlineEnv    = "SCHEDKIT_EXPLORE_DEADLINE"
	SeedEnv        = "SCHEDKIT_EXPLORE_SEED"
	KeepGoingEnv   = "SCHEDKIT_EXPLORE_KEEPGOING"
	MaxFailuresEnv = "SCHEDKIT_EXPLORE_MAXFAILURES"
)

// optionsFromEnv applies the variables above that are set.
func (c *config) optionsFromEnv() error {
	num := func(k string, dst *int) error {
		v := strings.TrimSpace(os.Getenv(k))
		if v == "" {
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return fmt.Errorf("explore %s: %s=%q: want a positive number", c.Name, k, v)
		}
		*dst = n
		return nil
	}
	if err := num(MaxStepsEnv, &c.MaxSteps); err != nil {
		return err
	}
	if err := num(MaxFailuresEnv, &c.MaxFailures); err != nil {
		return err
	}
	if v := strings.TrimSpace(os.Getenv(DeadlineEnv)); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return fmt.Errorf("explore %s: %s=%q: want a positive duration (90s, 10m)", c.Name, DeadlineEnv, v)
		}
		c.Deadline = d
	}
	if v := strings.TrimSpace(os.Getenv(SeedEnv)); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("explore %s: %s=%q: want an integer", c.Name, SeedEnv, v)
		}
		c.Seed = n
	}
	switch v := strings.TrimSpace(os.Getenv(KeepGoingEnv)); v {
	case "":
	case "1":
		c.KeepGoing = true
	case "0":
		c.KeepGoing = false
	default:
		return fmt.Errorf("explore %s: %s=%q: want 1 or 0", c.Name, KeepGoingEnv, v)
	}
	return nil
}
