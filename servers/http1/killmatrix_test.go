//go:build schedmutant

package http1_test

import (
	"testing"

	"github.com/schedkit/schedkit/internal/killmatrix"
	"github.com/schedkit/schedkit/servers/http1"
)

// Bar item 8 for the request parser: every seeded mutation
// (servers/http1/mutation.go) against its three deterministic checkers, the
// parse table (TestReadRequest's cases), the exact conversations with a real
// server over loopback (TestConversations') and the fuzz target's property
// on its seeds (parse, write, parse back); the real clients (net/http, and
// a conversation sent a byte at a time) are an extra column of the full
// table. There is no spec, so the TLC column reads n/a.
//
// Run it with go test -tags schedcheck,schedmutant -run '^TestKillMatrix$' ./servers/http1/
var killConfig = killmatrix.Config{
	Component: "http1",
	CellTest:  "TestKillMatrixCell",
	Mutations: http1.Mutations(),
	Set:       http1.SetMutation,
	Checkers: []killmatrix.Checker{
		{Name: "table", Run: func(*testing.T) error { return checkParseCases(http1.ReadRequest) }, Deterministic: true},
		{Name: "conversation", Run: func(t *testing.T) error { return runConversations(t, transports[0]) }, Deterministic: true},
		{Name: "roundtrip", Run: func(*testing.T) error { return checkRequestSeeds() }, Deterministic: true},
		// An extra: Go's client and the byte-at-a-time one, whose segments
		// and retries this package does not choose.
		{Name: "clients", Run: func(t *testing.T) error {
			if err := runNetHTTPClient(t, transports[0]); err != nil {
				return err
			}
			return runSlowClient(t, transports[0])
		}},
	},
	Killers: map[string][]string{
		"ContentLengthShort": {"table", "roundtrip"},
		"HeaderLimitIgnored": {"table", "conversation"},
		"LineLimitOffByOne":  {"table", "conversation"},
		"HTTP10KeepsAlive":   {"table", "conversation"},
		"ChunkCRLFUnchecked": {"table", "roundtrip"},
	},
}

// TestKillMatrixCell is one cell, run only as a child of TestKillMatrix.
func TestKillMatrixCell(t *testing.T) { killmatrix.Cell(t, killConfig) }

func TestKillMatrix(t *testing.T) { killmatrix.Run(t, killConfig) }
