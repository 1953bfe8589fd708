package agent_test

import (
	"go/scanner"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// agentWord is the check (grep -iE 'claude|codex|cursor|opencode'),
// applied to the code of a file and not to its comments. "cursor" alone
// is also the engine's word for a journal's resume point, older than
// Cursor the agent: a token is flagged for it only when it names the
// agent ("cursor" as a string, AgentCursor).
var (
	agentWord  = regexp.MustCompile(`(?i)claude|codex|opencode`)
	cursorName = regexp.MustCompile(`(?i)^"cursor"$|agentcursor`)
)

// namesAgents returns the lines of a Go file whose code (comments aside)
// names an agent.
func namesAgents(t *testing.T, path string) []int {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	file := fset.AddFile(path, -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, nil, 0) // comments are skipped
	var lines []int
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			break
		}
		if lit != "" && (agentWord.MatchString(lit) || cursorName.MatchString(lit)) {
			if l := fset.Position(pos).Line; !slices.Contains(lines, l) {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// stillNaming are the files that name an agent today and how many lines
// do, while their agent-specific parts move into the agents' packages
// (issue 27): the count may only go down, and a file not listed must name
// none. The engine names none.
var stillNaming = map[string]int{
	// Conductor's column for every agent's session id is named for the
	// first agent (sessions.claude_session_id): the one line naming it.
	"bridge/discover/dbsessions.go": 1,
}

// TestCoreNamesNoAgent: the engine, discovery, delivery, usage (and its
// driver seam) and the tray know agents only through bridge/agent's and
// bridge/usage/driver's interfaces and the drivers app lists; their code
// names no agent (a comment may).
func TestCoreNamesNoAgent(t *testing.T) {
	root := filepath.Join("..", "..")
	var offenders []string
	for _, dir := range []string{"bridge/engine", "bridge/discover", "bridge/inject", "bridge/usage", "bridge/usage/driver", "tray"} {
		files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go files in %s: %v", dir, err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			rel := filepath.ToSlash(strings.TrimPrefix(f, root+string(filepath.Separator)))
			lines := namesAgents(t, f)
			if len(lines) > stillNaming[rel] {
				offenders = append(offenders, rel)
				t.Errorf("%s: %d lines name an agent (lines %v), at most %d may", rel, len(lines), lines, stillNaming[rel])
			}
		}
	}
	if testing.Verbose() {
		t.Logf("files over their allowance: %v", offenders)
	}
}

// TestNamesAgentsSeesCodeNotComments: the check is not blind.
func TestNamesAgentsSeesCodeNotComments(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		src  string
		want int
	}{
		{"package x\n// Claude, Codex, Cursor and OpenCode\nvar a = 1\n", 0},
		{"package x\nvar a = \"claude\"\n", 1},
		{"package x\nfunc f() { _ = codex.NewParser }\n", 1},
		{"package x\nvar tailCursor, c cursor\n", 0},
		{"package x\nvar a = \"cursor\"\nconst AgentCursor = 1\n", 2},
		{"package x\nimport _ \"conductorbridge/bridge/agent/opencode\"\n", 1},
		{"package x\n/* claude */ var b = 2 // codex\n", 0},
	}
	for i, c := range cases {
		p := filepath.Join(dir, "x.go")
		if err := os.WriteFile(p, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		if got := namesAgents(t, p); len(got) != c.want {
			t.Errorf("case %d: %d lines %v, want %d", i, len(got), got, c.want)
		}
	}
}
