package usage

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	"conductorbridge/bridge/price"
)

// readAll reads the history with c (nil: no cache) and returns its
// reports' JSON.
func readWith(t *testing.T, projects, codexHome string, c *Cache) *History {
	t.Helper()
	h, err := Source{Formats: agentsAt(projects, codexHome), Cache: c}.Read(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestCacheFileIsPrivate: the cache file is the owner's alone.
func TestCacheFileIsPrivate(t *testing.T) {
	projects, codexHome := corpusHome(t)
	path := filepath.Join(t.TempDir(), CacheFile)
	readWith(t, projects, codexHome, &Cache{Path: path})
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o600 {
		t.Errorf("cache file mode %v, want 0600", info.Mode().Perm())
	}
}

// TestBadCacheFiles: a cache file of an older format is rebuilt without
// a word; a damaged or unreadable one is ignored with one log line; the
// report is the full read's either way, and the next run reads the new
// file silently.
func TestBadCacheFiles(t *testing.T) {
	projects, codexHome := corpusHome(t)
	want := readWith(t, projects, codexHome, nil)
	good := filepath.Join(t.TempDir(), CacheFile)
	readWith(t, projects, codexHome, &Cache{Path: good})
	valid, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	older := append(append([]byte(cacheMagic), binary.AppendUvarint(nil, cacheVersion-1)...), "an older layout"...)
	regions := cacheRegions(t, valid)
	flipped := func(x extent) []byte {
		b := bytes.Clone(valid)
		b[x.off+x.n/2] ^= 0x40
		return b
	}
	tests := []struct {
		name  string
		lay   func(path string)
		lines int
	}{
		{"older format", func(path string) { os.WriteFile(path, older, 0o600) }, 0},
		{"a byte of the header changed", func(path string) { os.WriteFile(path, flipped(regions.header), 0o600) }, 1},
		{"a byte of the index changed", func(path string) { os.WriteFile(path, flipped(regions.index), 0o600) }, 1},
		{"a byte of a warm block changed", func(path string) { os.WriteFile(path, flipped(regions.warm[0]), 0o600) }, 1},
		{"a byte of the last warm block changed", func(path string) { os.WriteFile(path, flipped(regions.warm[len(regions.warm)-1]), 0o600) }, 1},
		{"cut short", func(path string) { os.WriteFile(path, valid[:len(valid)*2/3], 0o600) }, 1},
		{"empty", func(path string) { os.WriteFile(path, nil, 0o600) }, 1},
		{"not a cache", func(path string) { os.WriteFile(path, []byte(`{"a": 1}`), 0o600) }, 1},
		{"unreadable (a folder)", func(path string) { os.Mkdir(path, 0o700) }, 1},
		// A FIFO is never opened for reading (that open would wait for a
		// writer forever): refused as not a regular file, then replaced.
		{"a FIFO", func(path string) { syscall.Mkfifo(path, 0o600) }, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), CacheFile)
			tt.lay(path)
			var logged []string
			c := &Cache{Path: path, Log: func(msg string) { logged = append(logged, msg) }}
			sameReports(t, tt.name, want, readWith(t, projects, codexHome, c))
			if len(logged) != tt.lines {
				t.Fatalf("%d log lines %q, want %d", len(logged), logged, tt.lines)
			}
			if c.reread.Load() == 0 || c.reused.Load() != 0 {
				t.Errorf("the bad cache was used: %d groups taken from it, %d read", c.reused.Load(), c.reread.Load())
			}
			// The next run reads what this one wrote (where it could).
			logged = nil
			again := &Cache{Path: path, Log: func(msg string) { logged = append(logged, msg) }}
			sameReports(t, tt.name+", again", want, readWith(t, projects, codexHome, again))
			if info, err := os.Stat(path); err == nil && info.Mode().IsRegular() {
				if len(logged) != 0 || again.reread.Load() != 0 {
					t.Errorf("rewritten cache: %q logged, %d groups read again", logged, again.reread.Load())
				}
			}
		})
	}
}

// regions are where a cache file's parts are.
type regions struct {
	header, index extent
	warm, parts   []extent // by the groups' first files
}

func cacheRegions(t *testing.T, b []byte) regions {
	t.Helper()
	path := filepath.Join(t.TempDir(), "look")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	cc, err := readCache(f)
	if err != nil {
		t.Fatal(err)
	}
	r := regions{header: extent{n: int64(headerLen)}, index: extent{off: cc.head.indexOff, n: cc.head.indexLen}}
	var keys []string
	for k := range cc.entries {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		e := cc.entries[k]
		r.warm = append(r.warm, e.at)
		for _, p := range []part{e.priced, e.snap} {
			if p.at.n > 0 {
				r.parts = append(r.parts, p.at)
			}
		}
	}
	return r
}

// TestTwoRunsAtOnce: usage runs racing on one cache file, each with its
// own view of it (two processes), while the history grows: every report
// is a full read's, and the file is whole after.
func TestTwoRunsAtOnce(t *testing.T) {
	h := newHistory(t, func(t *testing.T, projects, codexHome string) {
		layOutCorpus(t, "../transcript/testdata/corpus", projects, nil)
		writeRandomHistory(t, projects, 4, 200, 3)
	}, 11)
	projects, codexHome := filepath.Join(h.root, "projects"), filepath.Join(h.root, "codex")
	path := filepath.Join(t.TempDir(), CacheFile)
	var logged []string
	var mu sync.Mutex
	logf := func(msg string) { mu.Lock(); logged = append(logged, msg); mu.Unlock() }
	for round := range 12 {
		if round > 0 {
			h.change(t)
		}
		want := readWith(t, projects, codexHome, nil)
		got := make([]*History, 4)
		var wg sync.WaitGroup
		for i := range got {
			wg.Go(func() {
				src := Source{Formats: agentsAt(projects, codexHome), Cache: &Cache{Path: path, Log: logf, share: 1}}
				h, err := src.Read(context.Background())
				if err != nil {
					t.Error(err)
					return
				}
				got[i] = h
			})
		}
		wg.Wait()
		for i, g := range got {
			if g != nil {
				sameReports(t, fmt.Sprintf("round %d, run %d", round, i), want, g)
			}
		}
	}
	c := &Cache{Path: path, Log: logf}
	readWith(t, projects, codexHome, c)
	if len(logged) > 0 || c.reused.Load() == 0 {
		t.Errorf("after the races: %q logged, %d groups taken from the cache", logged, c.reused.Load())
	}
}

// TestCacheIsSmall: for a history of 10,000 files — 2,000 copies of a
// real Claude Code 2.0.77 session (the corpus's, written by the real
// binary: a session file and four subagent files, 29 KB in all) — the
// cache is under 5 % of the history's size, and the next run takes every
// session from it.
func TestCacheIsSmall(t *testing.T) {
	const corpus = "../transcript/testdata/corpus/2.0.77"
	const sid = "8ea2c1d2-6c13-41e7-8a87-123726d6bb7c"
	files, err := filepath.Glob(filepath.Join(corpus, "*.jsonl"))
	if err != nil || len(files) != 5 {
		t.Fatalf("corpus: %v %v", files, err)
	}
	var contents [][]byte
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		contents = append(contents, b)
	}
	projects := filepath.Join(t.TempDir(), "projects")
	var size int64
	for i := range 2000 {
		id := fmt.Sprintf("%08x-6c13-41e7-8a87-%012x", i, i)
		dir := filepath.Join(projects, fmt.Sprintf("-Users-me-conductor-workspaces-app-ws%d", i%40))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for j, f := range files {
			name := strings.ReplaceAll(filepath.Base(f), sid, id)
			if name == filepath.Base(f) {
				name = fmt.Sprintf("agent-%07x%d.jsonl", i, j)
			}
			b := bytes.ReplaceAll(contents[j], []byte(sid), []byte(id))
			if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
				t.Fatal(err)
			}
			size += int64(len(b))
		}
	}
	path := filepath.Join(t.TempDir(), CacheFile)
	h := readWith(t, projects, "", &Cache{Path: path})
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	share := float64(info.Size()) / float64(size)
	t.Logf("%d files, %d MB, %d turns: cache %d KB, %.2f %% of the history", h.Files, size>>20, len(h.Turns), info.Size()>>10, 100*share)
	if h.Files != 10000 || len(h.Turns) < 2000 {
		t.Fatalf("%d files, %d turns: not the history meant", h.Files, len(h.Turns))
	}
	if share >= 0.05 {
		t.Errorf("the cache is %.2f %% of the history, want under 5 %%", 100*share)
	}
	again := &Cache{Path: path}
	readWith(t, projects, "", again)
	if again.reused.Load() != 2000 {
		t.Errorf("%d of 2000 sessions taken from the cache", again.reused.Load())
	}
}

// TestPartsOfAFileWrittenAgain: where reads stopped stays in the cache
// file until a read goes on from it. A run that loaded the file goes on
// from the blocks it loaded the names of, whatever another run wrote
// meanwhile: appended to the file (the blocks named before are never
// written over) or put a new file in its place (the old one stays as it
// was for whoever has it open). Blocks damaged in the file meanwhile are
// let go (the group is read from its start), and said so once. The report
// is a full read's every time.
func TestPartsOfAFileWrittenAgain(t *testing.T) {
	projects, codexHome := corpusHome(t)
	dir := t.TempDir()
	paths := map[string]string{}
	for _, name := range []string{"appended", "replaced", "damaged", "left"} {
		paths[name] = filepath.Join(dir, name)
	}
	readWith(t, projects, codexHome, &Cache{Path: paths["appended"], share: 1})
	b, err := os.ReadFile(paths["appended"])
	if err != nil {
		t.Fatal(err)
	}
	held := map[string]*Cache{}
	var logged []string
	logf := func(msg string) { logged = append(logged, msg) }
	for name, path := range paths {
		if err := os.WriteFile(path, b, 0o600); err != nil {
			t.Fatal(err)
		}
		held[name] = &Cache{Path: path, share: 1, Log: logf}
		held[name].begin(priceKey(price.Default()), Source{Formats: agentsAt(projects, codexHome)}.homes())
	}
	// A subagent answers once more, after every line before.
	lateSubagentAnswer(t, projects)
	// Another run appends to one file; one writes another anew; the third
	// is written over in place with bytes of no cache.
	other := &Cache{Path: paths["appended"], share: 1}
	readWith(t, projects, codexHome, other)
	if other.appended != 1 {
		t.Fatalf("the other run wrote the file %d times whole, appended %d times: want one append", other.rewritten, other.appended)
	}
	os.Remove(paths["replaced"])
	readWith(t, projects, codexHome, &Cache{Path: paths["replaced"], share: 1})
	if err := os.WriteFile(paths["damaged"], bytes.Repeat([]byte{'x'}, len(b)), 0o600); err != nil {
		t.Fatal(err)
	}
	want := readWith(t, projects, codexHome, nil)
	for _, tt := range []struct {
		name            string
		resumed, reread int64
		lines           int
	}{
		{"appended", 1, 0, 0},
		{"replaced", 1, 0, 0},
		{"left", 1, 0, 0},
		{"damaged", 0, 1, 1},
	} {
		logged = nil
		c := held[tt.name]
		sameReports(t, tt.name, want, readWith(t, projects, codexHome, c))
		if c.resumed.Load() != tt.resumed || c.reread.Load() != tt.reread || len(logged) != tt.lines {
			t.Errorf("file %s: %d groups went on, %d read again, %q said; want %d, %d and %d lines",
				tt.name, c.resumed.Load(), c.reread.Load(), logged, tt.resumed, tt.reread, tt.lines)
		}
	}
}
