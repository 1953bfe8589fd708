// Package hooks installs and removes the bridge's Claude Code hooks in a
// settings file (<workspace>/.claude/settings.local.json, or the user's
// ~/.claude/settings.json), merged with what the user has there: their own
// hooks and settings, and the order of their keys, survive both install
// and uninstall.
package hooks

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"conductorbridge/bridge/atomicfile"
	"conductorbridge/bridge/regular"
)

// WorkspaceFile is the settings file, relative to a workspace, that the
// bridge's hooks for that workspace go in.
const WorkspaceFile = ".claude/settings.local.json"

// marker is how installs before IsBridgeCommand are recognised: the
// program is conductor-bridge and its first argument is "hook".
const marker = "conductor-bridge"

// Spec is how hooks call the bridge.
type Spec struct {
	Binary   string // absolute path of conductor-bridge
	StateDir string // where the bridge keeps its state (secret, address)
	// UserScope marks hooks for the user's own settings: they run in every
	// session on the machine and act only in adopted workspaces.
	UserScope bool
}

// hook is one command hook as Claude Code reads it.
type hook struct {
	Type        string `json:"type"`
	Command     string `json:"command"`
	Timeout     int    `json:"timeout,omitempty"` // seconds
	AsyncRewake bool   `json:"asyncRewake,omitempty"`
	// RewakeMessage and RewakeSummary are what Claude Code 2.1 puts
	// before the rewake hook's message for the model and shows the
	// person in its terminal, instead of "Stop hook blocking error from
	// command …" and "Stop hook feedback". Claude Code's schema marks
	// them internal; releases without them ignore them (2.0 and 1.0 run
	// the hook with them in place), and app/words_e2e_test.go notices a
	// release that drops them.
	RewakeMessage string `json:"rewakeMessage,omitempty"`
	RewakeSummary string `json:"rewakeSummary,omitempty"`
}

// group is one entry of an event's list: an optional matcher and hooks.
type group struct {
	Matcher string `json:"matcher,omitempty"`
	Hooks   []hook `json:"hooks"`
}

// What Claude Code 2.1 shows of a message that wakes an idle agent: the
// model reads RewakeMessage, a space, then the framed message; the
// person's terminal shows RewakeSummary as the line that starts the new
// turn.
const (
	RewakeMessage = "Delivered by Conductor Bridge:"
	RewakeSummary = "Message from the Chrome side panel"
)

// rewakeTimeout bounds how long the idle-wake hook waits for a message
// before Claude Code stops it (a new one starts after the next turn).
const rewakeTimeout = 24 * 60 * 60

// Command is the shell command of the bridge's hook for event, quoted
// for a shell (Codex's Stop hook takes the same one).
func (s Spec) Command(event string) string {
	c := quote(s.Binary) + " hook " + event + " --state-dir " + quote(s.StateDir)
	if s.UserScope {
		c += " --scope user"
	}
	return c
}

// groups returns the bridge's hooks by Claude Code event.
func (s Spec) groups() map[string]group {
	cmd := s.Command
	short := func(event string) hook { return hook{Type: "command", Command: cmd(event), Timeout: 10} }
	return map[string]group{
		"Stop": {Hooks: []hook{
			short("stop"),
			{Type: "command", Command: cmd("rewake"), Timeout: rewakeTimeout, AsyncRewake: true,
				RewakeMessage: RewakeMessage, RewakeSummary: RewakeSummary},
		}},
		"PostToolUse":      {Matcher: "*", Hooks: []hook{short("post-tool-use")}},
		"Notification":     {Hooks: []hook{short("notification")}},
		"SessionStart":     {Hooks: []hook{short("session-start")}},
		"SessionEnd":       {Hooks: []hook{short("session-end")}},
		"UserPromptSubmit": {Hooks: []hook{short("user-prompt-submit")}},
	}
}

// eventOrder is the order events are added in, for a stable file.
var eventOrder = []string{"SessionStart", "UserPromptSubmit", "PostToolUse", "Notification", "Stop", "SessionEnd"}

// quote makes a path safe as one shell word.
func quote(p string) string {
	if p != "" && strings.IndexFunc(p, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+", r))
	}) < 0 {
		return p
	}
	return "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
}

// Install merges the bridge's hooks into the settings file at path,
// replacing any earlier version of them. It reports whether the file
// changed. A file that is not valid JSON is left alone with an error, and
// so is one the bridge must not write (CheckTarget: a link, or tracked by
// git), with its info/exclude.
func Install(path string, s Spec) (bool, error) {
	if !filepath.IsAbs(s.Binary) || !filepath.IsAbs(s.StateDir) {
		return false, errors.New("hooks need the absolute paths of the binary and the state dir")
	}
	if err := checkTargets(path, !s.UserScope); err != nil {
		return false, err
	}
	changed, err := edit(path, func(h *object) error {
		want := s.groups()
		for _, ev := range eventOrder {
			list, err := withoutOurs(h.get(ev))
			if err != nil {
				return fmt.Errorf("hooks.%s: %w", ev, err)
			}
			g, _ := json.Marshal(want[ev])
			list = append(list, g)
			h.set(ev, mustJSON(list))
		}
		return nil
	})
	if err != nil {
		return changed, err
	}
	// A workspace's hooks file must not show in git status, Conductor's
	// diff view or a pull request.
	if wt := worktreeOf(path); wt != "" && !s.UserScope {
		if _, err := Exclude(wt); err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// Uninstall removes the bridge's hooks from the file at path, and the
// "hooks" key or the file itself if nothing else is left in them.
func Uninstall(path string) (bool, error) {
	if err := checkTargets(path, true); err != nil {
		return false, err
	}
	if wt := worktreeOf(path); wt != "" {
		if _, err := Unexclude(wt); err != nil {
			return false, err
		}
	}
	return edit(path, func(h *object) error {
		for _, ev := range append([]string(nil), h.keys...) {
			list, err := withoutOurs(h.get(ev))
			if err != nil {
				return fmt.Errorf("hooks.%s: %w", ev, err)
			}
			if len(list) == 0 {
				h.remove(ev)
			} else {
				h.set(ev, mustJSON(list))
			}
		}
		return nil
	})
}

// checkTargets checks every file writing the hooks at path would change:
// the settings file and, for a workspace's, its info/exclude.
func checkTargets(path string, exclude bool) error {
	if err := CheckTarget(path); err != nil {
		return err
	}
	if wt := worktreeOf(path); wt != "" && exclude {
		if common := commonDir(wt); common != "" {
			return CheckTarget(filepath.Join(common, "info", "exclude"))
		}
	}
	return nil
}

// Status reports whether the bridge's hooks are in the file at path, and
// the binary they run.
func Status(path string) (installed bool, binary string, err error) {
	root, err := load(path)
	if errors.Is(err, fs.ErrNotExist) {
		return false, "", nil
	}
	if err != nil {
		return false, "", err
	}
	h, err := parseObject(root.get("hooks"))
	if err != nil {
		return false, "", fmt.Errorf("%s: hooks: %w", path, err)
	}
	for _, ev := range h.keys {
		var groups []group
		if json.Unmarshal(h.get(ev), &groups) != nil {
			continue
		}
		for _, g := range groups {
			for _, hk := range g.Hooks {
				if ours(hk.Command) {
					return true, commandBinary(hk.Command), nil
				}
			}
		}
	}
	return false, "", nil
}

// edit applies fn to the "hooks" object of the settings at path and writes
// the result atomically, creating the file and its folder if needed.
func edit(path string, fn func(*object) error) (bool, error) {
	root, err := load(path)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		return false, err
	}
	if missing {
		root = &object{vals: map[string]json.RawMessage{}}
	}
	before := root.encode()
	h, err := parseObject(root.get("hooks"))
	if err != nil {
		return false, fmt.Errorf("%s: hooks: %w (file left unchanged)", path, err)
	}
	if err := fn(h); err != nil {
		return false, fmt.Errorf("%s: %w (file left unchanged)", path, err)
	}
	if len(h.keys) == 0 {
		root.remove("hooks")
	} else {
		root.set("hooks", h.encode())
	}
	after := root.encode()
	if sameJSON(before, after) {
		return false, nil
	}
	if missing && len(root.keys) == 0 {
		return false, nil
	}
	if len(root.keys) == 0 {
		return true, os.Remove(path) // only our hooks were ever in it
	}
	var out bytes.Buffer
	if err := json.Indent(&out, after, "", "  "); err != nil {
		return false, err
	}
	out.WriteByte('\n')
	mode := os.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm() // keep the user's choice
	}
	return true, atomicfile.Write(path, out.Bytes(), mode)
}

func load(path string) (*object, error) {
	b, err := regular.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if len(bytes.TrimSpace(b)) == 0 {
		return &object{vals: map[string]json.RawMessage{}}, nil
	}
	o, err := parseObject(b)
	if err != nil {
		return nil, fmt.Errorf("%s is not valid JSON, so it was left alone: %w", path, err)
	}
	return o, nil
}

// withoutOurs returns an event's hook groups without the bridge's hooks,
// keeping the user's groups byte for byte.
func withoutOurs(raw json.RawMessage) ([]json.RawMessage, error) {
	if raw == nil {
		return nil, nil
	}
	var list []json.RawMessage
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, errors.New("not a list")
	}
	kept := list[:0]
	for _, g := range list {
		var parsed struct {
			Hooks []json.RawMessage `json:"hooks"`
		}
		if json.Unmarshal(g, &parsed) != nil || len(parsed.Hooks) == 0 {
			kept = append(kept, g)
			continue
		}
		theirs := parsed.Hooks[:0]
		for _, hk := range parsed.Hooks {
			var c struct {
				Command string `json:"command"`
			}
			if json.Unmarshal(hk, &c) == nil && ours(c.Command) {
				continue
			}
			theirs = append(theirs, hk)
		}
		switch {
		case len(theirs) == len(parsed.Hooks):
			kept = append(kept, g)
		case len(theirs) > 0: // a group shared with the user's hooks: keep theirs
			o, err := parseObject(g)
			if err != nil {
				return nil, err
			}
			o.set("hooks", mustJSON(theirs))
			kept = append(kept, o.encode())
		}
	}
	return kept, nil
}

// ours reports whether a hook command is the bridge's.
func ours(cmd string) bool { return IsBridgeCommand(cmd) }

// IsBridgeCommand reports whether a hook's shell command is the bridge's
// own. It is told by its shape alone, whatever the binary is called (a
// bridge built as `cb` or `app` knows its hooks): exactly
//
//	<binary> hook <event> --state-dir <dir> [--scope user]
//
// as Spec.Command writes it, plain words or single-quoted ones, and
// nothing else: no second command, no expansion. An older install's
// command is told by the binary's name: conductor-bridge's hook verb.
func IsBridgeCommand(cmd string) bool {
	if w, ok := shellWords(cmd); ok && bridgeArgv(w) {
		return true
	}
	i := strings.Index(cmd, marker)
	if i < 0 {
		return false
	}
	rest := strings.TrimLeft(cmd[i+len(marker):], `'"`)
	rest = strings.TrimPrefix(rest, ".exe")
	return strings.HasPrefix(strings.TrimLeft(rest, `'" `), "hook ")
}

// IsBridgeArgv is IsBridgeCommand for an argv (Codex's notify program).
func IsBridgeArgv(w []string) bool {
	if bridgeArgv(w) {
		return true
	}
	return len(w) >= 2 && strings.Contains(filepath.Base(w[0]), marker) && w[1] == "hook"
}

func bridgeArgv(w []string) bool {
	switch {
	case len(w) == 7 && w[5] == "--scope" && w[6] == "user":
	case len(w) == 5:
	default:
		return false
	}
	return w[0] != "" && w[1] == "hook" && isEventName(w[2]) && w[3] == "--state-dir" && w[4] != ""
}

// isEventName: a hook verb's event, as the bridge names them (stop,
// post-tool-use, codex-notify, …).
func isEventName(s string) bool {
	if s == "" || len(s) > 40 || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	return strings.Trim(s, "abcdefghijklmnopqrstuvwxyz-") == ""
}

// shellWords splits a command quoted the way quote quotes: words of
// characters quote leaves bare, single-quoted runs, and a backslashed
// quote between two such runs (how quote writes a quote). Anything else a
// shell would read as more than words (;, &, |, $, `, ", redirections,
// globs) makes it no command of the bridge's.
func shellWords(cmd string) ([]string, bool) {
	var (
		words []string
		cur   strings.Builder
		in    bool // inside a word
	)
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case c == ' ':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		case c == '\'':
			end := strings.IndexByte(cmd[i+1:], '\'')
			if end < 0 {
				return nil, false
			}
			cur.WriteString(cmd[i+1 : i+1+end])
			i += end + 1
			in = true
		case c == '\\' && i+1 < len(cmd) && cmd[i+1] == '\'':
			cur.WriteByte('\'')
			i++
			in = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("/._-+", c) >= 0:
			// What quote leaves bare.
			cur.WriteByte(c)
			in = true
		default:
			return nil, false
		}
	}
	if in {
		words = append(words, cur.String())
	}
	return words, true
}

// commandBinary returns the program of a hook command we wrote.
func commandBinary(cmd string) string {
	if w, ok := shellWords(cmd); ok && len(w) > 0 {
		return w[0]
	}
	if strings.HasPrefix(cmd, "'") {
		if end := strings.Index(cmd[1:], "' hook "); end >= 0 {
			return strings.ReplaceAll(cmd[1:1+end], `'\''`, "'")
		}
	}
	if f := strings.Fields(cmd); len(f) > 0 {
		return f[0]
	}
	return ""
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // only ever called on values built here
	}
	return b
}

// object is a JSON object that remembers its key order.
type object struct {
	keys []string
	vals map[string]json.RawMessage
}

func parseObject(b []byte) (*object, error) {
	o := &object{vals: map[string]json.RawMessage{}}
	if len(bytes.TrimSpace(b)) == 0 {
		return o, nil
	}
	if !json.Valid(b) {
		return nil, errors.New("not valid JSON")
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(key, v)
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return o, nil
}

func (o *object) get(k string) json.RawMessage { return o.vals[k] }

func (o *object) set(k string, v json.RawMessage) {
	if _, ok := o.vals[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.vals[k] = v
}

func (o *object) remove(k string) {
	if _, ok := o.vals[k]; !ok {
		return
	}
	delete(o.vals, k)
	for i, key := range o.keys {
		if key == k {
			o.keys = append(o.keys[:i], o.keys[i+1:]...)
			break
		}
	}
}

func (o *object) encode() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.vals[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// sameJSON compares two encodings ignoring insignificant whitespace.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	if json.Compact(&ca, a) != nil || json.Compact(&cb, b) != nil {
		return false
	}
	return bytes.Equal(ca.Bytes(), cb.Bytes())
}
