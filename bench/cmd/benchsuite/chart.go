package main

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// series is one bar of every impl's group: a label and, per impl, the
// median and range (not OK where the impl failed: no bar).
type series struct {
	label string
	vals  []spread
}

// barSeries picks a workload's bars: one per GOMAXPROCS value when it
// ran at several; else its metric and, where every impl measured it and
// the metric is wall time per task, cpu-ns/task beside it (a pool that
// spins shows up as CPU above wall time times the Ps).
func barSeries(gs []*group) []series {
	var ss []series
	if len(gs) > 1 {
		for _, g := range gs {
			s := series{label: fmt.Sprintf("%s, GOMAXPROCS %d", g.W.MetricName(), g.Procs)}
			for _, r := range rows(g) {
				s.vals = append(s.vals, r.Value)
			}
			ss = append(ss, s)
		}
		return ss
	}
	g := gs[0]
	rs := rows(g)
	s := series{label: g.W.MetricName()}
	cpu := series{label: "cpu-ns/task (process CPU time)"}
	allCPU := g.W.MetricName() == "ns/task"
	for _, r := range rs {
		s.vals = append(s.vals, r.Value)
		cpu.vals = append(cpu.vals, r.CPU)
		if r.Fail == "" && !r.CPU.OK {
			allCPU = false
		}
	}
	ss = append(ss, s)
	if allCPU {
		ss = append(ss, cpu)
	}
	return ss
}

// barChart writes a workload's bar chart as SVG to path: a group of bars
// per impl, each bar a median with its range as a whisker.
func barChart(path string, gs []*group, m machine) error {
	w := gs[0].W
	p := plot.New()
	p.Title.Text = wrap(w.Name+": "+w.Title, 70) + fmt.Sprintf("\n(%s, NumCPU %d, %s)", m.CPU, m.NumCPU, m.Go)
	p.Y.Label.Text = w.MetricName() + " (median, whisker: range over rounds)"
	if w.HigherIsBetter {
		p.Y.Label.Text = w.MetricName() + " (higher is better; median, whisker: range)"
	}
	p.Y.Min = 0
	names := make([]string, len(w.Impls))
	for i, im := range w.Impls {
		names[i] = im.Name
	}
	ss := barSeries(gs)
	top := 0.0
	width := vg.Length(math.Max(6, 1+0.9*float64(len(names)))) * vg.Inch
	groupW := (width - 1.5*vg.Inch) / vg.Length(len(names)) * 0.75
	barW := groupW / vg.Length(len(ss))
	for si, s := range ss {
		vals := make(plotter.Values, len(s.vals))
		wk := &whiskers{style: plotter.DefaultLineStyle, capW: barW / 3}
		for i, v := range s.vals {
			if !v.OK {
				continue // a failed impl: no bar
			}
			vals[i] = v.Median
			wk.x = append(wk.x, float64(i))
			wk.lo = append(wk.lo, v.Min)
			wk.hi = append(wk.hi, v.Max)
			top = math.Max(top, v.Max)
		}
		bars, err := plotter.NewBarChart(vals, barW)
		if err != nil {
			return err
		}
		bars.LineStyle.Width = 0
		bars.Color = plotutil.Color(si)
		bars.Offset = (vg.Length(si) - vg.Length(len(ss)-1)/2) * barW
		wk.offset = bars.Offset
		p.Add(bars, wk)
		p.Legend.Add(s.label, bars)
	}
	p.Legend.Top = true
	p.Y.Max = top * (1 + 0.1*float64(len(ss))) // room for the legend above the bars
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.5, float64(len(names))-0.5 // whole groups at the ends
	return saveChart(p, path, width, 4*vg.Inch)
}

// scalingChart writes the metric against GOMAXPROCS, a line per impl, as
// SVG to path: the scaling curve of a workload run at several Ps.
func scalingChart(path string, gs []*group, m machine) error {
	w := gs[0].W
	p := plot.New()
	p.Title.Text = wrap(w.Name+": "+w.Title+", against GOMAXPROCS", 70) + fmt.Sprintf("\n(%s, NumCPU %d, %s)", m.CPU, m.NumCPU, m.Go)
	p.X.Label.Text = "GOMAXPROCS (log scale)"
	p.X.Scale = plot.LogScale{}
	p.Y.Label.Text = w.MetricName() + " (median, bars: range)"
	p.Y.Min = 0
	var ticks []plot.Tick
	for _, g := range gs {
		ticks = append(ticks, plot.Tick{Value: float64(g.Procs), Label: strconv.Itoa(g.Procs)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	top := 0.0
	for i, im := range w.Impls {
		var pts plotter.XYs
		var errs plotter.YErrors
		for _, g := range gs {
			r := rows(g)[i]
			if !r.Value.OK {
				continue
			}
			pts = append(pts, plotter.XY{X: float64(g.Procs), Y: r.Value.Median})
			top = math.Max(top, r.Value.Max)
			errs = append(errs, struct{ Low, High float64 }{r.Value.Median - r.Value.Min, r.Value.Max - r.Value.Median})
		}
		if len(pts) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(pts)
		if err != nil {
			return err
		}
		line.Color = plotutil.Color(i)
		line.Dashes = plotutil.Dashes(i)
		points.Color = plotutil.Color(i)
		points.Shape = plotutil.Shape(i)
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{pts, errs})
		if err != nil {
			return err
		}
		eb.Color = plotutil.Color(i)
		p.Add(line, points, eb)
		p.Legend.Add(im.Name, line, points)
	}
	p.Legend.Top = true
	p.Legend.Left = true
	// Room at the sides for the end points' error bars, and above for the
	// legend.
	lo, hi := gs[0].Procs, gs[0].Procs
	for _, g := range gs {
		lo, hi = min(lo, g.Procs), max(hi, g.Procs)
	}
	p.X.Min, p.X.Max = float64(lo)/1.25, float64(hi)*1.25
	p.Y.Max = top * (1 + 0.07*float64(len(w.Impls)))
	return saveChart(p, path, 6*vg.Inch, 4*vg.Inch)
}

// saveChart writes p to path in the format its extension names (svg for
// the suite; png where a reader has no SVG viewer).
func saveChart(p *plot.Plot, path string, w, h vg.Length) error {
	wt, err := p.WriterTo(w, h, strings.TrimPrefix(filepath.Ext(path), "."))
	if err != nil {
		return err
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := wt.WriteTo(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeCharts writes every workload's charts under dir/charts and returns
// their paths relative to dir, per workload name.
func writeCharts(dir string, p plan, m machine) (map[string][]string, error) {
	if err := os.MkdirAll(filepath.Join(dir, "charts"), 0o755); err != nil {
		return nil, err
	}
	out := map[string][]string{}
	for i := 0; i < len(p.Groups); {
		name := p.Groups[i].W.Name
		j := i
		for j < len(p.Groups) && p.Groups[j].W.Name == name {
			j++
		}
		gs := p.Groups[i:j]
		i = j
		rel := "charts/" + name + ".svg"
		if err := barChart(filepath.Join(dir, filepath.FromSlash(rel)), gs, m); err != nil {
			return nil, fmt.Errorf("chart %s: %w", rel, err)
		}
		out[name] = append(out[name], rel)
		if len(gs) > 1 {
			rel := "charts/" + name + "-procs.svg"
			if err := scalingChart(filepath.Join(dir, filepath.FromSlash(rel)), gs, m); err != nil {
				return nil, fmt.Errorf("chart %s: %w", rel, err)
			}
			out[name] = append(out[name], rel)
		}
	}
	return out, nil
}

// wrap breaks s into lines of at most n bytes at spaces.
func wrap(s string, n int) string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(s) {
		if line != "" && len(line)+1+len(word) > n {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	return strings.Join(append(lines, line), "\n")
}

// whiskers draws a range line with caps at each bar of a bar chart,
// shifted by the bars' offset (plotter.YErrorBars cannot be shifted).
type whiskers struct {
	x, lo, hi []float64
	offset    vg.Length
	capW      vg.Length
	style     draw.LineStyle
}

func (wk *whiskers) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i := range wk.x {
		x := trX(wk.x[i]) + wk.offset
		lo, hi := trY(wk.lo[i]), trY(wk.hi[i])
		c.StrokeLine2(wk.style, x, lo, x, hi)
		c.StrokeLine2(wk.style, x-wk.capW/2, lo, x+wk.capW/2, lo)
		c.StrokeLine2(wk.style, x-wk.capW/2, hi, x+wk.capW/2, hi)
	}
}

// DataRange makes the Y axis reach the highest whisker.
func (wk *whiskers) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, ymin = math.Inf(1), 0
	xmax, ymax = math.Inf(-1), 0
	for i := range wk.x {
		xmin, xmax = math.Min(xmin, wk.x[i]), math.Max(xmax, wk.x[i])
		ymax = math.Max(ymax, wk.hi[i])
	}
	if len(wk.x) == 0 {
		return 0, 0, 0, 0
	}
	return xmin, xmax, ymin, ymax
}
