package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// moduleRoot finds the directory holding this module's go.mod, upwards
// from the working directory: `go run ./packaging` runs from the root, and
// `go test` from packaging/.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("find module root: %w", err)
	}
	for {
		b, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.HasPrefix(bytes.TrimSpace(b), []byte("module conductorbridge")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("find module root: no go.mod of module conductorbridge above the working directory (use -root)")
		}
		dir = parent
	}
}

// versionInfo is what the bundle and the cask are stamped with.
type versionInfo struct {
	Version string // CFBundleShortVersionString, the cask's version
	Build   string // CFBundleVersion
	Year    int    // for the copyright line
}

var (
	// The version ends up in a file name and a URL: keep it to what a
	// tag can sensibly hold.
	versionRE = regexp.MustCompile(`^[0-9A-Za-z][0-9A-Za-z.+-]*$`)
	// macOS compares CFBundleVersion as up to three dot-separated integers.
	buildRE = regexp.MustCompile(`^[0-9]+(\.[0-9]+){0,2}$`)
)

// resolveVersion fills what the flags left empty from git in root: the
// version from a tag on HEAD (v1.2.3 → 1.2.3), else 0.0.0-dev; the build
// from the number of commits, which only grows along a branch.
func resolveVersion(ctx context.Context, root, version, build string) (versionInfo, error) {
	v := versionInfo{Version: version, Build: build, Year: time.Now().Year()}
	if v.Version == "" {
		v.Version = devVersion
		if tag, err := git(ctx, root, "describe", "--tags", "--exact-match"); err == nil {
			v.Version = strings.TrimPrefix(tag, "v")
		}
	}
	if v.Build == "" {
		v.Build = "0" // not a git checkout: still a valid CFBundleVersion
		if n, err := git(ctx, root, "rev-list", "--count", "HEAD"); err == nil {
			v.Build = n
		}
	}
	// The commit's year, not today's, so rebuilding an old tag gives the
	// same Info.plist.
	if s, err := git(ctx, root, "log", "-1", "--format=%cd", "--date=format:%Y"); err == nil {
		if y, err := strconv.Atoi(s); err == nil {
			v.Year = y
		}
	}
	if !versionRE.MatchString(v.Version) {
		return v, fmt.Errorf("version %q: want letters, digits, '.', '+' or '-' (e.g. 1.2.3)", v.Version)
	}
	if !buildRE.MatchString(v.Build) {
		return v, fmt.Errorf("build %q: macOS wants up to three dot-separated integers (e.g. 412)", v.Build)
	}
	return v, nil
}

// git runs a git command in dir and returns its trimmed output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}
