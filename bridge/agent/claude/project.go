package claude

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf16"

	"conductorbridge/bridge/transcript"
)

// maxEncodedLen is where Claude Code 2.1.x cuts a long project folder name
// and appends a hash of the full path (verified on 2.1.328: a 232-character
// cwd). Versions up to 2.0 never cut; for the paths Conductor makes, which
// are far shorter, every version agrees.
const maxEncodedLen = 200

// EncodeProjectDir returns the name Claude Code gives the transcript folder
// of the directory absDir: every character outside [A-Za-z0-9] becomes '-'
// ("/Users/me/.x" → "-Users-me--x").
//
// Claude Code does this with a JavaScript regular expression, which sees
// UTF-16 code units, and so does this function: "é" becomes one '-', a
// character outside the Basic Multilingual Plane (an emoji) two. A name
// longer than 200 units is cut to 200 and followed by '-' and the base-36
// absolute value of the 32-bit djb2 hash ((h<<5)-h+unit) of absDir, as
// Claude Code 2.1 does.
func EncodeProjectDir(absDir string) string {
	units := utf16.Encode([]rune(absDir))
	b := make([]byte, len(units))
	for i, u := range units {
		if u < 0x80 && isAlnum(byte(u)) {
			b[i] = byte(u)
		} else {
			b[i] = '-'
		}
	}
	if len(b) <= maxEncodedLen {
		return string(b)
	}
	var h int32 // wraps like JavaScript's "|0"
	for _, u := range units {
		h = h<<5 - h + int32(u)
	}
	n := int64(h)
	if n < 0 {
		n = -n
	}
	return string(b[:maxEncodedLen]) + "-" + strconv.FormatInt(n, 36)
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// ProjectFolder is the name Claude Code gives the transcript folder of
// dir today (discover.Projects).
func (Agent) ProjectFolder(dir string) string { return EncodeProjectDir(dir) }

// RecordCwd is the working directory a transcript records
// (discover.Projects, agent.PerDirectory): its first cwd, "" when its
// first CwdLimit bytes have none.
func (Agent) RecordCwd(record string) (string, error) { return transcript.ReadCwd(record) }

// CwdLimit is how much of a transcript RecordCwd reads.
func (Agent) CwdLimit() int64 { return transcript.CwdScanLimit }

// TabRecord is a Conductor Claude tab's transcript by a session id of the
// tab (discover.TabRecords): <projects>/<EncodeProjectDir(dir)>/<id>.jsonl
// when it is a regular file, "" otherwise.
func (a Agent) TabRecord(dir, id string) string {
	if a.Projects == "" || !pathElement(id) {
		return ""
	}
	p := filepath.Join(a.Projects, EncodeProjectDir(dir), id+".jsonl")
	if fi, err := os.Stat(p); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	return p
}

// Aliases are the agent_type values older Conductor builds wrote for
// Claude Code tabs, none among them (discover.Aliased).
func (Agent) Aliases() []string { return []string{"", "anthropic", "Anthropic", "claude-code"} }

// pathElement reports whether an id from Conductor's database can name a
// file without walking out of its folder.
func pathElement(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`) && !strings.ContainsRune(s, 0)
}
