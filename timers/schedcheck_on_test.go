//go:build schedcheck

package timers_test

// schedcheckBuild reports a build with -tags schedcheck, where every atomicx
// operation passes through the explorer's hook (which allocates in Lock).
const schedcheckBuild = true
