//go:build !schedcheck

package lfq_test

import "github.com/schedkit/schedkit/atomicx"

// injectAt needs atomicx's hook, which exists only under -tags schedcheck.
func injectAt(uintptr, int, func(), func()) (bool, error) { return false, errNoHook }

// countAccesses needs atomicx's hook too.
func countAccesses(uintptr, atomicx.Op, func()) (int, error) { return 0, errNoHook }
