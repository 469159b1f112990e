package explore

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"sync"
	"time"
)

// RecordEnv is the environment variable that makes every exploration of a
// test binary append what it did to a file, one JSON line each (a Record),
// so that the same scenarios run under two searches (see ModeEnv) can be
// compared on the end states they reached, not only on their verdicts:
// SCHEDKIT_RECORD=/tmp/runs.jsonl. Lines are appended whole, so several
// binaries may share a file.
const RecordEnv = "SCHEDKIT_RECORD"

// Record is one exploration as RecordEnv writes it.
type Record struct {
	Name string `json:"name"`
	// Search is the search that ran, as ModeEnv names it: dpor, reduce,
	// unbounded or bound=N for DFS and DPOR; random, pct, bytes or replay
	// otherwise.
	Search     string `json:"search"`
	Complete   bool   `json:"complete"`
	Executions int    `json:"executions"`
	Pruned     int    `json:"pruned,omitempty"`
	// States and StateHash are Result's; Fingerprints lists the end
	// states' fingerprints, sorted, as 16 hex digits each.
	States       int      `json:"states"`
	StateHash    string   `json:"state_hash"`
	Fingerprints []string `json:"fingerprints,omitempty"`
	// Failure is the failure's message, if one stopped the search.
	Failure string  `json:"failure,omitempty"`
	Seconds float64 `json:"seconds"`
}

// search names the search c runs, as ModeEnv spells it.
func (c *config) search() string {
	switch {
	case c.replay != nil:
		return "replay"
	case c.Mode == DPOR:
		return "dpor"
	case c.Mode != DFS:
		return c.Mode.String()
	case c.Reduce:
		return "reduce"
	case c.bound < 0:
		return "unbounded"
	}
	return "bound=" + strconv.Itoa(c.bound)
}

var recordMu sync.Mutex

// record appends the exploration to the file RecordEnv names, if any.
func (e *explorer) record() error {
	path := os.Getenv(RecordEnv)
	if path == "" {
		return nil
	}
	r := Record{
		Name:       e.cfg.Name,
		Search:     e.cfg.search(),
		Complete:   e.res.Complete,
		Executions: e.res.Executions,
		Pruned:     e.res.Pruned,
		States:     e.res.States,
		StateHash:  fmt.Sprintf("%016x", e.res.StateHash),
		Seconds:    time.Since(e.start).Seconds(),
	}
	for _, fp := range e.stateList() {
		r.Fingerprints = append(r.Fingerprints, fmt.Sprintf("%016x", fp))
	}
	if e.res.Failure != nil {
		r.Failure = e.res.Failure.Err.Error()
	}
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	recordMu.Lock()
	defer recordMu.Unlock()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("explore %s: %s: %w", e.cfg.Name, RecordEnv, err)
	}
	_, err = f.Write(append(line, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("explore %s: %s: %w", e.cfg.Name, RecordEnv, err)
	}
	return nil
}
