// Package chrometrace writes, reads and checks Chrome trace-event JSON: the
// object form, {"traceEvents": [...]}, that chrome://tracing, Perfetto and
// the trace viewer of `go tool trace` open.
//
// A track is a (pid, tid) pair; process_name and thread_name metadata
// events ("M" phase) name them. Slices are B/E pairs on one track, or X
// events with a duration; instants are "i" events. Times are microseconds.
//
// Check enforces what a viewer needs to draw a trace faithfully:
//
//	every event has a known phase, a name, a track, and ts >= 0     TestCheckRejects/*
//	every B has an E on the same track, with the same name, nested
//	  (E closes the innermost open B), not before it; no stray E
//	B/E events of a track are in time order
//	every track an event uses is named by metadata (its process
//	  and its thread)
//	X events have a duration >= 0
//	every flow id has one s and then one f, not before it
package chrometrace

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
)

// Phases used here.
const (
	PhaseBegin    = "B"
	PhaseEnd      = "E"
	PhaseComplete = "X"
	PhaseInstant  = "i"
	PhaseCounter  = "C"
	PhaseMetadata = "M"
	PhaseFlowOut  = "s" // a flow (an arrow) starts in the slice enclosing it
	PhaseFlowIn   = "f" // the flow ends
)

// Event is one trace event. Ts and Dur are in microseconds.
type Event struct {
	Name string         `json:"name"`
	Cat  string         `json:"cat,omitempty"`
	Ph   string         `json:"ph"`
	Ts   float64        `json:"ts"`
	Dur  float64        `json:"dur,omitempty"`
	Pid  int            `json:"pid"`
	Tid  int            `json:"tid"`
	S    string         `json:"s,omitempty"`  // instant scope: "t" thread, "p" process, "g" global
	ID   string         `json:"id,omitempty"` // a flow's id, shared by its s and f events
	BP   string         `json:"bp,omitempty"` // a flow end's binding: "e" to the enclosing slice
	Args map[string]any `json:"args,omitempty"`
}

// File is a whole trace: its events and free-form data about the run
// (viewers show otherData as the trace's metadata).
type File struct {
	TraceEvents     []Event        `json:"traceEvents"`
	DisplayTimeUnit string         `json:"displayTimeUnit,omitempty"`
	OtherData       map[string]any `json:"otherData,omitempty"`
}

// Track is a (pid, tid) pair.
type Track struct{ Pid, Tid int }

// ProcessName returns the metadata event naming process pid.
func ProcessName(pid int, name string) Event {
	return Event{Name: "process_name", Ph: PhaseMetadata, Pid: pid, Args: map[string]any{"name": name}}
}

// ThreadName returns the metadata event naming track (pid, tid).
func ThreadName(pid, tid int, name string) Event {
	return Event{Name: "thread_name", Ph: PhaseMetadata, Pid: pid, Tid: tid, Args: map[string]any{"name": name}}
}

// SortIndex returns the metadata event ordering track (pid, tid) among its
// process's tracks (lower first).
func SortIndex(pid, tid, index int) Event {
	return Event{Name: "thread_sort_index", Ph: PhaseMetadata, Pid: pid, Tid: tid, Args: map[string]any{"sort_index": index}}
}

// Write encodes f as JSON, one event per line.
func Write(w io.Writer, f *File) error {
	if f.TraceEvents == nil {
		f.TraceEvents = []Event{}
	}
	if _, err := io.WriteString(w, "{\"traceEvents\":[\n"); err != nil {
		return err
	}
	for i, ev := range f.TraceEvents {
		b, err := json.Marshal(ev)
		if err != nil {
			return fmt.Errorf("chrometrace: event %d: %w", i, err)
		}
		if i > 0 {
			b = append([]byte(",\n"), b...)
		}
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	rest := map[string]any{}
	if f.DisplayTimeUnit != "" {
		rest["displayTimeUnit"] = f.DisplayTimeUnit
	}
	if f.OtherData != nil {
		rest["otherData"] = f.OtherData
	}
	tail, err := json.Marshal(rest)
	if err != nil {
		return fmt.Errorf("chrometrace: otherData: %w", err)
	}
	if len(rest) == 0 {
		_, err = io.WriteString(w, "\n]}\n")
		return err
	}
	_, err = fmt.Fprintf(w, "\n],%s\n", tail[1:]) // tail is {...}: splice its fields in
	return err
}

// Read decodes a trace in the object form, rejecting unknown top-level
// syntax errors but not unknown fields.
func Read(r io.Reader) (*File, error) {
	var f File
	dec := json.NewDecoder(r)
	dec.UseNumber()
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("chrometrace: not trace-event JSON: %w", err)
	}
	if f.TraceEvents == nil {
		return nil, fmt.Errorf("chrometrace: no traceEvents array")
	}
	return &f, nil
}

var knownPhases = map[string]bool{
	PhaseBegin: true, PhaseEnd: true, PhaseComplete: true, PhaseInstant: true, "I": true,
	PhaseCounter: true, PhaseMetadata: true,
	PhaseFlowOut: true, PhaseFlowIn: true,
}

// Check returns an error naming the first event (by index) that breaks one
// of the rules in the package documentation, or nil.
func Check(f *File) error {
	procs := map[int]bool{}
	threads := map[Track]bool{}
	for i, ev := range f.TraceEvents {
		if ev.Ph != PhaseMetadata {
			continue
		}
		name, _ := ev.Args["name"].(string)
		switch ev.Name {
		case "process_name":
			if name == "" {
				return fmt.Errorf("chrometrace: event %d: process_name without args.name", i)
			}
			procs[ev.Pid] = true
		case "thread_name":
			if name == "" {
				return fmt.Errorf("chrometrace: event %d: thread_name without args.name", i)
			}
			threads[Track{ev.Pid, ev.Tid}] = true
		}
	}
	open := map[Track][]int{} // indices of open B events, innermost last
	flows := map[string]int{} // flow id -> index of its s, then -1 once ended
	last := map[Track]float64{}
	for i, ev := range f.TraceEvents {
		if !knownPhases[ev.Ph] {
			return fmt.Errorf("chrometrace: event %d: unknown phase %q", i, ev.Ph)
		}
		if ev.Ph == PhaseMetadata {
			continue
		}
		tr := Track{ev.Pid, ev.Tid}
		if ev.Name == "" {
			return fmt.Errorf("chrometrace: event %d (%s on %v): no name", i, ev.Ph, tr)
		}
		if ev.Ts < 0 {
			return fmt.Errorf("chrometrace: event %d (%s %q): ts %v < 0", i, ev.Ph, ev.Name, ev.Ts)
		}
		if !procs[ev.Pid] {
			return fmt.Errorf("chrometrace: event %d (%s %q): pid %d has no process_name", i, ev.Ph, ev.Name, ev.Pid)
		}
		if !threads[tr] {
			return fmt.Errorf("chrometrace: event %d (%s %q): track %v has no thread_name", i, ev.Ph, ev.Name, tr)
		}
		switch ev.Ph {
		case PhaseBegin, PhaseEnd:
			if t, ok := last[tr]; ok && ev.Ts < t {
				return fmt.Errorf("chrometrace: event %d (%s %q on %v): ts %v before the previous B/E at %v", i, ev.Ph, ev.Name, tr, ev.Ts, t)
			}
			last[tr] = ev.Ts
		case PhaseComplete:
			if ev.Dur < 0 {
				return fmt.Errorf("chrometrace: event %d (X %q): dur %v < 0", i, ev.Name, ev.Dur)
			}
		}
		switch ev.Ph {
		case PhaseFlowOut, PhaseFlowIn:
			if ev.ID == "" {
				return fmt.Errorf("chrometrace: event %d (%s %q): a flow without an id", i, ev.Ph, ev.Name)
			}
			at, seen := flows[ev.ID]
			switch {
			case ev.Ph == PhaseFlowOut && seen:
				return fmt.Errorf("chrometrace: event %d (s %q): flow id %s started twice", i, ev.Name, ev.ID)
			case ev.Ph == PhaseFlowOut:
				flows[ev.ID] = i
			case !seen || at < 0:
				return fmt.Errorf("chrometrace: event %d (f %q): flow id %s ends without a start, or twice", i, ev.Name, ev.ID)
			case ev.Ts < f.TraceEvents[at].Ts:
				return fmt.Errorf("chrometrace: event %d (f %q): flow id %s ends before it starts", i, ev.Name, ev.ID)
			default:
				flows[ev.ID] = -1
			}
		case PhaseBegin:
			open[tr] = append(open[tr], i)
		case PhaseEnd:
			st := open[tr]
			if len(st) == 0 {
				return fmt.Errorf("chrometrace: event %d (E %q on %v): no open B", i, ev.Name, tr)
			}
			b := f.TraceEvents[st[len(st)-1]]
			if b.Name != ev.Name {
				return fmt.Errorf("chrometrace: event %d (E %q on %v): closes B %q (event %d)", i, ev.Name, tr, b.Name, st[len(st)-1])
			}
			open[tr] = st[:len(st)-1]
		}
	}
	for id, at := range flows {
		if at >= 0 {
			return fmt.Errorf("chrometrace: event %d (s %q): flow id %s never ends", at, f.TraceEvents[at].Name, id)
		}
	}
	var unclosed []Track
	for tr, st := range open {
		if len(st) > 0 {
			unclosed = append(unclosed, tr)
		}
	}
	if len(unclosed) > 0 {
		sort.Slice(unclosed, func(a, b int) bool {
			return unclosed[a].Pid < unclosed[b].Pid || unclosed[a].Pid == unclosed[b].Pid && unclosed[a].Tid < unclosed[b].Tid
		})
		tr := unclosed[0]
		i := open[tr][0]
		return fmt.Errorf("chrometrace: event %d (B %q on %v): never ended", i, f.TraceEvents[i].Name, tr)
	}
	return nil
}
