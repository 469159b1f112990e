package explore

// SetRaceFault seeds a fault into the data-race checker (race.go's
// raceFault) and returns a function that removes it.
func SetRaceFault(f string) (restore func()) {
	old := raceFault
	raceFault = f
	return func() { raceFault = old }
}
