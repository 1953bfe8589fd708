package main

import (
	"context"
	"os/exec"
	"testing"
)

// TestResolveVersion runs against a scratch git repository: dev version
// and commit count without a tag, the tag without its v on a tagged HEAD.
func TestResolveVersion(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git") // the bundle tests already need it through go build's VCS stamping
	}
	dir := t.TempDir()
	g := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	g("init", "-q")
	g("commit", "-q", "--allow-empty", "-m", "one")
	g("commit", "-q", "--allow-empty", "-m", "two")
	ctx := context.Background()

	v, err := resolveVersion(ctx, dir, "", "")
	if err != nil || v.Version != devVersion || v.Build != "2" {
		t.Errorf("untagged: %+v, %v", v, err)
	}
	g("tag", "v1.4.0")
	if v, err = resolveVersion(ctx, dir, "", ""); err != nil || v.Version != "1.4.0" || v.Build != "2" {
		t.Errorf("tagged: %+v, %v", v, err)
	}
	if v, err = resolveVersion(ctx, dir, "9.9.9", "77.1"); err != nil || v.Version != "9.9.9" || v.Build != "77.1" {
		t.Errorf("flags: %+v, %v", v, err)
	}
	// Not a git checkout: still a usable dev version.
	if v, err = resolveVersion(ctx, t.TempDir(), "", ""); err != nil || v.Version != devVersion || v.Build != "0" {
		t.Errorf("no git: %+v, %v", v, err)
	}
}
