package main

import (
	"go/ast"
	"go/parser"
	gotoken "go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// driverImports returns, for each non-test Go file of dir but the bench's
// (bench*.go measure each agent's own parts), the agent drivers
// (module/bridge/agent/<name>) it imports, and the file that declares
// listFunc.
func driverImports(t *testing.T, dir, module, listFunc string) (map[string][]string, string) {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	out := make(map[string][]string)
	var list string
	for _, f := range files {
		name := filepath.Base(f)
		if strings.HasSuffix(name, "_test.go") || strings.HasPrefix(name, "bench") {
			continue
		}
		file, err := parser.ParseFile(gotoken.NewFileSet(), f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range file.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Recv == nil && fn.Name.Name == listFunc {
				list = name
			}
		}
		for _, spec := range file.Imports {
			p, _ := strconv.Unquote(spec.Path.Value)
			if driver, ok := strings.CutPrefix(p, module+"/bridge/agent/"); ok && !strings.Contains(driver, "/") {
				out[name] = append(out[name], driver)
			}
		}
	}
	return out, list
}

// TestOnlyTheListNamesADriver: the agents are listed in one place
// (agentList), and every other part of the bridge — flags, deliveries,
// hooks, doctor, the menu — follows from that list through the seam's
// interfaces: no other file of the app imports an agent's driver
// (bridge/agent/<name>), and the list names every driver there is.
func TestOnlyTheListNamesADriver(t *testing.T) {
	imports, list := driverImports(t, ".", "conductorbridge", "agentList")
	if list == "" {
		t.Fatal("no file declares agentList")
	}
	for file, drivers := range imports {
		if file != list {
			t.Errorf("%s imports %v: an agent's driver is named in %s alone, and found through bridge/agent's interfaces elsewhere", file, drivers, list)
		}
	}
	entries, err := os.ReadDir(filepath.Join("..", "bridge", "agent"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		// A folder with no Go code yet (a recorded store in testdata) is no driver.
		code, _ := filepath.Glob(filepath.Join("..", "bridge", "agent", e.Name(), "*.go"))
		if e.IsDir() && len(code) > 0 && !slices.Contains(imports[list], e.Name()) {
			t.Errorf("bridge/agent/%s is not in %s's list", e.Name(), list)
		}
	}
}
