package explore

// SetFair turns fair scheduling of yields on or off (off is the broken
// variant the fairness tests must catch), and returns a function restoring
// it.
func SetFair(on bool) (restore func()) {
	old := fairOff
	fairOff = !on
	return func() { fairOff = old }
}

// SetAwait turns DPOR's await reduction of spin loops on or off, and
// returns a function restoring it.
func SetAwait(on bool) (restore func()) {
	old := awaitOff
	awaitOff = !on
	return func() { awaitOff = old }
}

// SetAwaitMutant seeds a fault in the await reduction ("await-never-woken":
// awaiting threads stay blocked when nothing else can run; "" none), and
// returns a function restoring it.
func SetAwaitMutant(m string) (restore func()) {
	old := awaitMutant
	awaitMutant = m
	return func() { awaitMutant = old }
}

// SetLivelockMutant seeds a fault in the livelock rule
// ("streak-survives-writes"; "" none), and returns a function restoring it.
func SetLivelockMutant(m string) (restore func()) {
	old := livelockMutant
	livelockMutant = m
	return func() { livelockMutant = old }
}
