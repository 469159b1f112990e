//go:build !schedcheck

package runnext_test

import "testing"

// hookScenarios pin races with atomicx's hook, which only a schedcheck
// build has; here each says so.
var hookScenarios = []xscenario{
	{"a thief's CAS between the owner's load and its take", "TakeWithoutCAS", func(*testing.T) error { return errNeedsHook }},
	{"a thief as Slot.Put stores the task that displaces another", "PublishBeforeTask", func(*testing.T) error { return errNeedsHook }},
	{"a thief as Slot.Put stores the task of an empty slot", "PublishBeforeTask", func(*testing.T) error { return errNeedsHook }},
	{"Empty while the owner moves the runnext task into the ring and takes a new one", "EmptyMissesRunnext", func(*testing.T) error { return errNeedsHook }},
	{"Empty across a Put, a Get, a PutNext and a thief's steal", "SeqBeforePut", func(*testing.T) error { return errNeedsHook }},
}
