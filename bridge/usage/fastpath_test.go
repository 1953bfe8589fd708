package usage

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"conductorbridge/bridge/price"
)

// TestCountOnlySameTurns reads every Claude session twice, the fast way
// the report does (the parsers' CountOnly, a merge that reads lines' times
// only while two files are left) and the plain way (the parser the
// streams use, every line's time read), and wants every Turn equal, field
// by field: the fast
// path may skip work, never change a number, a time or a name. The
// histories are the whole Claude corpus, generated sessions (realistic ones, and random lines of every kind), and the
// corpus cut up (lines dropped, repeated, files ending mid-turn) so that
// turns end in every state a parser can be in.
func TestCountOnlySameTurns(t *testing.T) {
	const corpus = "../transcript/testdata/corpus"
	tests := []struct {
		name  string
		write func(t *testing.T, projects string)
	}{
		{"corpus", func(t *testing.T, projects string) {
			layOutCorpus(t, corpus, projects, nil)
		}},
		{"generated", func(t *testing.T, projects string) {
			writeSynthHistory(t, projects, 12)
		}},
		{"random lines", func(t *testing.T, projects string) {
			writeRandomHistory(t, projects, 40, 400, 15)
		}},
		{"every third line dropped", func(t *testing.T, projects string) {
			layOutCorpus(t, corpus, projects, func(lines [][]byte) [][]byte {
				var out [][]byte
				for i, l := range lines {
					if i%3 != 2 {
						out = append(out, l)
					}
				}
				return out
			})
		}},
		{"lines repeated", func(t *testing.T, projects string) {
			layOutCorpus(t, corpus, projects, func(lines [][]byte) [][]byte {
				var out [][]byte
				for i, l := range lines {
					out = append(out, l)
					if i%2 == 0 {
						out = append(out, l)
					}
				}
				return out
			})
		}},
		{"cut mid-way", func(t *testing.T, projects string) {
			layOutCorpus(t, corpus, projects, func(lines [][]byte) [][]byte { return lines[:len(lines)*3/5] })
		}},
		{"not JSON in between", func(t *testing.T, projects string) {
			layOutCorpus(t, corpus, projects, func(lines [][]byte) [][]byte {
				var out [][]byte
				for i, l := range lines {
					out = append(out, l)
					if i%5 == 0 {
						out = append(out, l[:len(l)/2])
					}
				}
				return out
			})
		}},
	}
	prices := price.Default()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			projects := filepath.Join(t.TempDir(), "projects")
			tt.write(t, projects)
			groups, err := groupsAt(projects, "")
			if err != nil {
				t.Fatal(err)
			}
			turns := 0
			var bufs buffers // lent and taken back across sessions, as a worker does
			for _, g := range groups {
				var plain, lean []Turn
				pb, perr := readGroupParsed(g, prices, false, nil, func(t Turn) { plain = append(plain, t) })
				lb, lerr := readGroupParsed(g, prices, true, &bufs, func(t Turn) { lean = append(lean, t) })
				if (perr == nil) != (lerr == nil) || pb != lb {
					t.Fatalf("%s: plain read %d bytes (%v), fast path %d (%v)", g.Files[0], pb, perr, lb, lerr)
				}
				if len(plain) != len(lean) {
					t.Fatalf("%s: plain parser %d turns, fast path %d", g.Files[0], len(plain), len(lean))
				}
				for i := range plain {
					if plain[i] != lean[i] {
						t.Errorf("%s turn %d:\nplain %+v\nfast  %+v", g.Files[0], i, plain[i], lean[i])
					}
				}
				turns += len(plain)
			}
			if turns == 0 {
				t.Fatal("no turns read: the comparison proved nothing")
			}
			t.Logf("%d sessions, %d turns equal", len(groups), turns)
		})
	}
}

// layOutCorpus copies each version's folder of src to a project folder
// under projects, keeping subagent layouts, every file's lines passed
// through edit (nil: as they are).
func layOutCorpus(t *testing.T, src, projects string, edit func([][]byte) [][]byte) {
	t.Helper()
	dirs, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		dst := filepath.Join(projects, "-tmp-"+strings.ReplaceAll(d.Name(), ".", "-"))
		copyTree(t, filepath.Join(src, d.Name()), dst)
		if edit == nil {
			continue
		}
		err := filepath.WalkDir(dst, func(path string, e os.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return err
			}
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			lines := edit(bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")))
			return os.WriteFile(path, append(bytes.Join(lines, []byte("\n")), '\n'), 0o644)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}
