package main

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// benchFigure is one measured number with what it was measured under.
type benchFigure struct {
	Name       string  `json:"name"`
	Value      float64 `json:"value"`
	Unit       string  `json:"unit"`
	Conditions string  `json:"conditions"`
	Known      bool    `json:"known"` // false: this system gave no way to measure it
}

// benchReport collects the figures of one bench run.
type benchReport struct {
	Version string        `json:"version"`
	OS      string        `json:"os"`
	CPUs    int           `json:"cpus"`
	Figures []benchFigure `json:"figures"`
}

func (r *benchReport) add(name string, value float64, unit, conditions string) {
	r.Figures = append(r.Figures, benchFigure{Name: name, Value: value, Unit: unit, Conditions: conditions, Known: true})
}

func (r *benchReport) unknown(name, unit, conditions string) {
	r.Figures = append(r.Figures, benchFigure{Name: name, Unit: unit, Conditions: conditions})
}

// addKB adds a memory figure in MB, or unknown when it could not be read.
func (r *benchReport) addKB(name string, kb int64, conditions string) {
	if kb <= 0 {
		r.unknown(name, "MB", conditions)
		return
	}
	r.add(name, float64(kb)/1024, "MB", conditions)
}

// addLatencies adds p50, p99 and max of lat in milliseconds.
func (r *benchReport) addLatencies(name string, lat []time.Duration, conditions string) {
	if len(lat) == 0 {
		r.unknown(name+" p99", "ms", conditions+"; nothing arrived")
		return
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))]) / float64(time.Millisecond)
	}
	r.add(name+" p50", pct(0.50), "ms", conditions)
	r.add(name+" p99", pct(0.99), "ms", conditions)
	r.add(name+" max", float64(lat[len(lat)-1])/float64(time.Millisecond), "ms", conditions)
}

// writeTable prints the figures for a person: name, figure, conditions.
func (r *benchReport) writeTable(w io.Writer) error {
	fmt.Fprintf(w, "conductor-bridge bench — %s, %d CPUs, %s\n\n", r.Version, r.CPUs, r.OS)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "FIGURE\tVALUE\tCONDITIONS")
	for _, f := range r.Figures {
		v := "unknown"
		if f.Known {
			v = strings.TrimSpace(fmt.Sprintf("%s %s", formatFigure(f.Value), f.Unit))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", f.Name, v, f.Conditions)
	}
	return tw.Flush()
}

func (r *benchReport) writeJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// formatFigure keeps three significant digits, which is all a run on a
// shared machine can claim.
func formatFigure(v float64) string {
	switch {
	case v == 0:
		return "0"
	case v >= 100 || v <= -100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10 || v <= -10:
		return fmt.Sprintf("%.1f", v)
	case v >= 1 || v <= -1:
		return fmt.Sprintf("%.2f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}
