//go:build schedmutant

package resp_test

import (
	"testing"

	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/servers/resp"
)

// Bar item 8 for the RESP server: every seeded mutation
// (servers/resp/mutation.go) against its four deterministic checkers, the
// parse table (TestReadCommand's cases), the command table (TestExec's),
// the exact conversations with a real server over loopback
// (TestConversations') and the fuzz target's property on its seeds (parse,
// write, parse back, run); the clients (8 pipelines, and conversations sent
// a byte at a time) are an extra column of the full table. There is no
// spec, so the TLC column reads n/a.
//
// Run it with go test -tags schedcheck,schedmutant -run '^TestKillMatrix$' ./servers/resp/
var killConfig = killmatrix.Config{
	Component: "resp",
	CellTest:  "TestKillMatrixCell",
	Mutations: resp.Mutations(),
	Set:       resp.SetMutation,
	Checkers: []killmatrix.Checker{
		{Name: "table", Run: func(*testing.T) error { return checkParseCases() }, Deterministic: true},
		{Name: "commands", Run: func(*testing.T) error { return checkExecCases() }, Deterministic: true},
		{Name: "conversation", Run: func(t *testing.T) error { return runConversations(t, transports[0]) }, Deterministic: true},
		{Name: "roundtrip", Run: func(*testing.T) error { return checkCommandSeeds() }, Deterministic: true},
		// An extra: the test's pipelining client and the byte-at-a-time
		// one, over real sockets.
		{Name: "clients", Run: func(t *testing.T) error {
			if err := runPipelinedClients(t, transports[0]); err != nil {
				return err
			}
			return runSlowClient(t, transports[0])
		}},
	},
	Killers: map[string][]string{
		"BulkLenShort":   {"table", "roundtrip"},
		"ArityUnchecked": {"commands", "conversation"},
		"IncrWraps":      {"commands", "conversation"},
	},
}

// TestKillMatrixCell is one cell, run only as a child of TestKillMatrix.
func TestKillMatrixCell(t *testing.T) { killmatrix.Cell(t, killConfig) }

func TestKillMatrix(t *testing.T) { killmatrix.Run(t, killConfig) }
