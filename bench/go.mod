module github.com/schedkit/schedkit/bench

go 1.25.0

require (
	github.com/Workiva/go-datastructures v1.1.7
	github.com/alitto/pond/v2 v2.7.1
	github.com/panjf2000/ants/v2 v2.12.1
	github.com/schedkit/schedkit v0.0.0
	github.com/sourcegraph/conc v0.3.0
	golang.org/x/sync v0.22.0
)

require (
	go.uber.org/atomic v1.7.0 // indirect
	go.uber.org/multierr v1.9.0 // indirect
)

replace github.com/schedkit/schedkit => ../
