package agent

import (
	"flag"

	"conductorbridge/bridge/paths"
)

// Configured is an agent whose settings (where its records are) come from
// the bridge's command line and the user's folders, as a database/sql
// driver's come from its data source name. The bridge makes its agents
// before it parses its flags: each declares its own on every command's
// flag set (Flags), and once they are parsed fills what they left empty
// (Resolve), before it is first used. An agent with no settings of its
// own, or whose folders are the bridge's too (paths.Roots: Claude Code's
// projects, Codex's home, Conductor's database, which other commands
// read as well), declares no flag and takes them from the roots.
type Configured interface {
	Agent
	// Flags declares the agent's own flags on fs, bound to its settings.
	Flags(fs *flag.FlagSet)
	// Resolve fills each setting its flags left empty: from roots, the
	// bridge's folders with every flag applied (paths.Default), and from
	// the environment by getenv.
	Resolve(roots paths.Roots, getenv func(string) string)
}
