// Package units holds the login item's templates, for
// github.com/kardianos/service's template engine (its {{Key | func}}
// syntax): the macOS LaunchAgent and the Linux systemd user unit.
//
// They replace kardianos' defaults, which relaunch the app after Quit on
// macOS (KeepAlive true) and never start on Linux (a system unit wanted by
// multi-user.target). Ours:
//   - LaunchAgent: RunAtLoad starts it at login; KeepAlive restarts it
//     after a crash but not after Quit (a successful exit), at most every
//     30 s; no StandardOutPath, since the bridge logs to its own rotating
//     file.
//   - systemd: a user unit started with the person's session
//     (default.target), restarted on failure only and at most 5 times in
//     5 minutes; standard output dropped
//     (the bridge has its own log), errors kept in the journal so a crash
//     at start leaves a trace.
package units

import _ "embed"

// Launchd is the LaunchAgent plist template.
//
//go:embed launchd.plist.tmpl
var Launchd string

// Systemd is the systemd user unit template.
//
//go:embed systemd.service.tmpl
var Systemd string
