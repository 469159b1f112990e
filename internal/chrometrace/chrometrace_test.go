package chrometrace

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// good is a small valid trace: two tracks of one process, a nested slice,
// an X slice and an instant.
func good() *File {
	return &File{
		TraceEvents: []Event{
			ProcessName(1, "Ps"),
			ThreadName(1, 0, "P0"),
			ThreadName(1, 1, "P1"),
			{Name: "task", Ph: PhaseBegin, Ts: 1, Pid: 1, Tid: 0},
			{Name: "inner", Ph: PhaseBegin, Ts: 2, Pid: 1, Tid: 0},
			{Name: "task", Ph: PhaseBegin, Ts: 2, Pid: 1, Tid: 1},
			{Name: "inner", Ph: PhaseEnd, Ts: 3, Pid: 1, Tid: 0},
			{Name: "steal", Ph: PhaseInstant, S: "t", Ts: 3, Pid: 1, Tid: 1, Args: map[string]any{"victim": 0}},
			{Name: "task", Ph: PhaseEnd, Ts: 4, Pid: 1, Tid: 0},
			{Name: "task", Ph: PhaseEnd, Ts: 4, Pid: 1, Tid: 1},
			{Name: "x", Ph: PhaseComplete, Ts: 5, Dur: 2, Pid: 1, Tid: 1},
			{Name: "steal", Ph: PhaseFlowOut, ID: "1", Ts: 5, Pid: 1, Tid: 0},
			{Name: "steal", Ph: PhaseFlowIn, BP: "e", ID: "1", Ts: 6, Pid: 1, Tid: 1},
		},
		OtherData: map[string]any{"workload": "test"},
	}
}

func TestCheckAcceptsGood(t *testing.T) {
	require.NoError(t, Check(good()))
}

func TestWriteReadRoundTrip(t *testing.T) {
	var buf bytes.Buffer
	require.NoError(t, Write(&buf, good()))
	require.True(t, json.Valid(buf.Bytes()), buf.String())
	f, err := Read(&buf)
	require.NoError(t, err)
	require.NoError(t, Check(f))
	assert.Len(t, f.TraceEvents, len(good().TraceEvents))
	assert.Equal(t, "test", f.OtherData["workload"])
	assert.Equal(t, "P1", f.TraceEvents[2].Args["name"])

	buf.Reset()
	require.NoError(t, Write(&buf, &File{}))
	f, err = Read(&buf)
	require.NoError(t, err, buf.String())
	assert.Empty(t, f.TraceEvents)
}

func TestReadRejects(t *testing.T) {
	for name, in := range map[string]string{
		"not JSON":       "{",
		"no traceEvents": `{"events":[]}`,
		"array form":     `[{"name":"a","ph":"i"}]`,
	} {
		_, err := Read(bytes.NewBufferString(in))
		assert.Error(t, err, name)
	}
}

// TestCheckRejects breaks the good trace one rule at a time: each broken
// variant must be rejected, naming the rule.
func TestCheckRejects(t *testing.T) {
	for name, c := range map[string]struct {
		edit func(f *File)
		want string
	}{
		"B never ended":    {func(f *File) { f.TraceEvents = append(f.TraceEvents[:9], f.TraceEvents[10:]...) }, "never ended"},
		"stray E":          {func(f *File) { f.TraceEvents = append(f.TraceEvents, Event{Name: "task", Ph: "E", Ts: 9, Pid: 1}) }, "no open B"},
		"E on other track": {func(f *File) { f.TraceEvents[6].Tid = 1 }, "closes B"},
		"crossed nesting":  {func(f *File) { f.TraceEvents[6].Name = "task"; f.TraceEvents[8].Name = "inner" }, "closes B"},
		"no thread_name":   {func(f *File) { f.TraceEvents = append(f.TraceEvents[:2], f.TraceEvents[3:]...) }, "no thread_name"},
		"no process_name":  {func(f *File) { f.TraceEvents = f.TraceEvents[1:] }, "no process_name"},
		"unnamed thread":   {func(f *File) { f.TraceEvents[1].Args = nil }, "without args.name"},
		"unknown phase":    {func(f *File) { f.TraceEvents[7].Ph = "Q" }, "unknown phase"},
		"no name":          {func(f *File) { f.TraceEvents[7].Name = "" }, "no name"},
		"time backwards":   {func(f *File) { f.TraceEvents[8].Ts = 2.5; f.TraceEvents[6].Ts = 3 }, "before the previous"},
		"negative ts":      {func(f *File) { f.TraceEvents[3].Ts = -1 }, "< 0"},
		"negative dur":     {func(f *File) { f.TraceEvents[10].Dur = -1 }, "dur"},
		"flow never ends":  {func(f *File) { f.TraceEvents = f.TraceEvents[:12] }, "never ends"},
		"flow no start":    {func(f *File) { f.TraceEvents = append(f.TraceEvents[:11], f.TraceEvents[12]) }, "without a start"},
		"flow twice":       {func(f *File) { f.TraceEvents = append(f.TraceEvents, f.TraceEvents[11]) }, "started twice"},
		"flow backwards":   {func(f *File) { f.TraceEvents[12].Ts = 4 }, "ends before"},
		"flow without id":  {func(f *File) { f.TraceEvents[11].ID = "" }, "without an id"},
	} {
		t.Run(name, func(t *testing.T) {
			f := good()
			c.edit(f)
			err := Check(f)
			require.Error(t, err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
}
