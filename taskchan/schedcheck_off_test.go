//go:build !schedcheck

package taskchan_test

// schedcheckBuild reports a build with -tags schedcheck, where every atomicx
// operation passes through the explorer's hook: the real-time checks run in
// the plain build only.
const schedcheckBuild = false
