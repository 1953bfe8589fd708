package codex

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"

	"github.com/BurntSushi/toml"

	"conductorbridge/bridge/hooks"
)

// splitBlocks finds the bridge's blocks in a config.toml: a begin marker
// line and the next end marker line, with no other begin between (a
// begin marker alone — one a user pasted into a multi-line string, say —
// is no block). It returns data without them (markers included, and the
// blank line InstallHooks put before each) and each block's lines.
func splitBlocks(data []byte) (rest []byte, blocks [][]byte) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	marker := func(i int) string { return string(bytes.TrimRight(lines[i], "\r\n")) }
	var pairs [][2]int
	open := -1
	for i := range lines {
		switch marker(i) {
		case blockBegin:
			open = i
		case blockEnd:
			if open >= 0 {
				pairs = append(pairs, [2]int{open, i})
				open = -1
			}
		}
	}
	for i := 0; i < len(lines); i++ {
		if len(pairs) > 0 && i == pairs[0][0] {
			if bytes.HasSuffix(rest, []byte("\n\n")) {
				rest = rest[:len(rest)-1]
			}
			blocks = append(blocks, bytes.Join(lines[i+1:pairs[0][1]], nil))
			i = pairs[0][1]
			pairs = pairs[1:]
			continue
		}
		rest = append(rest, lines[i]...)
	}
	return rest, blocks
}

// removeOurs returns data without the bridge's blocks, after proving that
// they hold only what the bridge writes and that nothing else changes:
// the file parsed as TOML, less the blocks' own keys, must be exactly the
// file without the blocks, parsed. A marker inside a string, a key of the
// user's inside a block, or a file that is not TOML to begin with leaves
// the file as it is, with an error saying why.
func removeOurs(path string, data []byte) ([]byte, error) {
	rest, blocks := splitBlocks(data)
	if len(blocks) == 0 {
		return data, nil
	}
	var full, after map[string]any
	if _, err := toml.Decode(string(data), &full); err != nil {
		return nil, fmt.Errorf("%s is not valid TOML, left as is: %w", path, err)
	}
	if _, err := toml.Decode(string(rest), &after); err != nil {
		return nil, fmt.Errorf("%s: without the bridge's marked lines it would not be valid TOML (a marker inside a string?), left as is: %w", path, err)
	}
	for _, b := range blocks {
		var ours map[string]any
		if _, err := toml.Decode(string(b), &ours); err != nil {
			return nil, fmt.Errorf("%s: the bridge's marked lines are not TOML of their own, left as is: %w", path, err)
		}
		if err := subtract(full, ours); err != nil {
			return nil, fmt.Errorf("%s: %w, left as is: remove the marked lines by hand", path, err)
		}
	}
	if !reflect.DeepEqual(full, after) {
		return nil, fmt.Errorf("%s: the bridge's markers enclose more than what it wrote, left as is: remove the marked lines by hand", path)
	}
	return rest, nil
}

// subtract takes what one of the bridge's blocks defines (ours) out of the
// whole file's document, failing on anything the bridge never writes.
func subtract(doc, ours map[string]any) error {
	for k, v := range ours {
		switch k {
		case "notify":
			argv, ok := stringList(v)
			if !ok || !hooks.IsBridgeArgv(argv) || !reflect.DeepEqual(doc[k], v) {
				return fmt.Errorf("a notify the bridge did not write is inside its markers")
			}
			delete(doc, k)
		case "hooks":
			mine, _ := v.(map[string]any)
			theirs, _ := doc[k].(map[string]any)
			if mine == nil || theirs == nil {
				return fmt.Errorf("hooks inside the bridge's markers are not a table")
			}
			if err := subtractHooks(theirs, mine); err != nil {
				return err
			}
			if len(theirs) == 0 {
				delete(doc, k)
			}
		default:
			return fmt.Errorf("%q, which the bridge never writes, is inside its markers", k)
		}
	}
	return nil
}

// subtractHooks takes the bridge's hook groups and trust entries out of
// the file's hooks table.
func subtractHooks(doc, ours map[string]any) error {
	for ev, v := range ours {
		if ev == "state" {
			mine, _ := v.(map[string]any)
			theirs, _ := doc[ev].(map[string]any)
			for key, entry := range mine {
				if theirs == nil || !reflect.DeepEqual(theirs[key], entry) {
					return fmt.Errorf("the trust entry %q inside the bridge's markers is not the file's", key)
				}
				delete(theirs, key)
			}
			if theirs != nil && len(theirs) == 0 {
				delete(doc, ev)
			}
			continue
		}
		mine := tables(v)
		if mine == nil {
			return fmt.Errorf("hooks.%s inside the bridge's markers is not a list of groups", ev)
		}
		theirs := tables(doc[ev])
		for _, g := range mine {
			if !bridgeGroup(g) {
				return fmt.Errorf("a hooks.%s group the bridge did not write is inside its markers", ev)
			}
			i := slices.IndexFunc(theirs, func(t map[string]any) bool { return reflect.DeepEqual(t, g) })
			if i < 0 {
				return fmt.Errorf("a hooks.%s group inside the bridge's markers is not the file's", ev)
			}
			theirs = slices.Delete(theirs, i, i+1)
		}
		if len(theirs) == 0 {
			delete(doc, ev)
		} else {
			doc[ev] = theirs
		}
	}
	return nil
}

// bridgeGroup reports whether a [[hooks.<Event>]] group is one
// InstallHooks writes: its hooks only, each running the bridge.
func bridgeGroup(g map[string]any) bool {
	hs := tables(g["hooks"])
	if len(hs) == 0 {
		return false
	}
	for _, h := range hs {
		cmd, _ := h["command"].(string)
		if !hooks.IsBridgeCommand(cmd) {
			return false
		}
	}
	for k := range g {
		if k != "hooks" {
			return false
		}
	}
	return true
}

// stringList returns v as a list of strings, as TOML decodes an array.
func stringList(v any) ([]string, bool) {
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	out := make([]string, len(list))
	for i, x := range list {
		if out[i], ok = x.(string); !ok {
			return nil, false
		}
	}
	return out, true
}

// tables returns v as a list of tables: an array of tables decodes as
// []map[string]any, an inline array of inline tables as []any. nil when v
// is neither (or holds anything else).
func tables(v any) []map[string]any {
	switch l := v.(type) {
	case []map[string]any:
		return l
	case []any:
		out := make([]map[string]any, len(l))
		for i, x := range l {
			m, ok := x.(map[string]any)
			if !ok {
				return nil
			}
			out[i] = m
		}
		return out
	}
	return nil
}
