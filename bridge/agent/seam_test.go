package agent_test

import (
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// agentWord is the check, grep -iE 'claude|codex|cursor|opencode',
// applied to the code of a file and not to its comments: a name or a
// string that holds one of these words names an agent.
var agentWord = regexp.MustCompile(`(?i)claude|codex|cursor|opencode`)

// naming is a name or a literal in a file's code that holds an agent's
// word, and its line.
type naming struct {
	line  int
	token string
}

// namesAgents returns each name or literal in a Go file's code (comments
// aside) that holds an agent's word.
func namesAgents(t *testing.T, path string) []naming {
	t.Helper()
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	file := fset.AddFile(path, -1, len(src))
	var s scanner.Scanner
	s.Init(file, src, func(pos token.Position, msg string) { t.Errorf("%s: %s", pos, msg) }, 0) // comments are skipped
	var hits []naming
	for {
		pos, tok, lit := s.Scan()
		if tok == token.EOF {
			return hits
		}
		if (tok == token.IDENT || tok == token.STRING || tok == token.CHAR) && agentWord.MatchString(lit) {
			hits = append(hits, naming{fset.Position(pos).Line, lit})
		}
	}
}

// TestCoreNamesNoAgent: the engine, discovery, delivery, usage (and its
// driver seam) and the tray name no agent in their code (a comment may):
// no name or string in their non-test Go files holds claude, codex,
// cursor or opencode, whatever the case.
func TestCoreNamesNoAgent(t *testing.T) {
	root := filepath.Join("..", "..")
	files := 0
	for _, dir := range coreDirs { // each with the packages under it (bridge/usage/driver)
		err := filepath.WalkDir(filepath.Join(root, dir), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
				return nil
			}
			files++
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			for _, n := range namesAgents(t, p) {
				t.Errorf("%s:%d: names an agent: %s", filepath.ToSlash(rel), n.line, n.token)
			}
			return nil
		})
		if err != nil {
			t.Fatalf("walk %s: %v", dir, err)
		}
	}
	if files < 2*len(coreDirs) { // the walk saw the packages, not an empty tree
		t.Fatalf("only %d Go files under %v", files, coreDirs)
	}
}

// TestNamesAgentsSeesCodeNotComments: the check is not blind, and reads
// no comment.
func TestNamesAgentsSeesCodeNotComments(t *testing.T) {
	cases := []struct {
		name string
		src  string
		want []string // the tokens flagged, in order
	}{
		{"comments only", "package x\n// Claude, Codex, Cursor and OpenCode\nvar a = 1\n", nil},
		{"a string", "package x\nvar a = \"claude\"\n", []string{`"claude"`}},
		{"a raw string", "package x\nvar a = `codex exec`\n", []string{"`codex exec`"}},
		{"a selector", "package x\nfunc f() { _ = codex.NewParser }\n", []string{"codex"}},
		{"a name, whatever its case", "package x\nvar tailCursor, c cursor\n", []string{"tailCursor", "cursor"}},
		{"a constant", "package x\nvar a = \"cursor\"\nconst AgentCursor = 1\n", []string{`"cursor"`, "AgentCursor"}},
		{"an import", "package x\nimport _ \"conductorbridge/bridge/agent/opencode\"\n", []string{`"conductorbridge/bridge/agent/opencode"`}},
		{"a column", "package x\nconst c = \"claude_session_id\"\n", []string{`"claude_session_id"`}},
		{"comments beside code", "package x\n/* claude */ var b = 2 // codex\n", nil},
	}
	dir := t.TempDir()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, "x.go")
			if err := os.WriteFile(p, []byte(c.src), 0o644); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range namesAgents(t, p) {
				got = append(got, n.token)
			}
			if strings.Join(got, " ") != strings.Join(c.want, " ") {
				t.Errorf("flagged %q, want %q", got, c.want)
			}
		})
	}
}
