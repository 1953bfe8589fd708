package transcript

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// cwdRecord is a transcript's user line recording cwd.
func cwdRecord(cwd string) string {
	b, err := json.Marshal(map[string]any{"type": "user", "cwd": cwd, "sessionId": "s", "uuid": "u", "isSidechain": false})
	if err != nil {
		panic(err)
	}
	return string(b)
}

func writeCwdFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestCwdIn(t *testing.T) {
	huge := `{"type":"user","message":{"content":"` + strings.Repeat("x", 100) + `"},"cwd":"/late"}`
	tests := []struct{ name, in, want string }{
		{"empty", "", ""},
		{"first record without cwd", `{"type":"queue-operation","operation":"enqueue"}` + "\n" + cwdRecord("/w/a") + "\n", "/w/a"},
		{"garbage then record", "garbage\n\x00\x01\n{\"cwd\":\n" + cwdRecord("/w/b") + "\n", "/w/b"},
		{"partial last line", `{"type":"user","cwd":"/w/c","message":{"content":"cut her`, "/w/c"},
		{"cut inside the value", `{"type":"user","cwd":"/w/cu`, ""},
		{"escaped characters", `{"cwd":"/w/a \"q\" \\ \u00e9"}` + "\n", `/w/a "q" \ é`},
		{"escaped, partial", `{"cwd":"/w/\"q\"/x","message":{"x":"cut`, `/w/"q"/x`},
		{"cwd not a string", `{"cwd":42}` + "\n" + cwdRecord("/w/d"), "/w/d"},
		{"empty cwd skipped", `{"cwd":""}` + "\n" + cwdRecord("/w/e"), "/w/e"},
		{"cwd after a big field", huge, "/late"},
		{"nested key in a line that parses", `{"toolUseResult":{"cwd":"/nested"}}` + "\n" + cwdRecord("/w/f"), "/w/f"},
	}
	for _, tt := range tests {
		if got := cwdIn([]byte(tt.in)); got != tt.want {
			t.Errorf("%s: cwdIn = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestReadCwdLimit(t *testing.T) {
	dir := t.TempDir()
	// A first line bigger than the limit, with the cwd after it: not read.
	far := filepath.Join(dir, "far.jsonl")
	writeCwdFile(t, far, `{"type":"file-history-snapshot","x":"`+strings.Repeat("x", CwdScanLimit)+`"}`+"\n"+cwdRecord("/w/far")+"\n")
	if got, err := ReadCwd(far); err != nil || got != "" {
		t.Errorf("ReadCwd(far) = %q, %v; want nothing (beyond the limit)", got, err)
	}
	// Past the first reads, within the limit.
	for _, at := range []int{5 << 10, 40 << 10, CwdScanLimit - 200} {
		mid := filepath.Join(dir, "mid.jsonl")
		writeCwdFile(t, mid, `{"type":"x","pad":"`+strings.Repeat("p", at)+`"}`+"\n"+cwdRecord("/w/mid")+"\n")
		if got, err := ReadCwd(mid); err != nil || got != "/w/mid" {
			t.Errorf("cwd after %d bytes: readCwd = %q, %v", at, got, err)
		}
	}
	// A huge line after the cwd is never read.
	near := filepath.Join(dir, "near.jsonl")
	writeCwdFile(t, near, cwdRecord("/w/near")+"\n"+strings.Repeat("y", 4*CwdScanLimit))
	if got, err := ReadCwd(near); err != nil || got != "/w/near" {
		t.Errorf("ReadCwd(near) = %q, %v", got, err)
	}
	if _, err := ReadCwd(filepath.Join(dir, "none.jsonl")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ReadCwd(missing) error = %v", err)
	}
}
