package agenttest

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestNothingThatShipsImportsTheTestKit keeps the layout true: testkit/
// holds doubles and harnesses only, so no Go file outside it but a test
// imports a package under it; benchkit/ ships inside the bench only, so
// no Go file but a test, the bench's (app/bench*.go) or benchkit's own
// imports a package under it.
func TestNothingThatShipsImportsTheTestKit(t *testing.T) {
	root := filepath.Join("..", "..")
	checked := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != root && (name == "testkit" || name == "testdata" || strings.HasPrefix(name, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		checked++
		rel := filepath.ToSlash(strings.TrimPrefix(path, root+string(filepath.Separator)))
		benchOwn := strings.HasPrefix(rel, "app/bench") || strings.HasPrefix(rel, "benchkit/")
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			if strings.HasPrefix(p, "conductorbridge/testkit/") {
				t.Errorf("%s imports %s: what ships cannot depend on the test kit", path, p)
			}
			if strings.HasPrefix(p, "conductorbridge/benchkit/") && !benchOwn {
				t.Errorf("%s imports %s: only the bench may depend on the bench kit", path, p)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if checked < 100 {
		t.Fatalf("only %d files checked: the walk missed the tree", checked)
	}
}
