package transcript

import (
	"bytes"
	"encoding/json"
	"io"
)

// CwdScanLimit is how much of a transcript ReadCwd reads to find its cwd. The cwd
// is on one of the first records, but a single line can be megabytes (a
// tool's output), so whole files are never read.
const CwdScanLimit = 64 << 10

// ReadCwd returns the first cwd recorded in the transcript at path, or ""
// when none is found in its first 64 KiB (a file just created, or one that
// opens with a huge record). It reads 4 KiB first and doubles only while
// the cwd is not found: the engine asks on every change of a live file.
func ReadCwd(path string) (string, error) {
	f, err := OpenRegular(path) // a FIFO named *.jsonl must not block the scan
	if err != nil {
		return "", err
	}
	defer f.Close()
	buf := make([]byte, 0, 4<<10)
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return cwdIn(buf), nil
		}
		if err != nil {
			return "", err
		}
		if len(buf) < cap(buf) {
			continue // a short read: fill the buffer before looking
		}
		if cwd := cwdIn(buf); cwd != "" || len(buf) >= CwdScanLimit {
			return cwd, nil
		}
		buf = append(make([]byte, 0, min(2*cap(buf), CwdScanLimit)), buf...)
	}
}

// cwdKey is how a record's cwd field starts in Claude Code's compact JSON.
const cwdKey = `"cwd":`

// cwdIn finds the first cwd in transcript bytes, line by line. A line that
// is not JSON — cut by the read limit, half-written, or garbage — is
// searched for a "cwd":"…" string directly.
func cwdIn(b []byte) string {
	for line := range bytes.Lines(b) {
		if !bytes.Contains(line, []byte(cwdKey)) {
			continue
		}
		var rec struct {
			Cwd string `json:"cwd"`
		}
		if err := json.Unmarshal(line, &rec); err == nil {
			if rec.Cwd != "" {
				return rec.Cwd
			}
			continue
		}
		if cwd := rawCwd(line); cwd != "" {
			return cwd
		}
	}
	return ""
}

// rawCwd extracts the string value after the first "cwd": in a line that
// does not parse as a whole.
func rawCwd(line []byte) string {
	i := bytes.Index(line, []byte(cwdKey))
	rest := bytes.TrimLeft(line[i+len(cwdKey):], " ")
	if len(rest) == 0 || rest[0] != '"' {
		return ""
	}
	for j := 1; j < len(rest); j++ {
		switch rest[j] {
		case '\\':
			j++ // skip the escaped character
		case '"':
			var s string
			if json.Unmarshal(rest[:j+1], &s) != nil {
				return ""
			}
			return s
		}
	}
	return "" // cut inside the value
}
