// Package units holds the login item's templates, for
// github.com/kardianos/service's template engine (its {{Key | func}}
// syntax): the macOS LaunchAgent and the Linux systemd user units.
//
// They replace kardianos' defaults, which relaunch the app after Quit on
// macOS (KeepAlive true) and never start on Linux (a system unit wanted by
// multi-user.target). Ours:
//   - LaunchAgent: RunAtLoad starts it at login; KeepAlive restarts it
//     after a crash but not after Quit (a successful exit), at most every
//     30 s; no StandardOutPath, since the bridge logs to its own rotating
//     file. Its Sockets entry ("Listeners") has launchd bind
//     127.0.0.1:34568 at login and keep it: between runs (after Quit, a
//     crash, an update) the port is launchd's, not free for another
//     account to listen on, and the first connection starts the bridge,
//     which takes the socket (bridge/activation).
//   - systemd: a user unit started with the person's session
//     (default.target), restarted on failure only and at most 5 times in
//     5 minutes; standard output dropped
//     (the bridge has its own log), errors kept in the journal so a crash
//     at start leaves a trace. Its .socket unit (SystemdSocket, wanted by
//     sockets.target) holds the port the same way, and systemd passes it
//     to the service whenever it starts.
//
// The port is the bridge's default (app's DefaultAddr, which a test
// compares): the login item runs the bridge on it.
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

// SystemdSocket is the systemd user socket unit, written beside the
// service as <name>.socket (no template keys).
//
//go:embed systemd.socket.tmpl
var SystemdSocket string
