package usage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// totals is what the tests of a killed write compare: every turn by
// session and by day.
func totals(t *testing.T, h *History) []byte {
	t.Helper()
	var out []byte
	for _, by := range []string{"session", "day"} {
		rep := summarize(t, h, Query{By: by, Loc: time.UTC, Now: time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)})
		b, err := json.Marshal(rep)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, b...)
	}
	return out
}

// TestAKilledAppend: a run killed at any moment while it appends to the
// cache file leaves a file from which the next run gives a full read's
// report: the old state (killed before the header was written: what it
// appended is let go), or a file found damaged (said once) and written
// anew from the history. Simulated by cutting the file the append left
// at every byte of what it appended, with the old header (killed before
// writing it) and with the new one (a file system that kept the header
// but lost the end), and by writing the new header over the old one byte
// by byte. The run after that takes every group from the cache.
func TestAKilledAppend(t *testing.T) {
	// Two sessions of the corpus: one grows, one stays.
	dir := t.TempDir()
	projects, codexHome := filepath.Join(dir, "projects"), ""
	for _, v := range []string{"1.0.128", "2.1.328"} {
		copyTree(t, filepath.Join("../transcript/testdata/corpus", v), filepath.Join(projects, "-tmp-demo-"+strings.ReplaceAll(v, ".", "-")))
	}
	path := filepath.Join(dir, CacheFile)
	readWith(t, projects, codexHome, &Cache{Path: path, share: 1})
	old, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	// The 2.1 subagent answers once more, after every line before.
	lateSubagentAnswer(t, projects)
	c := &Cache{Path: path, share: 1}
	readWith(t, projects, codexHome, c)
	now, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.appended != 1 || c.rewritten != 0 || len(now) <= len(old) || !bytes.Equal(now[headerLen:len(old)], old[headerLen:]) {
		t.Fatalf("the run appended %d times, wrote whole %d times, %d bytes to %d: want one append after the old bytes",
			c.appended, c.rewritten, len(old), len(now))
	}
	want := totals(t, readWith(t, projects, codexHome, nil))
	tries := 0
	try := func(step string, b []byte, quiet bool) {
		t.Helper()
		p := filepath.Join(dir, "killed")
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		var logged []string
		logf := func(msg string) { logged = append(logged, msg) }
		if got := totals(t, readWith(t, projects, codexHome, &Cache{Path: p, share: 1, Log: logf})); !bytes.Equal(got, want) {
			t.Fatalf("%s: the run after gives\n%s\nwant\n%s", step, got, want)
		}
		if quiet && len(logged) > 0 {
			t.Fatalf("%s: %q said, want nothing (the old state is whole)", step, logged)
		}
		if tries++; tries%5 != 0 {
			return // the run after that is tried on every fifth
		}
		logged = nil
		again := &Cache{Path: p, share: 1, Log: logf}
		if got := totals(t, readWith(t, projects, codexHome, again)); !bytes.Equal(got, want) {
			t.Fatalf("%s: the second run after gives\n%s\nwant\n%s", step, got, want)
		}
		if len(logged) > 0 || again.reused.Load() == 0 || again.resumed.Load()+again.reread.Load() != 0 {
			t.Fatalf("%s: the second run after: %q said, %d groups read again, %d read on, %d cached; want all cached",
				step, logged, again.reread.Load(), again.resumed.Load(), again.reused.Load())
		}
	}
	for k := len(old); k <= len(now); k++ {
		try(fmt.Sprintf("killed before the header, %d of %d bytes appended", k-len(old), len(now)-len(old)),
			slices.Concat(old[:headerLen], now[headerLen:k]), true)
		if k < len(now) {
			try(fmt.Sprintf("the header written, %d of %d bytes appended", k-len(old), len(now)-len(old)), now[:k], false)
		}
	}
	for j := 1; j < headerLen; j++ {
		try(fmt.Sprintf("killed writing the header, %d of %d bytes written", j, headerLen),
			slices.Concat(now[:j], old[j:headerLen], now[headerLen:]), false)
	}
	t.Logf("%d bytes appended to a cache of %d", len(now)-len(old), len(old))
}
