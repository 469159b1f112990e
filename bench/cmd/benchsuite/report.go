package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"
)

// machine is what a reader needs to weigh the numbers.
type machine struct {
	OS, Arch, CPU, Go  string
	NumCPU, GOMAXPROCS int
}

// thisMachine describes the machine running the suite; the CPU model comes
// from /proc/cpuinfo where there is one.
func thisMachine() machine {
	return machine{
		OS: runtime.GOOS, Arch: runtime.GOARCH, CPU: cpuModel("/proc/cpuinfo"), Go: runtime.Version(),
		NumCPU: runtime.NumCPU(), GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
}

// cpuModel is the first "model name" of a cpuinfo file, or "CPU model
// unknown".
func cpuModel(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return "CPU model unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if ok && strings.TrimSpace(k) == "model name" && strings.TrimSpace(v) != "" {
			return strings.TrimSpace(v)
		}
	}
	return "CPU model unknown"
}

func (m machine) String() string {
	return fmt.Sprintf("%s/%s, %s, NumCPU %d, GOMAXPROCS %d, %s", m.OS, m.Arch, m.CPU, m.NumCPU, m.GOMAXPROCS, m.Go)
}

// header is what every report states before its tables.
type header struct {
	Machine   machine
	Command   string
	Rounds    int
	Benchtime string
	Quick     bool
	Date      time.Time
	// LoadStart and LoadEnd are the 1-minute load averages before and
	// after the run ("" where unknown): on a shared machine they say how
	// much else ran.
	LoadStart, LoadEnd string
}

// loadAverage is the 1-minute load average of a /proc/loadavg file, or "".
func loadAverage(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

func (h header) loadLine() string {
	if h.LoadStart == "" || h.LoadEnd == "" {
		return ""
	}
	return fmt.Sprintf("1-minute load average %s before the run, %s after", h.LoadStart, h.LoadEnd)
}

func (h header) runLine() string {
	s := fmt.Sprintf("%d round(s), interleaved in one process; benchtime %s per run", h.Rounds, h.Benchtime)
	if h.Quick {
		s += "; -quick (shrunk workloads: a check that the suite runs, not a measurement)"
	}
	return s
}

// row is one impl of a group, summarised over the rounds.
type row struct {
	Impl  string
	Value spread
	// Ratio is schedkit's advantage over this impl (see ratio); not OK
	// for the base itself and where there is no good round pair.
	Ratio spread
	Base  bool
	// Fail is set when a round of this impl failed: such an impl gets no
	// figure and no ratio.
	Fail string
	// CPU is cpu-ns/task where every round reported one.
	CPU spread
}

// rows summarises a group, base first.
func rows(g *group) []row {
	rs := make([]row, len(g.W.Impls))
	for i, im := range g.W.Impls {
		r := row{Impl: im.Name, Base: i == 0}
		var vs, cs []float64
		failed := 0
		for _, s := range g.Runs[i] {
			if !s.ok() {
				if failed == 0 {
					r.Fail = s.Fail
				}
				failed++
				continue
			}
			vs = append(vs, s.Value)
			if finite(s.CPU) {
				cs = append(cs, s.CPU)
			}
		}
		if failed > 0 {
			r.Fail = fmt.Sprintf("FAILED (%d of %d rounds): %s", failed, len(g.Runs[i]), r.Fail)
			rs[i] = r
			continue
		}
		r.Value = summarise(vs)
		if len(cs) == len(vs) {
			r.CPU = summarise(cs)
		}
		rs[i] = r
	}
	if rs[0].Fail != "" {
		return rs // no base, no ratios
	}
	for i := 1; i < len(rs); i++ {
		if rs[i].Fail == "" {
			rs[i].Ratio = ratioSpread(g.Runs[0], g.Runs[i], g.W.HigherIsBetter)
		}
	}
	return rs
}

// scaleRow is one impl's gain from the smallest GOMAXPROCS of a workload
// run at several to a larger one.
type scaleRow struct {
	Impl     string
	From, To int
	// Gain is the throughput at To over that at From, per round (both
	// runs in the same round): for a per-task cost (lower is better)
	// the cost at From over the cost at To, so 2 means twice the tasks
	// per second. An op at more Ps does proportionally more work (the
	// chain runs a chain per P), so perfect scaling is To/From.
	Gain spread
}

// scaling is the gain of every impl of a workload's groups (one per
// GOMAXPROCS, in increasing order) over its first group; nil with one
// group.
func scaling(gs []*group) []scaleRow {
	if len(gs) < 2 {
		return nil
	}
	var out []scaleRow
	for i, im := range gs[0].W.Impls {
		for _, g := range gs[1:] {
			out = append(out, scaleRow{Impl: im.Name, From: gs[0].Procs, To: g.Procs,
				Gain: ratioSpread(g.Runs[i], gs[0].Runs[i], gs[0].W.HigherIsBetter)})
		}
	}
	return out
}

// workloadGroups splits p's groups into runs of one workload each.
func workloadGroups(p plan) [][]*group {
	var out [][]*group
	for i := 0; i < len(p.Groups); {
		j := i
		for j < len(p.Groups) && p.Groups[j].W.Name == p.Groups[i].W.Name {
			j++
		}
		out = append(out, p.Groups[i:j])
		i = j
	}
	return out
}

func gainText(s spread) (median, rng string) {
	if !s.OK {
		return "no gain", "(a round failed)"
	}
	return fmt.Sprintf("%.2fx", s.Median), fmt.Sprintf("%.2f..%.2f", s.Min, s.Max)
}

// failures lists every failed run of p, one line each.
func failures(p plan) []string {
	var out []string
	for _, g := range p.Groups {
		for i, runs := range g.Runs {
			for r, s := range runs {
				if !s.ok() {
					out = append(out, fmt.Sprintf("%s procs=%d impl=%s round %d: %s",
						g.W.Name, g.Procs, g.W.Impls[i].Name, r+1, s.Fail))
				}
			}
		}
	}
	return out
}

// ratioNote says which way a workload's ratio reads.
func ratioNote(g *group) string {
	base := g.W.Impls[0].Name
	if g.W.HigherIsBetter {
		return fmt.Sprintf("%s, higher is better; ratio = %s / impl (above 1: %s is better)", g.W.MetricName(), base, base)
	}
	return fmt.Sprintf("%s, lower is better; ratio = impl / %s (above 1: %s is better)", g.W.MetricName(), base, base)
}

// num formats a figure to about three significant digits, without
// exponents for the sizes benchmarks produce.
func num(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 100:
		return fmt.Sprintf("%.0f", v)
	case a >= 10:
		return fmt.Sprintf("%.1f", v)
	case a >= 1:
		return fmt.Sprintf("%.2f", v)
	case a == 0:
		return "0"
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

func rangeText(s spread) string { return num(s.Min) + ".." + num(s.Max) }

func ratioText(r row) (median, rng string) {
	switch {
	case r.Base:
		return "base", ""
	case r.Fail != "":
		return "", ""
	case !r.Ratio.OK:
		return "no ratio", "(base failed or zero)"
	}
	return fmt.Sprintf("%.2fx", r.Ratio.Median), fmt.Sprintf("%.2f..%.2f", r.Ratio.Min, r.Ratio.Max)
}

// writeText writes the run's tables for a terminal.
func writeText(w io.Writer, h header, p plan) error {
	fmt.Fprintf(w, "machine: %s\ncommand: %s\nrun: %s\n", h.Machine, h.Command, h.runLine())
	if l := h.loadLine(); l != "" {
		fmt.Fprintf(w, "load: %s\n", l)
	}
	for _, s := range p.Skipped {
		fmt.Fprintf(w, "skipped %s\n", s)
	}
	for _, gs := range workloadGroups(p) {
		for _, g := range gs {
			if err := writeGroupText(w, g); err != nil {
				return err
			}
		}
		if sc := scaling(gs); len(sc) > 0 {
			fmt.Fprintf(w, "\n%s: throughput over GOMAXPROCS %d, per round (perfect: the ratio of the Ps)\n", gs[0].W.Name, sc[0].From)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
			fmt.Fprintf(tw, "  impl\tGOMAXPROCS\tgain\tmin..max\n")
			for _, r := range sc {
				m, rg := gainText(r.Gain)
				fmt.Fprintf(tw, "  %s\t%d\t%s\t%s\n", r.Impl, r.To, m, rg)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
	}
	if fs := failures(p); len(fs) > 0 {
		fmt.Fprintf(w, "\n%d run(s) failed:\n", len(fs))
		for _, f := range fs {
			fmt.Fprintf(w, "  %s\n", f)
		}
	}
	return nil
}

// writeGroupText writes one group's table for a terminal.
func writeGroupText(w io.Writer, g *group) error {
	fmt.Fprintf(w, "\n%s: %s, GOMAXPROCS %d\n  %s\n", g.W.Name, g.W.Title, g.Procs, ratioNote(g))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "  impl\t%s\tmin..max\tratio\tmin..max\n", g.W.MetricName())
	for _, r := range rows(g) {
		if r.Fail != "" && !r.Base {
			fmt.Fprintf(tw, "  %s\t%s\n", r.Impl, r.Fail)
			continue
		}
		if r.Fail != "" {
			fmt.Fprintf(tw, "  %s (base)\t%s\n", r.Impl, r.Fail)
			continue
		}
		m, rg := ratioText(r)
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", r.Impl, num(r.Value.Median), rangeText(r.Value), m, rg)
	}
	return tw.Flush()
}

// Markers around the part of RESULTS.md the runner owns.
const (
	beginMarker = "<!-- schedkit bench: begin -->"
	endMarker   = "<!-- schedkit bench: end -->"
)

// markdown is the generated section of RESULTS.md (what goes between the
// markers): the machine, the command, and per workload its About, its
// charts (charts is each workload's chart files, relative to RESULTS.md)
// and a table of every GOMAXPROCS value and impl.
func markdown(h header, p plan, charts map[string][]string) string {
	var b strings.Builder
	b.WriteString("\n## Suite: schedkit's executor against the pools users know\n\n")
	b.WriteString("Generated by the suite runner; everything between the markers is rewritten on each run.\n\n")
	b.WriteString("| | |\n|---|---|\n")
	fmt.Fprintf(&b, "| machine | %s |\n", mdCell(h.Machine.String()))
	fmt.Fprintf(&b, "| command | `%s` |\n", mdCell(h.Command))
	fmt.Fprintf(&b, "| run | %s |\n", mdCell(h.runLine()))
	fmt.Fprintf(&b, "| date | %s |\n", h.Date.UTC().Format("2006-01-02 15:04 UTC"))
	if l := h.loadLine(); l != "" {
		fmt.Fprintf(&b, "| load | %s |\n", l)
	}
	b.WriteString("\nEach cell is the median over the rounds, with the range beside it. A ratio is taken per round " +
		"(both runs of the pair in the same round) and its median and range given, so it is not the ratio of the " +
		"medians.\n")
	for _, s := range p.Skipped {
		fmt.Fprintf(&b, "\nSkipped %s.\n", mdCell(s))
	}
	for _, gs := range workloadGroups(p) {
		w := gs[0].W
		fmt.Fprintf(&b, "\n### %s: %s\n\n", w.Name, mdCell(w.Title))
		if w.About != "" {
			fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(w.About))
		}
		for _, c := range charts[w.Name] {
			fmt.Fprintf(&b, "![%s](%s)\n", w.Name, c)
		}
		if len(charts[w.Name]) > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%s.\n\n", ratioNote(gs[0]))
		fmt.Fprintf(&b, "| GOMAXPROCS | impl | %s | range | ratio | range |\n|--:|---|--:|---|--:|---|\n", w.MetricName())
		for _, g := range gs {
			for _, r := range rows(g) {
				if r.Fail != "" {
					fmt.Fprintf(&b, "| %d | %s | %s | | | |\n", g.Procs, r.Impl, mdCell(r.Fail))
					continue
				}
				m, rg := ratioText(r)
				fmt.Fprintf(&b, "| %d | %s | %s | %s | %s | %s |\n", g.Procs, r.Impl, num(r.Value.Median), rangeText(r.Value), m, rg)
			}
		}
		if sc := scaling(gs); len(sc) > 0 {
			fmt.Fprintf(&b, "\nThroughput over GOMAXPROCS %d, the ratio taken per round (perfect scaling: the ratio of the Ps).\n\n", sc[0].From)
			b.WriteString("| impl | GOMAXPROCS | gain | range |\n|---|--:|--:|---|\n")
			for _, r := range sc {
				m, rg := gainText(r.Gain)
				fmt.Fprintf(&b, "| %s | %d | %s | %s |\n", r.Impl, r.To, m, rg)
			}
		}
	}
	b.WriteString("\n")
	return b.String()
}

// mdCell keeps text from breaking a markdown table row.
func mdCell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ").Replace(s)
}

// errMarkers is a RESULTS.md whose markers the runner cannot pair.
var errMarkers = errors.New("the markers " + beginMarker + " and " + endMarker +
	" must each stand on a line of their own, once, begin before end (or neither be there)")

// replaceSection puts section between the marker lines of doc, leaving
// every other byte of doc as it was; with no markers in doc it appends
// them, section between, at the end.
func replaceSection(doc []byte, section string) ([]byte, error) {
	if !strings.HasSuffix(section, "\n") {
		section += "\n"
	}
	_, be, nb := markerLine(doc, beginMarker)
	es, _, ne := markerLine(doc, endMarker)
	switch {
	case nb == 0 && ne == 0:
		out := bytes.Clone(doc)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = append(out, beginMarker+"\n"...)
		out = append(out, section...)
		return append(out, endMarker+"\n"...), nil
	case nb != 1 || ne != 1 || es < be:
		return nil, errMarkers
	}
	out := make([]byte, 0, len(doc)+len(section))
	out = append(out, doc[:be]...)
	out = append(out, section...)
	return append(out, doc[es:]...), nil
}

// markerLine finds the lines of doc that are exactly marker (a trailing
// \r allowed): the first one's start and end (past its newline) and how
// many there are.
func markerLine(doc []byte, marker string) (start, end, count int) {
	start, end = -1, -1
	for off := 0; off < len(doc); {
		nl := bytes.IndexByte(doc[off:], '\n')
		next := len(doc)
		if nl >= 0 {
			next = off + nl + 1
		}
		line := bytes.TrimRight(doc[off:next], "\r\n")
		if string(line) == marker {
			if count == 0 {
				start, end = off, next
			}
			count++
		}
		off = next
	}
	return start, end, count
}

// writeResults rewrites the generated section of the RESULTS.md at path,
// creating the file if there is none.
func writeResults(path, section string) error {
	doc, err := os.ReadFile(path)
	perm := os.FileMode(0o644)
	switch {
	case errors.Is(err, os.ErrNotExist):
		doc = nil
	case err != nil:
		return err
	default:
		if fi, err := os.Stat(path); err == nil {
			perm = fi.Mode().Perm()
		}
	}
	out, err := replaceSection(doc, section)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.WriteFile(path, out, perm)
}
