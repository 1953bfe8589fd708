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
// Messages (both routes proven with the real binary): a session no turn
// runs in takes one through `opencode run --session <id>` with the message
// on stdin (RunSession); a busy one through the server of the process
// running it (every `opencode acp` listens on loopback, port 4096 or any
// free one, with no credential): Servers.Find picks the process whose
// /session/status says the session is busy, after the kernel says the
// listening socket is this user's, and PromptAsync posts to
// /session/<id>/prompt_async on that same connection; OpenCode records the
// message at once and runs it when the turn ends. Anything else is a
// *DeliverError (409) with its reason: a busy `opencode run` serves
// nothing; another user's server is never asked; listing a process's
// listening sockets is Linux-only for now (peer.Listening), so on macOS a
// busy session is refused until it is idle.
package opencode
