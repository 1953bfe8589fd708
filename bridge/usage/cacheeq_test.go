package usage

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"conductorbridge/bridge/price"
)

// cacheQueries are the reports compared: every view, with and without
// first and last days, in two zones (one half an hour off UTC).
func cacheQueries(t *testing.T, h *History) []Query {
	t.Helper()
	var days []time.Time
	for _, tr := range h.Turns {
		days = append(days, tr.End)
	}
	var out []Query
	for _, tz := range []string{"UTC", "Asia/Kolkata"} {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			t.Fatal(err)
		}
		ranges := [][2]time.Time{{}}
		if len(days) > 0 {
			mid := dayStart(days[len(days)/2], loc)
			ranges = append(ranges, [2]time.Time{mid, {}}, [2]time.Time{{}, mid}, [2]time.Time{mid, mid})
		}
		// Now after the history, and amid it (its middle turn's end:
		// some block is open then).
		nows := []time.Time{time.Date(2026, 12, 2, 12, 0, 0, 0, time.UTC)}
		if len(days) > 0 {
			nows = append(nows, days[len(days)/2])
		}
		for _, by := range Views {
			for i, r := range ranges {
				out = append(out, Query{By: by, Since: r[0], Until: r[1], Loc: loc, Now: nows[i%len(nows)]})
			}
		}
	}
	return out
}

// sameReports fails unless every report of the two histories is the same
// JSON, byte for byte.
func sameReports(t *testing.T, step string, want, got *History) {
	t.Helper()
	if len(want.Turns) == 0 && len(got.Turns) == 0 && want.Files > 0 {
		t.Logf("%s: no turns", step)
	}
	for _, q := range cacheQueries(t, want) {
		a := summarize(t, want, q)
		b := summarize(t, got, q)
		ja, _ := json.Marshal(a)
		jb, _ := json.Marshal(b)
		if !bytes.Equal(ja, jb) {
			t.Fatalf("%s: by %s since %v until %v in %s:\nuncached %s\ncached   %s", step, q.By, q.Since, q.Until, q.Loc, ja, jb)
		}
	}
}

// history is a test history that changes: full holds each file's whole
// content, of which a prefix (or other content) is on disk.
type history struct {
	root string
	full map[string][]byte // by path under root
	r    *rand.Rand
}

func newHistory(t *testing.T, lay func(t *testing.T, projects, codexHome string), seed uint64) *history {
	t.Helper()
	src := t.TempDir()
	lay(t, filepath.Join(src, "projects"), filepath.Join(src, "codex"))
	h := &history{root: t.TempDir(), full: map[string][]byte{}, r: rand.New(rand.NewPCG(seed, 29))}
	filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(src, path)
		h.full[filepath.Join(h.root, rel)] = b
		return nil
	})
	for _, p := range h.paths() {
		b := h.full[p]
		h.write(t, p, b[:h.cut(b, 0)])
	}
	return h
}

func (h *history) paths() []string {
	var ps []string
	for p := range h.full {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

// cut picks a length from after min to the end of b: often at a line's
// end, sometimes in the middle of a line.
func (h *history) cut(b []byte, min int) int {
	if min >= len(b) {
		return len(b)
	}
	n := min + 1 + h.r.IntN(len(b)-min)
	if h.r.IntN(4) > 0 {
		if i := bytes.IndexByte(b[n-1:], '\n'); i >= 0 {
			n += i
		} else {
			n = len(b)
		}
	}
	return n
}

func (h *history) write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

func (h *history) size(path string) int {
	info, err := os.Stat(path)
	if err != nil {
		return -1
	}
	return int(info.Size())
}

// change does one random thing to one file and says what.
func (h *history) change(t *testing.T) string {
	t.Helper()
	ps := h.paths()
	path := ps[h.r.IntN(len(ps))]
	full := h.full[path]
	n := h.size(path)
	name := filepath.Base(path)
	switch op := h.r.IntN(10); {
	case op < 5 || n < 0: // grow (or come back)
		if n < 0 {
			n = 0
		}
		if n >= len(full) || !bytes.HasPrefix(full, mustRead(t, path, n)) {
			return "nothing (" + name + " is whole)"
		}
		end := h.cut(full, n)
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY|os.O_CREATE, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.Write(full[n:end])
		f.Close()
		return fmt.Sprintf("append %d bytes to %s", end-n, name)
	case op == 5: // truncate
		end := h.r.IntN(n + 1)
		if err := os.Truncate(path, int64(end)); err != nil {
			t.Fatal(err)
		}
		return fmt.Sprintf("truncate %s to %d", name, end)
	case op == 6: // replace with another file's content: a new inode
		other := h.full[ps[h.r.IntN(len(ps))]]
		tmp := path + ".new"
		h.write(t, tmp, other[:h.cut(other, 0)])
		if err := os.Rename(tmp, path); err != nil {
			t.Fatal(err)
		}
		return "replace " + name
	case op == 7: // change a digit near the end, keeping size and time
		b := mustRead(t, path, n)
		info, _ := os.Stat(path)
		for i := len(b) - 1; i >= max(0, len(b)-sampleLen); i-- {
			if b[i] >= '1' && b[i] <= '8' {
				b[i]++
				if err := os.WriteFile(path, b, 0o644); err != nil {
					t.Fatal(err)
				}
				os.Chtimes(path, info.ModTime(), info.ModTime())
				return "change a digit in place in " + name
			}
		}
		return "nothing (no digit at the end of " + name + ")"
	case op == 8: // rewrite from the start, at once longer
		h.write(t, path, full[:h.cut(full, n)])
		return "rewrite " + name
	default:
		os.Remove(path)
		return "delete " + name
	}
}

func mustRead(t *testing.T, path string, n int) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return b[:min(n, len(b))]
}

// dearer is a price table unlike the built-in one.
func dearer(t *testing.T) *price.Table {
	t.Helper()
	tab := price.Embedded()
	for k, m := range tab.Models {
		m.Rates.Input *= 3
		m.Rates.Output *= 1.5
		tab.Models[k] = m
	}
	return tab
}

// TestCachedReportsEqualUncached changes histories at random (appends of
// whole and cut lines, truncations, replacements, changes in place,
// deletions, price changes) and after every change wants every report a
// cached read gives byte for byte what a read without the cache gives:
// a cache kept in memory only, one read from its file by each run (the
// usage command), and one kept in memory and on file (the bridge's), whose
// file is written whole again as soon as a third of it is dead.
func TestCachedReportsEqualUncached(t *testing.T) {
	histories := []struct {
		name  string
		lay   func(t *testing.T, projects, codexHome string)
		steps int
	}{
		{"corpus", func(t *testing.T, projects, codexHome string) {
			layOutCorpus(t, "../transcript/testdata/corpus", projects, nil)
			day := filepath.Join(codexHome, "sessions", "2026", "12", "02")
			for _, v := range []string{"0.169.0", "0.47.0"} {
				copyTree(t, filepath.Join("../codex/testdata/corpus", v), day)
			}
		}, 150},
		{"generated", func(t *testing.T, projects, codexHome string) {
			for i := range 4 {
				cwd := fmt.Sprintf("/Users/me/ws%d", i%2)
				dir := filepath.Join(projects, fmt.Sprintf("-Users-me-ws%d", i%2))
				sid := fmt.Sprintf("%08x-1111-4111-8111-%012x", i, i)
				writeSynthFile(t, filepath.Join(dir, sid+".jsonl"), sid, cwd, uint64(i+1), 300<<10)
				agent := fmt.Sprintf("a%07x-2222-4222-8222-%012x", i, i)
				writeSynthFile(t, filepath.Join(dir, sid, "subagents", "agent-"+agent[:8]+".jsonl"), agent, cwd, uint64(i+1)<<32, 60<<10)
			}
		}, 60},
		{"random lines", func(t *testing.T, projects, codexHome string) {
			writeRandomHistory(t, projects, 6, 300, 29)
		}, 100},
	}
	for _, tt := range histories {
		t.Run(tt.name, func(t *testing.T) {
			h := newHistory(t, tt.lay, 7)
			projects, codexHome := filepath.Join(h.root, "projects"), filepath.Join(h.root, "codex")
			file := filepath.Join(t.TempDir(), CacheFile)
			// Every state is kept, however small the files (the corpus's are).
			memory := &Cache{share: 1}
			kept := &Cache{Path: filepath.Join(t.TempDir(), CacheFile), share: 1, slack: -1}
			var appended, rewritten int
			var logged []string
			logf := func(msg string) { logged = append(logged, msg) }
			var stats [4]int64
			packedReads := 0
			prices := price.Default()
			for step := range tt.steps {
				what := "first read"
				if step > 0 {
					what = h.change(t)
					if h.r.IntN(3) == 0 {
						what += "; " + h.change(t)
					}
					if h.r.IntN(25) == 0 {
						if prices == price.Default() {
							prices = dearer(t)
						} else {
							prices = price.Default()
						}
						what += "; prices changed"
					}
				}
				src := Source{Formats: agentsAt(projects, codexHome), Prices: prices}
				want, err := src.Read(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if step%2 == 0 {
					// Compact without a cache: every turn as read.
					src.Compact = true
					got, err := src.Read(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					sameReports(t, fmt.Sprintf("step %d (%s, compact, no cache)", step, what), want, got)
					if got.packed != nil {
						packedReads++
					}
				}
				onFile := &Cache{Path: file, Log: logf, share: 1}
				kept.Log = logf
				for i, c := range []*Cache{memory, onFile, kept} {
					src.Cache = c
					// One of the three reads keeps the history compact.
					src.Compact = (step+i)%3 == 0
					got, err := src.Read(context.Background())
					if err != nil {
						t.Fatal(err)
					}
					sameReports(t, fmt.Sprintf("step %d (%s, compact %v)", step, what, src.Compact), want, got)
					if src.Compact && got.packed != nil {
						packedReads++
					}
					stats[0] += c.reused.Load()
					stats[1] += c.resumed.Load()
					stats[2] += c.reread.Load()
					stats[3] += c.repriced.Load()
					c.repriced.Store(0)
					c.reused.Store(0)
					c.resumed.Store(0)
					c.reread.Store(0)
				}
				appended, rewritten = appended+onFile.appended, rewritten+onFile.rewritten
			}
			appended, rewritten = appended+kept.appended, rewritten+kept.rewritten
			if len(logged) > 0 {
				t.Errorf("the cache file was ignored: %s", strings.Join(logged, "; "))
			}
			t.Logf("groups taken as cached %d (repriced %d), read on from the cache %d, read whole %d; the files appended to %d times, written whole %d times",
				stats[0], stats[3], stats[1], stats[2], appended, rewritten)
			t.Logf("compact histories %d", packedReads)
			if want := tt.steps + (tt.steps+1)/2; packedReads != want {
				t.Errorf("%d of the %d reads asked for a compact history gave one: the test proves less than it says", packedReads, want)
			}
			if stats[0] == 0 || stats[1] == 0 || stats[2] == 0 || stats[3] == 0 || appended == 0 || rewritten == 0 {
				t.Errorf("a way of reading or writing was never taken (cached %d, repriced %d, read on %d, whole %d; appended %d, whole %d): the test proves less than it says",
					stats[0], stats[3], stats[1], stats[2], appended, rewritten)
			}
		})
	}
}
