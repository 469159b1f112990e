package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The scrape after the demo: its task total is the demo's.
func TestDemoPromScrape(t *testing.T) {
	var o, e strings.Builder
	require.Equal(t, 0, run([]string{"-files", "40", "-procs", "2", "-quiet"}, &o, &e), "stderr: %s", e.String())
	out := o.String()
	tasks := regexp.MustCompile(`demo: (\d+) tasks on`).FindStringSubmatch(out)
	require.NotNil(t, tasks, out)
	assert.Contains(t, out, "\ndemo: the Prometheus scrape (metrics/prom):\n")
	assert.Contains(t, out, "\nschedkit_tasks_total "+tasks[1]+"\n")
	assert.Contains(t, out, "# TYPE schedkit_p_tasks_total counter\n")
	assert.Contains(t, out, "schedkit_procs 2\n")

	e.Reset()
	assert.Equal(t, 2, run([]string{"-procs", "x"}, &o, &e))
	assert.Contains(t, e.String(), "schedkit demo -h lists the flags")
}
