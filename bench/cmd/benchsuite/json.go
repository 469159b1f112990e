package main

import (
	"encoding/json"
	"os"
	"time"
)

// jsonReport is what -json writes: the run's header and, per workload and
// GOMAXPROCS, every impl's samples with the summaries the tables show, so
// that figures taken on another machine (the 16-core device script,
// scripts/bench16.sh) can be copied back and read without parsing
// markdown. A figure that does not exist (a failed round, a ratio with no
// base) is null.
type jsonReport struct {
	Machine   machine   `json:"machine"`
	Command   string    `json:"command"`
	Rounds    int       `json:"rounds"`
	Benchtime string    `json:"benchtime"`
	Quick     bool      `json:"quick"`
	Date      time.Time `json:"date"`
	LoadStart string    `json:"load_start"`
	LoadEnd   string    `json:"load_end"`
	Skipped   []string  `json:"skipped,omitempty"`
	Groups    []jsonGrp `json:"groups"`
}

type jsonGrp struct {
	Workload       string      `json:"workload"`
	Metric         string      `json:"metric"`
	HigherIsBetter bool        `json:"higher_is_better"`
	GOMAXPROCS     int         `json:"gomaxprocs"`
	Impls          []jsonImpl  `json:"impls"`
	Scaling        []jsonScale `json:"scaling,omitempty"`
}

type jsonImpl struct {
	Name    string       `json:"name"`
	Base    bool         `json:"base"`
	Fail    string       `json:"fail,omitempty"`
	Value   *jsonSpread  `json:"value"`
	CPU     *jsonSpread  `json:"cpu_ns_per_task"`
	Ratio   *jsonSpread  `json:"ratio"`
	Samples []jsonSample `json:"samples"`
}

type jsonSample struct {
	Value *float64 `json:"value"`
	CPU   *float64 `json:"cpu_ns_per_task"`
	N     int      `json:"n"`
	Fail  string   `json:"fail,omitempty"`
}

type jsonSpread struct {
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// jsonScale is one impl's gain from the workload's smallest GOMAXPROCS
// (From) to this group's; only on the groups after the first.
type jsonScale struct {
	Impl string      `json:"impl"`
	From int         `json:"from"`
	Gain *jsonSpread `json:"gain"`
}

func jspread(s spread) *jsonSpread {
	if !s.OK || !finite(s.Median) || !finite(s.Min) || !finite(s.Max) {
		return nil
	}
	return &jsonSpread{Median: s.Median, Min: s.Min, Max: s.Max}
}

func jfloat(v float64) *float64 {
	if !finite(v) {
		return nil
	}
	return &v
}

// jsonOf is p's report as -json writes it.
func jsonOf(h header, p plan) jsonReport {
	r := jsonReport{Machine: h.Machine, Command: h.Command, Rounds: h.Rounds, Benchtime: h.Benchtime, Quick: h.Quick,
		Date: h.Date.UTC(), LoadStart: h.LoadStart, LoadEnd: h.LoadEnd, Skipped: p.Skipped, Groups: []jsonGrp{}}
	for _, gs := range workloadGroups(p) {
		sc := scaling(gs)
		for _, g := range gs {
			jg := jsonGrp{Workload: g.W.Name, Metric: g.W.MetricName(), HigherIsBetter: g.W.HigherIsBetter, GOMAXPROCS: g.Procs}
			for i, row := range rows(g) {
				ji := jsonImpl{Name: row.Impl, Base: row.Base, Fail: row.Fail, Samples: []jsonSample{}}
				if row.Fail == "" {
					ji.Value, ji.CPU, ji.Ratio = jspread(row.Value), jspread(row.CPU), jspread(row.Ratio)
				}
				for _, s := range g.Runs[i] {
					js := jsonSample{N: s.N, Fail: s.Fail}
					if s.ok() {
						js.Value, js.CPU = jfloat(s.Value), jfloat(s.CPU)
					}
					ji.Samples = append(ji.Samples, js)
				}
				jg.Impls = append(jg.Impls, ji)
			}
			for _, s := range sc {
				if s.To == g.Procs {
					jg.Scaling = append(jg.Scaling, jsonScale{Impl: s.Impl, From: s.From, Gain: jspread(s.Gain)})
				}
			}
			r.Groups = append(r.Groups, jg)
		}
	}
	return r
}

// writeJSON writes p's report to path as indented JSON.
func writeJSON(path string, h header, p plan) error {
	b, err := json.MarshalIndent(jsonOf(h, p), "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
