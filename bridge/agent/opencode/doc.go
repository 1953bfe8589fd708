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
// waits until the session is idle, because 1.18.33 offers the bridge no
// route into a running turn:
//   - `run --session` while another process's turn runs starts a second
//     turn at once, both processes writing the session interleaved: no
//     lock between processes (TestRunSessionWhileBusyRunsBeside).
//   - `opencode run` serves nothing while its turn runs (no listening
//     socket without --port).
//   - `opencode acp` (a Conductor tab) serves OpenCode's HTTP API on
//     127.0.0.1 without a credential, on a port no argument, file or
//     environment variable names (4096 here): only the
//     process's sockets tell it, which the bridge could list on Linux
//     (/proc) but not on macOS, where Conductor runs. And a message posted
//     there while a turn runs (POST /session/<id>/prompt_async) is not run
//     after that turn: OpenCode folds it into the running turn at its next
//     step (the model's next call carried the command's output and the
//     message together), and the tab's prompt ended with the answer to the
//     message, never its own; in Conductor that answer would read as the
//     answer to the person's prompt. (Both tried with the real binary.)
package opencode
