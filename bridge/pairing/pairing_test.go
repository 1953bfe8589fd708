package pairing

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

func all(string) bool { return true }

func TestPairPersistsAndOrders(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pairing.json")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if s.Exposure() != ExposePaired {
		t.Fatalf("default exposure %q", s.Exposure())
	}
	if _, ok := s.Latest(all); ok {
		t.Fatal("latest with nothing paired")
	}
	var announced []string
	s.Announce = func(id string, paired bool) {
		if paired {
			announced = append(announced, "+"+id)
		} else {
			announced = append(announced, "-"+id)
		}
	}
	for _, id := range []string{"a", "b", "c"} {
		if err := s.Pair(id); err != nil {
			t.Fatal(err)
		}
	}
	if id, _ := s.Latest(all); id != "c" {
		t.Errorf("latest = %q, want c", id)
	}
	if id, _ := s.Latest(func(id string) bool { return id != "c" }); id != "b" {
		t.Errorf("latest skipping a gone workspace = %q, want b", id)
	}
	s.Pair("a") // re-pairing makes it the latest, without a second announcement
	s.Unpair("b")
	s.Unpair("b") // not paired: nothing happens
	if got := strings.Join(announced, " "); got != "+a +b +c -b" {
		t.Errorf("announced %q", got)
	}
	if err := s.SetExposure("everything"); err == nil {
		t.Error("bad exposure accepted")
	}
	s.SetExposure(ExposeAll)

	again, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if id, _ := again.Latest(all); id != "a" {
		t.Errorf("after reload latest = %q, want a", id)
	}
	if _, ok := again.Paired("b"); ok {
		t.Error("b still paired after reload")
	}
	if _, ok := again.Paired("c"); !ok || again.Exposure() != ExposeAll {
		t.Errorf("reload lost state: c paired %v, exposure %q", ok, again.Exposure())
	}
	if info, _ := os.Stat(path); info.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", info.Mode().Perm())
	}
}

func TestWatchFoldsChanges(t *testing.T) {
	s, _ := Open(filepath.Join(t.TempDir(), "p.json"))
	c, stop := s.Watch()
	s.Pair("a")
	s.Pair("b")
	select {
	case <-c:
	default:
		t.Fatal("no change seen")
	}
	select {
	case <-c:
		t.Fatal("two changes in a row should fold into one pending signal")
	default:
	}
	stop()
	s.Unpair("a")
	select {
	case <-c:
		t.Fatal("stopped watcher still told")
	default:
	}
}

func TestDamagedFileIsSetAside(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pairing.json")
	for _, bad := range []string{"{not json", `{"exposure":"sometimes"}`} {
		os.WriteFile(path, []byte(bad), 0o600)
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		if s.SetAside == "" {
			t.Fatalf("%q: not set aside", bad)
		}
		if b, _ := os.ReadFile(s.SetAside); string(b) != bad {
			t.Errorf("set-aside file lost the bytes: %q", b)
		}
		if _, ok := s.Latest(all); ok || s.Exposure() != ExposePaired {
			t.Error("damaged state not reset")
		}
		os.Remove(s.SetAside)
	}
}

// PairIfNone pairs only while no workspace that exists is paired: of many
// callers at once, one pairs; a paired workspace that is gone does not
// count; it persists like Pair.
func TestPairIfNone(t *testing.T) {
	path := filepath.Join(t.TempDir(), "pairing.json")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	exists := func(id string) bool { return id != "gone" }
	s.Pair("gone")
	var wg sync.WaitGroup
	var won atomic.Int32
	for i := range 8 {
		wg.Go(func() {
			if ok, err := s.PairIfNone(fmt.Sprintf("w%d", i), exists); err != nil {
				t.Error(err)
			} else if ok {
				won.Add(1)
			}
		})
	}
	wg.Wait()
	if won.Load() != 1 {
		t.Fatalf("%d callers paired", won.Load())
	}
	if ok, _ := s.PairIfNone("late", exists); ok {
		t.Error("paired while another is paired")
	}
	again, _ := Open(path)
	if id, ok := again.Latest(exists); !ok || id == "gone" || id == "late" {
		t.Errorf("after reopening: %q %v", id, ok)
	}
}
