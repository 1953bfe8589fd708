package main

import (
	"cmp"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"conductorbridge/bridge/price"
	usagerep "conductorbridge/bridge/usage"
	"conductorbridge/bridge/usage/driver"
)

// usageCmd prints what every turn in the history cost, read from the
// transcripts and rollouts themselves through the streams' parsers.
func usageCmd(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("usage", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var c config
	c.register(fs)
	by := fs.String("by", "day", "sum by "+strings.Join(usagerep.Views, "|"))
	since := fs.String("since", "", "first day counted (YYYY-MM-DD)")
	until := fs.String("until", "", "last day counted (YYYY-MM-DD)")
	asJSON := fs.Bool("json", false, "print JSON")
	tz := fs.String("tz", "", "time zone days are counted in (default the local one)")
	noCache := fs.Bool("no-cache", false, "read every file again, neither using nor updating the cache in the state folder")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := c.resolve(); err != nil {
		return err
	}
	q, err := usagerep.ParseQuery(*by, *since, *until, *tz)
	if err != nil {
		return err
	}
	// The running bridge's report, like every other command's answer:
	// the transcripts and prices it reads are its state folder's (a
	// demo's too). Only with no bridge running are the files read here.
	rep, err := bridgeUsage(ctx, c, *by, *since, *until, *tz, *noCache)
	if couldScan(err) {
		rep, err = readUsage(ctx, c, q, !*noCache, stderr)
	}
	if err != nil {
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printUsage(stdout, rep)
	for _, e := range rep.Errors {
		fmt.Fprintln(stderr, "skipped:", e)
	}
	return nil
}

// usageCache is the usage cache in the state folder (nil while there is
// no state folder: the report reads everything, and makes none).
func usageCache(stateDir string, log func(string)) *usagerep.Cache {
	if info, err := os.Stat(stateDir); err != nil || !info.IsDir() {
		return nil
	}
	return &usagerep.Cache{Path: filepath.Join(stateDir, usagerep.CacheFile), Log: log}
}

// bridgeUsage asks the running bridge for the report (GET /api/usage).
func bridgeUsage(ctx context.Context, c config, by, since, until, tz string, noCache bool) (*usagerep.Report, error) {
	v := url.Values{}
	if noCache {
		v.Set("cache", "no") // the bridge reads every file again too
	}
	for k, x := range map[string]string{"by": by, "since": since, "until": until, "tz": cmp.Or(tz, localZone())} {
		if x != "" {
			v.Set(k, x)
		}
	}
	var rep usagerep.Report
	if err := getJSONWithin(ctx, c.client(), "/api/usage?"+v.Encode(), c.token(), &rep, 2*time.Minute); err != nil {
		return nil, err
	}
	return &rep, nil
}

// localZone is the zone days are counted in when none is asked: this
// terminal's, which the bridge (started elsewhere) may not share. ""
// leaves the bridge's.
func localZone() string {
	tz := os.Getenv("TZ")
	if tz == "" {
		return ""
	}
	if _, err := time.LoadLocation(tz); err != nil {
		return ""
	}
	return tz
}

// readUsage reads every agent's records itself: no bridge runs.
func readUsage(ctx context.Context, c config, q usagerep.Query, cache bool, stderr io.Writer) (*usagerep.Report, error) {
	prices, err := price.Load(c.StateDir)
	if err != nil {
		fmt.Fprintf(stderr, "your prices.json is unreadable (%v); pricing with the built-in table\n", err)
	}
	src := usagerep.Source{Formats: usageFormats(c), Prices: prices, Compact: true}
	if cache {
		src.Cache = usageCache(c.StateDir, func(msg string) { fmt.Fprintln(stderr, msg) })
	}
	defer collectLate(src.Cache)()
	h, err := src.Read(ctx)
	if err != nil {
		return nil, err
	}
	return usagerep.Summarize(h, q)
}

// usageFormats are the agents whose history usage reads: those of the
// drivers (agents) that implement its driver.
func usageFormats(c config) []driver.Format { return listAs[driver.Format](c.agents) }

// usageHeap is the heap a report is read in before the garbage collector
// runs, besides room for what the cache holds.
const usageHeap = 64 << 20

// collectLate has the garbage collector wait until the heap nears
// usageHeap, plus four times the cache file (about what a warm read keeps:
// its turns), instead of running from the first few MB: the report reads
// the history once, in a process that ends after it, and a collection
// running beside a warm read costs more than the read. The returned func
// puts the collector back as it was.
func collectLate(cache *usagerep.Cache) func() {
	limit := int64(usageHeap)
	if cache != nil {
		if info, err := os.Stat(cache.Path); err == nil {
			limit += 4 * info.Size()
		}
	}
	pct := debug.SetGCPercent(-1)
	was := debug.SetMemoryLimit(limit)
	return func() {
		debug.SetGCPercent(pct)
		debug.SetMemoryLimit(was)
	}
}

func printUsage(w io.Writer, rep *usagerep.Report) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	head := strings.ToUpper(rep.By)
	// Only a session's row has one workspace: the column is shown when
	// some row has it.
	withWS := slices.ContainsFunc(rep.Rows, func(r usagerep.Row) bool { return r.Workspace != "" })
	fmt.Fprintf(tw, "%s\tTURNS\tINPUT\tOUTPUT\tCACHE WRITE\tCACHE READ\tTOTAL TOKENS\tCOST", head)
	if withWS {
		fmt.Fprint(tw, "\tWORKSPACE")
	}
	fmt.Fprintln(tw)
	line := func(r usagerep.Row) {
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%s\t%s", field(r.Key), r.Turns, thousands(r.Usage.InputTokens), thousands(r.Usage.OutputTokens),
			thousands(r.Usage.CacheCreationTokens), thousands(r.Usage.CacheReadTokens), thousands(r.TotalTokens), dollars(r.CostUSD, r.CostKnown))
		if withWS {
			fmt.Fprintf(tw, "\t%s", field(r.Workspace))
		}
		fmt.Fprintln(tw)
	}
	for _, r := range rep.Rows {
		line(r)
	}
	line(rep.Total)
	tw.Flush()
	if len(rep.Total.Unpriced) > 0 {
		fmt.Fprintf(w, "≈: no price for %s (add it to prices.json in the state folder)\n", field(strings.Join(rep.Total.Unpriced, ", ")))
	}
	for _, b := range rep.Blocks {
		left := (time.Duration(b.LeftSeconds) * time.Second).Round(time.Minute)
		fmt.Fprintf(w, "current 5-hour block (%s): since %s, %s left, %s tokens, %s\n", b.Agent,
			b.Start.Local().Format("15:04"), left, thousands(b.TotalTokens), dollars(b.CostUSD, b.CostKnown))
	}
	for _, l := range rep.Limits {
		fmt.Fprintf(w, "%s plan limit (%s", field(l.Agent), field(l.Name))
		if l.WindowMinutes > 0 {
			fmt.Fprintf(w, ", %s window", time.Duration(l.WindowMinutes)*time.Minute)
		}
		fmt.Fprintf(w, "): %.0f%% used", l.UsedPercent)
		if !l.ResetsAt.IsZero() {
			fmt.Fprintf(w, ", resets %s", l.ResetsAt.Local().Format("2006-01-02 15:04"))
		}
		fmt.Fprintf(w, " (as of %s)\n", l.Seen.Local().Format("2006-01-02 15:04"))
	}
}

// thousands writes a token count with thousands separators.
func thousands(n int64) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0 && s[i-1] != '-'; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// dollars shows a cost; ≈ marks a lower bound (some model had no price),
// ? a cost nothing is known of.
func dollars(usd float64, known bool) string {
	switch {
	case known:
		return fmt.Sprintf("$%.2f", usd)
	case usd == 0:
		return "?"
	}
	return fmt.Sprintf("≈$%.2f", usd)
}
