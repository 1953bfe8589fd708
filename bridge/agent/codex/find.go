package codex

import (
	"errors"

	"os"
	"sync"
	"time"

	rollout "conductorbridge/bridge/codex"
)

// found is what finding Codex's sessions remembers between scans: what
// it read of each rollout (its session_meta) and each tab's file by its
// thread, so a rescan reads only new files. Copies of an Agent share it.
type found struct {
	mu       sync.Mutex
	loc      rollout.Locator
	byThread map[string]string // thread id → rollout file
}

// New is Codex's driver for the sessions under home, remembering what it
// read between scans.
func New(home string) Agent { return Agent{Home: home, found: &found{}} }

// TabRecord is the rollout of a Conductor Codex tab by its thread id, ""
// when none exists (yet) or there is no home to look in.
func (a Agent) TabRecord(_, thread string) string {
	if a.Home == "" {
		return ""
	}
	f := a.finding()
	f.mu.Lock()
	defer f.mu.Unlock()
	if p, ok := f.byThread[thread]; ok && isRegular(p) {
		return p
	}
	p, err := rollout.Find(a.Home, thread)
	if err != nil {
		return ""
	}
	if f.byThread == nil {
		f.byThread = make(map[string]string)
	}
	f.byThread[thread] = p
	return p
}

// Runs calls run for every rollout written since, with the cwd, thread
// and file its session_meta names. No sessions folder is no error.
func (a Agent) Runs(since time.Time, run func(dir, id, record string)) error {
	if a.Home == "" {
		return nil
	}
	f := a.finding()
	f.mu.Lock()
	files, err := f.loc.Sessions(a.Home, since)
	f.mu.Unlock()
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	for _, s := range files {
		run(s.Cwd, s.ThreadID, s.Path)
	}
	return nil
}

// finding is what a finds with: its own, or a fresh one when a was not
// made by New (it then remembers nothing).
func (a Agent) finding() *found {
	if a.found != nil {
		return a.found
	}
	return &found{}
}

func isRegular(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
