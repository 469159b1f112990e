//go:build !schedcheck

package lfq_test

// injectAt needs atomicx's hook, which exists only under -tags schedcheck.
func injectAt(uintptr, int, func(), func()) (bool, error) { return false, errNoHook }
