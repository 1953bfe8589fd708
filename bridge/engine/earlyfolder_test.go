package engine

import (
	"path/filepath"
	"testing"
	"time"
)

// A session that begins in a project folder that was there, with no
// transcript, when the bridge started is found by its file's events, not
// by the scan timer: no workspace had the folder, so nobody watched it,
// and the new session waited for the next scan, which an idle bridge backs
// off to minutes (TestSubagentUsageCountsInTheTurn/2.1.328's workspace
// "never appeared" within 30 s so in a double run of the suite). Scans and
// sweeps run hourly here: the file's events must do it.
func TestNewSessionInAFolderThereFromTheStart(t *testing.T) {
	h := newHome(t)
	dir, proj := h.workspace("early") // its transcript folder made, empty
	const sid = "eeeeeeee-1111-4111-8111-0000000000e1"
	cwdOf[sid] = dir
	watch := true
	r := h.startWith(func(c *Config) {
		c.WatchDirs = &watch
		c.ScanEvery, c.SweepEvery = time.Hour, time.Hour
	})
	select {
	case <-r.eng.Ready():
	case <-time.After(5 * time.Second):
		t.Fatal("the first scan never ended")
	}
	// The root's watch asked for a scan before the first one ran, and the
	// first one answered it (TestAScanAnswersTheAsksMadeBeforeIt). It ends
	// before the transcript is made, so that no scan can find it.
	r.eng.scanMu.Lock()
	r.eng.scanMu.Unlock() // the first scan has ended
	if len(r.eng.rescan) != 0 {
		t.Fatal("a scan is still asked for after the first one")
	}
	h.write(filepath.Join(proj, sid+".jsonl"), prompt(sid, "hello"))
	r.waitPrompt(t, dir, "hello")
}
