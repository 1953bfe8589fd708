// Package docs holds the reference documentation the README links to, and
// the tests that keep README and docs true to the repository: every link
// resolves inside it, and README's layout table names every package.
package docs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// root is the repository, seen from this package's folder.
const root = ".."

// pages are the Markdown files a reader follows links through.
func pages(t *testing.T) []string {
	t.Helper()
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs: %v", err)
	}
	return append([]string{filepath.Join(root, "README.md"), filepath.Join(root, "bridge", "api", "SIDEPANEL.md"),
		filepath.Join(root, "packaging", "README.md")}, docs...)
}

var (
	fence      = regexp.MustCompile("(?ms)^```.*?^```")
	inlineCode = regexp.MustCompile("`[^`\n]*`")
	link       = regexp.MustCompile(`\]\(([^)\s]+)\)`)
)

// links returns the targets of a Markdown file's links, code left out.
func links(md string) []string {
	md = fence.ReplaceAllString(md, "")
	md = inlineCode.ReplaceAllString(md, "")
	var out []string
	for _, m := range link.FindAllStringSubmatch(md, -1) {
		out = append(out, m[1])
	}
	return out
}

// slug is GitHub's anchor for a heading: lower case, punctuation dropped,
// spaces as hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// anchors are the anchors a Markdown file's headings make.
func anchors(md string) []string {
	md = fence.ReplaceAllString(md, "")
	var out []string
	for _, line := range strings.Split(md, "\n") {
		if h := strings.TrimLeft(line, "#"); h != line && strings.HasPrefix(h, " ") {
			out = append(out, slug(strings.ReplaceAll(h, "`", "")))
		}
	}
	return out
}

// TestLinksResolveInTheRepository: every relative link in README and the
// docs names a file of this repository (never one beside it, such as the
// steering repo's DESIGN.md, which a clone lacks), and every #anchor a
// heading of the page it points at.
func TestLinksResolveInTheRepository(t *testing.T) {
	abs, _ := filepath.Abs(root)
	for _, page := range pages(t) {
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links(string(b)) {
			if strings.Contains(l, "://") || strings.HasPrefix(l, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(l, "#")
			target := page
			if file != "" {
				target = filepath.Join(filepath.Dir(page), file)
			}
			full, _ := filepath.Abs(target)
			if full != abs && !strings.HasPrefix(full, abs+string(filepath.Separator)) {
				t.Errorf("%s: %s leaves the repository", page, l)
				continue
			}
			if _, err := os.Stat(target); err != nil {
				t.Errorf("%s: %s: %v", page, l, err)
				continue
			}
			if anchor == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			tb, _ := os.ReadFile(target)
			if !slices.Contains(anchors(string(tb)), anchor) {
				t.Errorf("%s: %s: no heading #%s in %s (has %v)", page, l, anchor, target, anchors(string(tb)))
			}
		}
	}
}

// TestLayoutNamesEveryPackage: README's layout table has a row for every
// folder that holds Go code (a row may name a folder with a trailing slash
// for everything under it).
func TestLayoutNamesEveryPackage(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, layout, ok := strings.Cut(string(b), "\n### Layout\n")
	if !ok {
		t.Fatal("README has no ### Layout section")
	}
	if end := strings.Index(layout, "\n#"); end >= 0 {
		layout = layout[:end]
	}
	named := map[string]bool{}
	for _, line := range strings.Split(layout, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 3 {
			continue
		}
		for _, m := range inlineCodeAll(cells[1]) {
			named[m] = true
		}
	}
	var missing []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() && path != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(name, ".go") {
			return nil
		}
		dir, _ := filepath.Rel(root, filepath.Dir(path))
		dir = filepath.ToSlash(dir)
		if !coveredBy(dir, named) && !slices.Contains(missing, dir) {
			missing = append(missing, dir)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(missing) > 0 {
		t.Errorf("README's layout table does not name: %v", missing)
	}
}

func inlineCodeAll(s string) []string {
	var out []string
	for _, m := range inlineCode.FindAllString(s, -1) {
		out = append(out, strings.Trim(m, "`"))
	}
	return out
}

// coveredBy reports whether dir is named, itself or by a folder above it
// written with a trailing slash.
func coveredBy(dir string, named map[string]bool) bool {
	if named[dir] || named[dir+"/"] {
		return true
	}
	for d := dir; d != "." && d != "/" && d != ""; d = filepath.ToSlash(filepath.Dir(d)) {
		if named[d+"/"] {
			return true
		}
	}
	return false
}
