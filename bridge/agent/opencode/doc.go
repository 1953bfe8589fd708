// Package opencode reads OpenCode's sessions (the opencode-ai CLI, which
// Conductor runs as `opencode acp` for its "acp" tabs) into the bridge's
// events, finds a session for a folder or a Conductor tab, and gets a
// message into one.
//
// Where OpenCode keeps its record, by release:
//   - 1.x (1.18.33 is the release this package is tested against): one
//     SQLite database for every project, $XDG_DATA_HOME/opencode/opencode.db
//     (~/.local/share/opencode/opencode.db, on macOS too), in WAL mode.
//     Its event table is an append-only log per session: aggregate_id is
//     the session id (ses_…), seq counts from 0 without gaps, and each row
//     is one bus event with its JSON (type session.created.1,
//     session.updated.1, message.updated.1, message.part.updated.1, …);
//     event_sequence holds each session's last seq. The session, message
//     and part tables are the same record folded to its latest state;
//     session_message stays empty. Streaming deltas are not written: a
//     text part is written empty when it starts and whole when it ends.
//   - Older releases (0.x) kept JSON files under $XDG_DATA_HOME/opencode/
//     storage/ instead: session/<project>/<session>.json,
//     message/<session>/<message>.json and part/<message>/<part>.json, each
//     rewritten in place. This package does not read them.
//
// Store reads the event table by seq, read-only and never holding a lock
// OpenCode waits on; Row.Line makes each row one line for Parser, which
// implements agent.Parser, so the engine tails a session as it tails a
// file, with the parser's Next as its cursor. Follower hands each followed
// session's new rows over as OpenCode commits them. Sessions and Tab find
// a folder's sessions and a Conductor "acp" tab's: `opencode acp` answers
// ACP's session/new with OpenCode's own session id, which Conductor keeps
// in sessions.claude_session_id.
//
// Messages: the bridge delivers through Pusher (inject.Pusher), which
// runs `opencode run --session <id>` with the message on stdin
// (RunSession) into a session no turn runs in. A busy session's message
// waits until the session is idle: 1.18.33 has no lock between processes,
// and a `run --session` while another process's turn runs starts a second
// turn at once, both processes writing the session interleaved
// (TestRunSessionWhileBusyRunsBeside, with the real binary). Servers.Find
// and PromptAsync reach the server of a busy `opencode acp` (every one
// listens on loopback with no credential), after the kernel says the
// listening socket is this user's; the bridge does not use them yet, and
// listing a process's listening sockets is Linux-only (peer.Listening).
package opencode
