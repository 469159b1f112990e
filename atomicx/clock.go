package atomicx

import "time"

// epoch is the instant Nanotime counts from in a normal build, and for
// goroutines the explorer does not control in a schedcheck build.
var epoch = time.Now()
