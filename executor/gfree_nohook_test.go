//go:build !schedcheck

package executor

// FreeZeroPinned needs atomicx's hook (gfree_hook_test.go): not applicable
// without -tags schedcheck.
func FreeZeroPinned(bool) (applicable bool, err error) { return false, nil }
