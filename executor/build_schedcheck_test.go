//go:build schedcheck

package executor_test

// schedcheckBuild: atomicx's hooks are compiled in, and may allocate.
const schedcheckBuild = true
