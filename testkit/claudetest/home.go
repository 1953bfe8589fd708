package claudetest

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"unicode/utf16"
)

// DefaultTools returns the tools granted with --allowedTools when
// Options.AllowedTools is nil: running as root refuses
// --dangerously-skip-permissions, and -p mode denies ungranted tools.
func DefaultTools() []string { return []string{"Bash", "Edit", "Read", "Write"} }

// PrepareHome creates home and workspace dir and, unless one exists, a
// $HOME/.claude.json that marks onboarding done and dir as trusted. -p
// runs do not need it, but it keeps the home valid for modes that do
// (interactive runs, project hooks in settings.local.json).
func PrepareHome(home, dir string) error {
	if err := os.MkdirAll(filepath.Join(home, ".claude"), 0o755); err != nil {
		return fmt.Errorf("create home: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create workspace: %w", err)
	}
	cfgPath := filepath.Join(home, ".claude.json")
	if _, err := os.Stat(cfgPath); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("stat %s: %w", cfgPath, err)
	}
	abs, err := resolve(dir)
	if err != nil {
		return err
	}
	cfg := map[string]any{
		"hasCompletedOnboarding":        true,
		"bypassPermissionsModeAccepted": true,
		// An interactive run asks whether to use the API key found in the
		// environment unless its last 20 characters were approved.
		"customApiKeyResponses": map[string]any{"approved": []string{apiKey[max(0, len(apiKey)-20):]}, "rejected": []string{}},
		"projects": map[string]any{
			// 1.0.x reads these lists without a nil check and crashes
			// ("allowedTools is not iterable") on an entry lacking them.
			abs: map[string]any{
				"hasTrustDialogAccepted":        true,
				"hasCompletedProjectOnboarding": true,
				"allowedTools":                  []string{},
				"ignorePatterns":                []string{},
				"history":                       []any{},
				"mcpServers":                    map[string]any{},
				"mcpContextUris":                []string{},
				"enabledMcpjsonServers":         []string{},
				"disabledMcpjsonServers":        []string{},
			},
		},
	}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return fmt.Errorf("encode .claude.json: %w", err)
	}
	if err := os.WriteFile(cfgPath, data, 0o600); err != nil {
		return fmt.Errorf("write .claude.json: %w", err)
	}
	return nil
}

// maxProjectDirName is where 2.1.x starts shortening project dir names.
const maxProjectDirName = 200

// ProjectDirName is Claude Code's encoding of a cwd under
// ~/.claude/projects: every UTF-16 code unit outside [A-Za-z0-9] becomes
// '-' (JavaScript's replace(/[^a-zA-Z0-9]/g, "-"), so an emoji becomes
// "--"). 2.1.x cuts names longer than 200 to 200 and appends "-" and the
// base-36 absolute value of the path's Java-style string hash; 1.x and 2.0
// never shorten (TranscriptPath's fallback search covers them).
func ProjectDirName(absDir string) string {
	units := utf16.Encode([]rune(absDir))
	name := make([]byte, len(units))
	var hash int32
	for i, u := range units {
		hash = hash*31 + int32(u) // (h<<5)-h+c|0, with int32 wrap-around
		if u >= 'a' && u <= 'z' || u >= 'A' && u <= 'Z' || u >= '0' && u <= '9' {
			name[i] = byte(u)
		} else {
			name[i] = '-'
		}
	}
	if len(name) <= maxProjectDirName {
		return string(name)
	}
	abs := int64(hash)
	if abs < 0 {
		abs = -abs
	}
	return string(name[:maxProjectDirName]) + "-" + strconv.FormatInt(abs, 36)
}

// TranscriptPath is where Claude Code writes session sessionID run in dir
// under home. When the predicted file is missing but another project dir
// holds the session (an encoding this helper does not know), that one is
// returned instead.
func TranscriptPath(home, dir, sessionID string) (string, error) {
	abs, err := resolve(dir)
	if err != nil {
		return "", err
	}
	projects := filepath.Join(home, ".claude", "projects")
	want := filepath.Join(projects, ProjectDirName(abs), sessionID+".jsonl")
	if _, err := os.Stat(want); err == nil {
		return want, nil
	}
	if found, _ := filepath.Glob(filepath.Join(projects, "*", sessionID+".jsonl")); len(found) == 1 {
		return found[0], nil
	}
	return want, nil
}

// resolve makes dir absolute and symlink-free, as Claude Code does before
// encoding it (/tmp may be a symlink, e.g. on macOS).
func resolve(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("absolute %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("resolve %s: %w", dir, err)
	}
	return real, nil
}

// NewSessionID returns a random UUIDv4, the form --session-id requires.
func NewSessionID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("session id: %w", err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16]), nil
}
