// Package conductortest gives tests the real Conductor database schema:
// ../shared/conductor/schema.sql beside the project, as public code reading
// real installs found it (read-only to the project, so it is looked up,
// not copied).
package conductortest

import (
	"os"
	"path/filepath"
	"testing"
)

// Schema returns schema.sql, found in shared/conductor of the nearest
// folder above the test's working directory that has one. A test without
// it skips, and fails under CI=true.
func Schema(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err == nil {
		for {
			if b, err := os.ReadFile(filepath.Join(dir, "shared", "conductor", "schema.sql")); err == nil {
				return string(b)
			}
			up := filepath.Dir(dir)
			if up == dir {
				break
			}
			dir = up
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("shared/conductor/schema.sql not found above the project")
	}
	t.Skip("shared/conductor/schema.sql not found above the project")
	return ""
}
