package agent_test

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// coreDirs are the packages that know agents only through this seam.
var coreDirs = []string{"bridge/engine", "bridge/discover", "bridge/inject", "bridge/usage", "tray"}

// goImports returns the module's own packages that the non-test Go files
// of dir import (every build tag's), relative to the module.
func goImports(t *testing.T, root, module, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(root, dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, spec := range file.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			if rel, ok := strings.CutPrefix(p, module+"/"); ok && !slices.Contains(out, rel) {
				out = append(out, rel)
			}
		}
	}
	return out
}

// agentPackages are the drivers (bridge/agent/<name>) and the packages
// they build on that build on the seam too (each agent's parser:
// bridge/transcript, bridge/codex), the core aside.
func agentPackages(t *testing.T, root, module string, core []string) []string {
	t.Helper()
	entries, err := os.ReadDir(filepath.Join(root, "bridge", "agent"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		driver := "bridge/agent/" + e.Name()
		if !e.IsDir() || len(goImports(t, root, module, driver)) == 0 {
			continue
		}
		out = append(out, driver)
		for _, p := range goImports(t, root, module, driver) {
			if p == "bridge/agent" || slices.Contains(core, p) || slices.Contains(out, p) {
				continue
			}
			if slices.Contains(goImports(t, root, module, p), "bridge/agent") {
				out = append(out, p)
			}
		}
	}
	return out
}

// agentsReached returns, for each core package, the agents' packages it
// imports, itself or through packages outside the core (each core
// package answers for its own imports), sorted.
func agentsReached(t *testing.T, root, module string, core []string) map[string][]string {
	t.Helper()
	agents := agentPackages(t, root, module, core)
	out := make(map[string][]string)
	for _, c := range core {
		seen := map[string]bool{c: true}
		next := goImports(t, root, module, c)
		for len(next) > 0 {
			p := next[0]
			next = next[1:]
			if seen[p] || slices.Contains(core, p) {
				continue
			}
			seen[p] = true
			if slices.Contains(agents, p) {
				out[c] = append(out[c], p)
				continue
			}
			next = append(next, goImports(t, root, module, p)...)
		}
		slices.Sort(out[c])
	}
	return out
}

// TestCoreImportsNoAgent: the core builds on its interfaces alone. No
// core package, nor a package it imports, imports an agent's driver or
// parser (Claude Code's subagent files, for one, are the driver's to
// read: Nested; its transcripts' cwd too: PerDirectory's RecordCwd).
func TestCoreImportsNoAgent(t *testing.T) {
	root := filepath.Join("..", "..")
	for c, reached := range agentsReached(t, root, "conductorbridge", coreDirs) {
		for _, p := range reached {
			t.Errorf("%s imports %s, an agent's package: it must go through bridge/agent's interfaces", c, p)
		}
	}
}

// TestAgentsReachedSeesThroughOtherPackages: the check is not blind, to a
// parser imported directly or through a package between.
func TestAgentsReachedSeesThroughOtherPackages(t *testing.T) {
	pkg := func(name string, imports ...string) string {
		src := "package " + filepath.Base(name) + "\n"
		for _, p := range imports {
			src += "import _ \"m/" + p + "\"\n"
		}
		return src
	}
	tests := []struct {
		name   string
		engine string // what bridge/engine imports
		want   []string
	}{
		{"the seam alone", pkg("engine", "bridge/agent", "bridge/lines"), nil},
		{"a parser", pkg("engine", "bridge/agent", "bridge/parse"), []string{"bridge/parse"}},
		{"a parser through another package", pkg("engine", "bridge/between"), []string{"bridge/parse"}},
		{"a driver", pkg("engine", "bridge/agent/x"), []string{"bridge/agent/x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			for dir, src := range map[string]string{
				"bridge/agent":   pkg("agent"),
				"bridge/agent/x": pkg("x", "bridge/agent", "bridge/parse", "bridge/lines"),
				"bridge/parse":   pkg("parse", "bridge/agent", "bridge/lines"),
				"bridge/lines":   pkg("lines"),
				"bridge/between": pkg("between", "bridge/parse"),
				"bridge/engine":  tt.engine,
			} {
				if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(root, dir, "a.go"), []byte(src), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got := agentsReached(t, root, "m", []string{"bridge/engine"})["bridge/engine"]
			if !slices.Equal(got, tt.want) {
				t.Errorf("engine reaches %v, want %v", got, tt.want)
			}
		})
	}
}
