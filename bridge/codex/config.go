package codex

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"conductorbridge/bridge/atomicfile"
	"conductorbridge/bridge/hooks"
	"conductorbridge/bridge/regular"
)

// The bridge's lines in a user's config.toml sit between these comments,
// so they can be found, replaced and removed without touching anything
// else. There are two blocks: notify must be a top-level key, which TOML
// allows only before the first table, and the hook tables go at the end.
const (
	blockBegin = "# >>> conductor-bridge (managed: `conductor-bridge hooks uninstall` removes this block)"
	blockEnd   = "# <<< conductor-bridge"
)

// HookSpec is what InstallHooks puts into $CODEX_HOME/config.toml.
type HookSpec struct {
	// Stop is the shell command of a Stop hook (0.169 and later). Codex
	// runs it when a turn is about to end, with the session's JSON on
	// stdin; printing {"decision":"block","reason":msg} makes the agent
	// go on with msg as a new user message (the delivery route for a busy
	// session), and its running at all is an exact turn-complete signal.
	// "" installs no hook.
	Stop string
	// StopTimeout is the hook's timeout in seconds (default 10).
	StopTimeout int
	// Permission is the shell command of a PermissionRequest hook (0.169
	// and later). Codex runs it when a tool call needs an approval, just
	// before it asks the person (codex-rs/core/src/tools/approvals.rs,
	// resolve_tool_apporval), with the session and the tool call on stdin.
	// Its running is the only sign that Codex waits for the person: the
	// rollout never records an approval request. Printing nothing leaves
	// the decision to the person, as the bridge's hook always does. ""
	// installs no hook.
	Permission string
	// Notify is the argv of a notify program (every release): Codex runs
	// it after each turn with a JSON argument {"type":
	// "agent-turn-complete", "thread-id", "turn-id", …}. nil installs none.
	Notify []string
}

// The hook events the bridge installs, by config.toml table and by the
// name Codex uses in a hook's trust key and hash.
const (
	eventStop       = "Stop"
	eventPermission = "PermissionRequest"
)

var trustNames = map[string]string{eventStop: "stop", eventPermission: "permission_request"}

// hookTimeout is the timeout in seconds of a managed hook.
func (s HookSpec) hookTimeout(event string) int {
	if event == eventStop && s.StopTimeout > 0 {
		return s.StopTimeout
	}
	return 10
}

// hooks lists the managed hooks of s in the order they are written.
func (s HookSpec) hooks() []managedHook {
	var out []managedHook
	for _, h := range []managedHook{{eventStop, s.Stop}, {eventPermission, s.Permission}} {
		if h.command != "" {
			out = append(out, h)
		}
	}
	return out
}

type managedHook struct{ event, command string }

// HookStatus says what of the bridge is in a config.toml.
type HookStatus struct {
	Path      string
	Installed bool   // a managed block is there
	Stop      string // the Stop hook's command, "" if none
	// Permission is the PermissionRequest hook's command, "" if none (an
	// install from before the bridge had one).
	Permission string
	// Trusted is set when every hook of the bridge found has a trust hash
	// that matches it, so Codex runs them.
	Trusted bool
	Notify  []string // the notify argv the bridge installed, nil if none
	// UserNotify is the user's own notify program, which the bridge
	// leaves in place (Codex takes a single notify program).
	UserNotify []string
}

// ErrConfigConflict means the user's config.toml defines the keys the
// bridge would add in a form it cannot merge with (e.g. hooks.Stop as an
// inline array); the file is left untouched.
var ErrConfigConflict = errors.New("codex config.toml conflicts with the bridge's hooks")

// ConfigPath is the config.toml of a Codex home.
func ConfigPath(codexHome string) string { return filepath.Join(codexHome, "config.toml") }

// InstallHooks merges the bridge's hooks into codexHome's config.toml,
// replacing an earlier version of them and keeping every other line,
// comment included, byte for byte. The result is parsed before it is
// written: a file that is not valid TOML, or that would not be, is left
// alone with an error. It reports whether the file changed.
func InstallHooks(codexHome string, spec HookSpec) (bool, error) {
	path, err := filepath.Abs(ConfigPath(codexHome))
	if err != nil {
		return false, fmt.Errorf("codex config path: %w", err)
	}
	if err := hooks.CheckTarget(path); err != nil {
		return false, err // a dotfiles link stays a link, a tracked file unchanged
	}
	old, perm, err := readConfig(path)
	if err != nil {
		return false, err
	}
	base, err := removeOurs(path, old)
	if err != nil {
		return false, err
	}
	var doc map[string]any
	if _, err := toml.Decode(string(base), &doc); err != nil {
		return false, fmt.Errorf("%s is not valid TOML, left as is: %w", path, err)
	}
	var out bytes.Buffer
	if spec.Notify != nil {
		if _, taken := doc["notify"]; !taken {
			out.WriteString(blockBegin + "\nnotify = " + tomlArray(spec.Notify) + "\n" + blockEnd + "\n")
		}
	}
	out.Write(base)
	groups := map[string]int{}
	if hooks := spec.hooks(); len(hooks) > 0 {
		if out.Len() > 0 && !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
			out.WriteByte('\n')
		}
		if out.Len() > 0 {
			out.WriteByte('\n')
		}
		out.WriteString(blockBegin + "\n")
		for _, h := range hooks {
			groups[h.event] = countGroups(doc, h.event)
			fmt.Fprintf(&out, "[[hooks.%s]]\nhooks = [{ type = \"command\", command = %s, timeout = %d }]\n\n",
				h.event, tomlString(h.command), spec.hookTimeout(h.event))
		}
		for i, h := range hooks {
			if i > 0 {
				out.WriteByte('\n')
			}
			key := trustKey(path, h.event, groups[h.event])
			fmt.Fprintf(&out, "[hooks.state.%s]\ntrusted_hash = %s\n", tomlString(key),
				tomlString(trustHash(trustNames[h.event], h.command, spec.hookTimeout(h.event))))
		}
		out.WriteString(blockEnd + "\n")
	}
	next := out.Bytes()
	if err := checkInstalled(next, spec, groups); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if bytes.Equal(next, old) {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return false, fmt.Errorf("create %s: %w", filepath.Dir(path), err)
	}
	if err := atomicfile.Write(path, next, perm); err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	return true, nil
}

// UninstallHooks removes the bridge's blocks from codexHome's config.toml,
// and the file itself if nothing else was in it. It reports whether the
// file changed.
func UninstallHooks(codexHome string) (bool, error) {
	path := ConfigPath(codexHome)
	if err := hooks.CheckTarget(path); err != nil {
		return false, err
	}
	old, perm, err := readConfig(path)
	if err != nil || old == nil {
		return false, err
	}
	next, err := removeOurs(path, old)
	if err != nil {
		return false, err
	}
	if bytes.Equal(next, old) {
		return false, nil
	}
	if len(bytes.TrimSpace(next)) == 0 {
		if err := os.Remove(path); err != nil {
			return false, fmt.Errorf("remove %s: %w", path, err)
		}
		return true, nil
	}
	if err := atomicfile.Write(path, next, perm); err != nil {
		return false, fmt.Errorf("write %s: %w", path, err)
	}
	return true, nil
}

// HooksStatus reports what of the bridge is in codexHome's config.toml,
// for `hooks status` and doctor.
func HooksStatus(codexHome string) (HookStatus, error) {
	path, err := filepath.Abs(ConfigPath(codexHome))
	if err != nil {
		return HookStatus{}, fmt.Errorf("codex config path: %w", err)
	}
	st := HookStatus{Path: path}
	data, _, err := readConfig(path)
	if err != nil || data == nil {
		return st, err
	}
	_, blocks := splitBlocks(data)
	st.Installed = len(blocks) > 0
	var doc struct {
		Notify []string                  `toml:"notify"`
		Hooks  map[string]toml.Primitive `toml:"hooks"`
	}
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		return st, fmt.Errorf("%s: %w", path, err)
	}
	ours := bytes.Join(blocks, nil)
	if doc.Notify != nil {
		if bytes.Contains(ours, []byte("notify = ")) {
			st.Notify = doc.Notify
		} else {
			st.UserNotify = doc.Notify
		}
	}
	var state map[string]struct {
		TrustedHash string `toml:"trusted_hash"`
	}
	if p, ok := doc.Hooks["state"]; ok {
		_ = md.PrimitiveDecode(p, &state) // a state table Codex could not read either
	}
	st.Trusted = true
	for _, event := range []string{eventStop, eventPermission} {
		var groups []hookGroup
		if p, ok := doc.Hooks[event]; !ok || md.PrimitiveDecode(p, &groups) != nil {
			continue
		}
		for i, g := range groups {
			for j, h := range g.Hooks {
				if j != 0 || !bytes.Contains(ours, []byte(tomlString(h.Command))) {
					continue
				}
				if event == eventStop {
					st.Stop = h.Command
				} else {
					st.Permission = h.Command
				}
				want := trustHash(trustNames[event], h.Command, max(h.Timeout, 1))
				st.Trusted = st.Trusted && state[trustKey(path, event, i)].TrustedHash == want
			}
		}
	}
	st.Trusted = st.Trusted && (st.Stop != "" || st.Permission != "")
	return st, nil
}

// hookGroup is one [[hooks.<Event>]] group of a config.toml.
type hookGroup struct {
	Hooks []struct {
		Command string `toml:"command"`
		Timeout int    `toml:"timeout"`
	} `toml:"hooks"`
}

func readConfig(path string) ([]byte, fs.FileMode, error) {
	data, err := regular.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, 0o600, nil
	}
	if err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", path, err)
	}
	perm := fs.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	return data, perm, nil
}

// countGroups is the number of [[hooks.<event>]] groups already defined:
// the bridge's group comes after them, and its trust key names its index.
func countGroups(doc map[string]any, event string) int {
	h, _ := doc["hooks"].(map[string]any)
	switch s := h[event].(type) {
	case []map[string]any:
		return len(s)
	case []any:
		return len(s)
	}
	return 0
}

// checkInstalled parses the would-be file and checks that Codex will read
// each of the bridge's hooks where its trust key says it is.
func checkInstalled(data []byte, spec HookSpec, groups map[string]int) error {
	var doc struct {
		Notify any                       `toml:"notify"`
		Hooks  map[string]toml.Primitive `toml:"hooks"`
	}
	md, err := toml.Decode(string(data), &doc)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrConfigConflict, err)
	}
	for _, h := range spec.hooks() {
		var got []hookGroup
		if p, ok := doc.Hooks[h.event]; !ok || md.PrimitiveDecode(p, &got) != nil {
			return fmt.Errorf("%w: hooks.%s is not a list of groups", ErrConfigConflict, h.event)
		}
		g := groups[h.event]
		if g >= len(got) || len(got[g].Hooks) == 0 || got[g].Hooks[0].Command != h.command {
			return fmt.Errorf("%w: the %s hook would not be group %d", ErrConfigConflict, h.event, g)
		}
	}
	return nil
}

// trustKey is how Codex names a config.toml hook in [hooks.state]:
// "<config path>:<event>:<group>:<handler>", the event in snake case
// (0.169's hooks/list shows such keys).
func trustKey(configPath, event string, group int) string {
	return fmt.Sprintf("%s:%s:%d:0", configPath, trustNames[event], group)
}

// trustHash is the hash Codex 0.169 compares a hook's trusted_hash with:
// the SHA-256 of its normalized identity {event_name, hooks: [{type,
// command, timeout, async}]} as compact JSON with sorted keys. A user hook
// runs only when the two match (or the person trusted it in the TUI).
func trustHash(event, command string, timeout int) string {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // serde_json does not escape <, >, &
	// Keys in sorted order, as Codex canonicalises them.
	_ = enc.Encode(map[string]any{
		"event_name": event,
		"hooks": []map[string]any{{
			"async": false, "command": command, "timeout": timeout, "type": "command",
		}},
	})
	sum := sha256.Sum256(bytes.TrimSuffix(buf.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// tomlString writes s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

func tomlArray(items []string) string {
	parts := make([]string, len(items))
	for i, s := range items {
		parts[i] = tomlString(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}
