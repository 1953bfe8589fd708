package discover

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestRegistry(t *testing.T) {
	root := resolvePath(t.TempDir())
	path := filepath.Join(root, "state", "sub", "registered.json")
	a, b := mkdir(t, filepath.Join(root, "a")), mkdir(t, filepath.Join(root, "b"))
	if err := os.Symlink(b, filepath.Join(root, "b-link")); err != nil {
		t.Fatal(err)
	}

	r := NewRegistry(path)
	if err := r.Load(); err != nil {
		t.Fatalf("Load of a missing file: %v", err)
	}
	if got := r.List(); len(got) != 0 {
		t.Fatalf("List = %v, want empty", got)
	}

	steps := []struct {
		op, dir string
		want    bool
		wantErr bool
	}{
		{"add", b, true, false},
		{"add", a, true, false},
		{"add", a, false, false},
		{"add", filepath.Join(root, "b-link"), false, false}, // same dir, other spelling
		{"add", "relative/dir", false, true},
		{"add", filepath.Join(root, "gone"), true, false}, // need not exist
		{"remove", filepath.Join(root, "gone"), true, false},
		{"remove", filepath.Join(root, "gone"), false, false},
	}
	for _, s := range steps {
		var got bool
		var err error
		if s.op == "add" {
			got, err = r.Add(s.dir)
		} else {
			got, err = r.Remove(s.dir)
		}
		if got != s.want || (err != nil) != s.wantErr {
			t.Errorf("%s(%s) = %v, %v; want %v, error %v", s.op, s.dir, got, err, s.want, s.wantErr)
		}
	}
	if got, want := r.List(), []string{a, b}; !reflect.DeepEqual(got, want) {
		t.Errorf("List = %v, want %v", got, want)
	}

	// Private file in a private folder, and nothing left behind.
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode: %v, %v", fi.Mode(), err)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("dir mode: %v, %v", fi.Mode(), err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("folder holds %d files, want just the registry", len(entries))
	}

	// Another registry on the same file sees it all.
	r2 := NewRegistry(path)
	if err := r2.Load(); err != nil {
		t.Fatal(err)
	}
	if got := r2.List(); !reflect.DeepEqual(got, []string{a, b}) {
		t.Errorf("reloaded List = %v", got)
	}
	// Remove by the spelling that resolves to it.
	if ok, err := r2.Remove(filepath.Join(root, "b-link")); !ok || err != nil {
		t.Errorf("Remove via link = %v, %v", ok, err)
	}
	if got := r2.List(); !reflect.DeepEqual(got, []string{a}) {
		t.Errorf("List after remove = %v", got)
	}
}

func TestRegistryAddBeforeLoad(t *testing.T) {
	root := resolvePath(t.TempDir())
	path := filepath.Join(root, "reg.json")
	first := NewRegistry(path)
	if _, err := first.Add("/x/one"); err != nil {
		t.Fatal(err)
	}
	// A second registry never loaded must not drop "/x/one" when it writes.
	second := NewRegistry(path)
	if _, err := second.Add("/x/two"); err != nil {
		t.Fatal(err)
	}
	if got := second.List(); !reflect.DeepEqual(got, []string{"/x/one", "/x/two"}) {
		t.Errorf("List = %v", got)
	}
}

func TestRegistryCorrupt(t *testing.T) {
	tests := []struct{ name, content, wantErr string }{
		{"garbage", "{not json", "corrupt"},
		{"wrong shape", `{"directories": "x"}`, "corrupt"},
		{"truncated", `{"version":1,"directories":["/a"`, "corrupt"},
		{"newer format", `{"version":99,"directories":["/a"]}`, "newer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "reg.json")
			writeFile(t, path, tt.content)
			r := NewRegistry(path)
			err := r.Load()
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !strings.Contains(err.Error(), path) {
				t.Fatalf("Load = %v, want an error naming the file and saying %q", err, tt.wantErr)
			}
			if _, err := r.Add("/x"); err == nil {
				t.Error("Add wrote over a file it could not read")
			}
			if _, err := r.Remove("/a"); err == nil {
				t.Error("Remove wrote over a file it could not read")
			}
			if got := string(readBytes(t, path)); got != tt.content {
				t.Errorf("file changed to %q", got)
			}
		})
	}
}

func TestRegistryConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "reg.json")
	r := NewRegistry(path)
	if err := r.Load(); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			dir := fmt.Sprintf("/w/%02d", i)
			if _, err := r.Add(dir); err != nil {
				t.Error(err)
			}
			r.List()
			if i%2 == 0 {
				if _, err := r.Remove(dir); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	got := r.List()
	if len(got) != 10 || !slices.IsSorted(got) {
		t.Errorf("List = %v, want the 10 odd ones", got)
	}
	r2 := NewRegistry(path)
	if err := r2.Load(); err != nil || !reflect.DeepEqual(r2.List(), got) {
		t.Errorf("file holds %v (%v), memory %v", r2.List(), err, got)
	}
}

func TestScanRegistered(t *testing.T) {
	h := newFakeHome(t)
	wt := filepath.Join(h.root, "src", "feature")
	makeWorktree(t, filepath.Join(h.root, "src", "mainrepo"), wt, "feature", "ref: refs/heads/feat", false)
	clone := filepath.Join(h.root, "src", "clone")
	writeFile(t, filepath.Join(clone, ".git", "HEAD"), "ref: refs/heads/main\n")
	plain := mkdir(t, filepath.Join(h.root, "plain"))
	writeFile(t, filepath.Join(h.root, "afile"), "x")
	if err := os.Symlink(clone, filepath.Join(h.root, "clone-link")); err != nil {
		t.Fatal(err)
	}

	got := ScanRegistered([]string{
		wt, clone, plain,
		filepath.Join(h.root, "clone-link"), // same as clone
		filepath.Join(h.root, "gone"),       // skipped
		filepath.Join(h.root, "afile"),      // skipped
	})
	want := []Workspace{
		{Name: "feature", Repo: "mainrepo", Branch: "feat", Directory: wt, Source: SourceRegistered},
		{Name: "clone", Repo: "clone", Branch: "main", Directory: clone, Source: SourceRegistered},
		{Name: "plain", Directory: plain, Source: SourceRegistered},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
	if got := ScanRegistered(nil); len(got) != 0 {
		t.Errorf("ScanRegistered(nil) = %v", got)
	}
}
