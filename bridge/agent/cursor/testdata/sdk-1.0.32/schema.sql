CREATE TABLE agents (
       agent_id TEXT PRIMARY KEY,
       workspace_ref TEXT NOT NULL,
       status TEXT NOT NULL,
       active_run_id TEXT,
       latest_checkpoint_ref_json TEXT,
       name TEXT,
       metadata_json TEXT NOT NULL DEFAULT '{}',
       created_at TEXT NOT NULL,
       updated_at TEXT NOT NULL
     );
CREATE TABLE runs (
       run_id TEXT PRIMARY KEY,
       request_id TEXT,
       agent_id TEXT NOT NULL REFERENCES agents(agent_id),
       turn_number INTEGER NOT NULL,
       status TEXT NOT NULL,
       model TEXT,
       model_params_json TEXT,
       start_checkpoint_ref_json TEXT,
       latest_checkpoint_ref_json TEXT,
       error_code TEXT,
       usage_ref TEXT,
       usage_json TEXT,
       result TEXT,
       created_at TEXT NOT NULL,
       updated_at TEXT NOT NULL,
       started_at TEXT,
       finished_at TEXT,
       cancelled_at TEXT,
       expired_at TEXT,
       UNIQUE(agent_id, turn_number)
     );
CREATE TABLE run_events (
       run_id TEXT NOT NULL,
       seq INTEGER NOT NULL,
       offset TEXT NOT NULL,
       event_type TEXT NOT NULL,
       payload_json TEXT,
       payload_ref TEXT,
       idempotency_key TEXT,
       created_at TEXT NOT NULL,
       PRIMARY KEY (run_id, seq),
       UNIQUE(run_id, offset)
     );
CREATE UNIQUE INDEX run_events_idempotency_key_idx
      ON run_events (run_id, idempotency_key)
      WHERE idempotency_key IS NOT NULL;
