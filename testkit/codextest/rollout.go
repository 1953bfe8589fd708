package codextest

import (
	"errors"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// Rollouts lists the rollout files under codexHome/sessions, sorted (none
// before Codex created the folder).
func Rollouts(t testing.TB, codexHome string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(filepath.Join(codexHome, "sessions"), func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil // not written yet
		}
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasPrefix(d.Name(), "rollout-") && strings.HasSuffix(d.Name(), ".jsonl") {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("list rollouts: %v", err)
	}
	sort.Strings(out)
	return out
}

// ThreadID is the thread id a rollout file is named after: the last 36
// characters before .jsonl (rollout-<time>-<uuid>.jsonl).
func ThreadID(path string) string {
	name := strings.TrimSuffix(filepath.Base(path), ".jsonl")
	if len(name) < 36 {
		return ""
	}
	return name[len(name)-36:]
}
