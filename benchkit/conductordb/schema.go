// Package conductordb is the Conductor database `conductor-bridge bench`
// writes while it measures, so it ships with the bench, and the tests'
// Conductor: the real schema, in the two shapes public readers of real
// installs have found (kept in testdata/, copied from the project's notes
// on Conductor, so the repository needs nothing beside it):
//   - schema.sql: Conductor 0.72–0.84, workspaces keyed by id;
//   - schema-newer.sql: 0.87–0.90 (one source), workspaces keyed by
//     local_id with id an ordinary column readers still join on,
//     sessions.remote_archived_at (archived in the cloud), and the
//     outbox's delivery state.
package conductordb

import (
	_ "embed"
	"testing"
)

var (
	//go:embed testdata/schema.sql
	schema string
	//go:embed testdata/schema-newer.sql
	schemaNewer string
)

// Schema returns schema.sql, the shape of Conductor 0.72–0.84.
func Schema(t testing.TB) string {
	t.Helper()
	return schema
}

// SchemaNewer returns schema-newer.sql, the shape of Conductor 0.87–0.90.
func SchemaNewer(t testing.TB) string {
	t.Helper()
	return schemaNewer
}

// Shape is one of the schemas, named for the Conductor builds that have it.
type Shape struct {
	Name   string
	Schema string
	// LocalID: workspaces has a local_id primary key beside id.
	LocalID bool
}

// Shapes returns both shapes, oldest first, for table-driven tests.
func Shapes(t testing.TB) []Shape {
	t.Helper()
	return AllShapes()
}

// AllShapes is Shapes for code with no test at hand (the bench).
func AllShapes() []Shape {
	return []Shape{
		{Name: "0.72-0.84", Schema: schema},
		{Name: "0.87-0.90", Schema: schemaNewer, LocalID: true},
	}
}
