module github.com/schedkit/schedkit

go 1.25

require (
	github.com/stretchr/testify v1.12.1
	go.uber.org/goleak v1.3.0
	pgregory.net/rapid v1.3.0
)

require (
	github.com/anishathalye/porcupine v1.3.1 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
