//go:build schedcheck

package netpoll_test

// schedcheckBuild reports a build with -tags schedcheck, where every atomicx
// operation passes through the explorer's hook.
const schedcheckBuild = true
