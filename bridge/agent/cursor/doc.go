// Package cursor reads the Cursor SDK's own store of its agents' runs
// (@cursor/sdk 1.0.32, which Conductor drives Cursor through) into the
// bridge's events.
//
// Where the SDK keeps it: for a workspace (the agent's cwd), a folder
// StoreDir names (~/.cursor/projects/<slug of the cwd>/sdk-agent-store/
// <md5 of the cwd>/) holding index.db, a SQLite database in WAL mode, and
// agents/<agent>/store.db, each agent's checkpoint blobs. Conductor gives
// the SDK a store of its own under its app-support folder instead
// (cursor-sdk-store/<16 hex of sha256 of the workspace>/); older Conductor
// releases (0.87) used the SDK's JSONL variant there (agents.ndjson,
// runs.ndjson, run_events.ndjson), which this package does not read.
//
// index.db's tables:
//   - agents: one row per SDK agent (agent_id 'agent-<uuid>', the
//     session), its workspace_ref (cwd), status IDLE|RUNNING|ERROR|…,
//     name, created_at, updated_at. Its metadata_json holds an encryption
//     key: it is never read (every query names its columns).
//   - runs: one per turn (turn_number from 1, UNIQUE per agent), its
//     status RUNNING|FINISHED|ERROR|CANCELLED|EXPIRED|CREATING, model
//     ("auto" unless chosen), usage_json {inputTokens, outputTokens,
//     cacheReadTokens, cacheWriteTokens, totalTokens}, result (the final
//     text), error_code, started_at and finished_at (not written for a
//     run that failed), all ISO 8601.
//   - run_events: each run's stream, seq from 1, payload_json a run
//     stream event: {type: "sdk_message", message} with the SDK's
//     messages (request, status, assistant, thinking, tool_call, usage,
//     user, system, task), or the stream's own "result" and "done".
//
// The person's prompt is not in the store's rows: the SDK keeps it only
// in the agent's checkpoint blob. So a turn here opens at its run's first
// event and no user event is emitted for it. The store keeps no cost
// either: a turn is priced from the project's price table when it knows
// the run's model, else its cost is unknown.
//
// Store reads an agent's rows after a Mark ((turn_number, seq): the
// parser's last row), read-only and never holding a lock the SDK waits on
// (bridge/sqliteread); Row.Line makes each one line for Parser, which
// implements agent.Parser. The run's columns travel with each of its
// events: the SDK writes a run's last status event just before it updates
// the run row, so a turn that ends on a row read in between takes its
// tokens from the run's usage events and its duration up to that event.
//
// Driver is the engine's: an SDK agent run in a plain folder is listed
// for discovery (Runs: each agent of every store under ~/.cursor/projects
// updated recently, in its workspace_ref) and read from its store after
// its parser's mark (FindRows), woken by the store's WAL as every row
// record is (the engine's rows.go). Conductor's Cursor tabs stream from
// Conductor's own record (bridge/agent/conductor), which reads the same
// SDK messages through ReadCall, Tokens and RunEnd: Conductor keeps its
// SDK store elsewhere, and nothing in either store is known to tie a tab
// to its SDK agent (sessions.claude_session_id is not the agent's id), so
// FindRows has no record of a tab. No message reaches an SDK agent.
// usage counts the stores' runs through History (Driver's driver.Whole),
// none of a Conductor tab's (driver.RunsOnly).
package cursor
