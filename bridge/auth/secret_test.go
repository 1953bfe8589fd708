package auth

import (
	"net/http"
	"os"
	"path/filepath"
	"testing"
)

func TestSecretCreatedPrivateAndStable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state", "token")
	s, err := LoadOrCreate(path)
	if err != nil {
		t.Fatal(err)
	}
	info, _ := os.Stat(path)
	dir, _ := os.Stat(filepath.Dir(path))
	if info.Mode().Perm() != 0o600 || dir.Mode().Perm() != 0o700 {
		t.Errorf("modes: file %v dir %v", info.Mode().Perm(), dir.Mode().Perm())
	}
	if len(s.Value()) != 64 {
		t.Errorf("token length %d", len(s.Value()))
	}
	again, err := LoadOrCreate(path)
	if err != nil || again.Value() != s.Value() {
		t.Errorf("reloaded secret differs: %v", err)
	}
	if !s.Equal(s.Value()) || s.Equal("") || s.Equal(s.Value()[:63]) || s.Equal(s.Value()+"x") {
		t.Error("Equal is wrong")
	}
	old := s.Value()
	if err := s.Rotate(); err != nil || s.Value() == old || s.Equal(old) {
		t.Errorf("rotate: %v", err)
	}
	if v, _ := Read(path); v != s.Value() {
		t.Error("rotated secret not on disk")
	}
	if s.String() != "[secret]" {
		t.Error("String leaks the value")
	}
}

func TestSecretTightensLooseFileAndRejectsShort(t *testing.T) {
	dir := t.TempDir()
	loose := filepath.Join(dir, "loose")
	os.WriteFile(loose, []byte("0123456789abcdef0123456789abcdef0123\n"), 0o644)
	if _, err := LoadOrCreate(loose); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(loose); info.Mode().Perm() != 0o600 {
		t.Errorf("not tightened: %v", info.Mode().Perm())
	}
	short := filepath.Join(dir, "short")
	os.WriteFile(short, []byte("abc"), 0o600)
	if _, err := LoadOrCreate(short); err == nil {
		t.Error("short secret accepted")
	}
}

func TestBearer(t *testing.T) {
	for h, want := range map[string]string{"Bearer abc": "abc", "bearer abc ": "abc", "Basic abc": "", "Bearer ": "", "": ""} {
		r, _ := http.NewRequest("GET", "/", nil)
		r.Header.Set("Authorization", h)
		if got := Bearer(r); got != want {
			t.Errorf("%q: %q, want %q", h, got, want)
		}
	}
}
