module github.com/schedkit/schedkit/bench

go 1.25

require (
	github.com/Workiva/go-datastructures v1.1.7
	github.com/schedkit/schedkit v0.0.0
)

replace github.com/schedkit/schedkit => ../
