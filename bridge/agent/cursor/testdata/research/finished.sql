PRAGMA foreign_keys=OFF;
BEGIN TRANSACTION;
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
INSERT INTO agents VALUES('agent-c01c6777-9ecf-46a5-8bca-34b2e7bb26f7','/tmp/cursorsdk/ws','IDLE',NULL,NULL,'New Agent','{}','2026-12-07T04:02:13.165Z','2026-12-07T04:02:13.993Z');
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
INSERT INTO runs VALUES('run-7e14d86b-933a-42f1-b2e5-e9fa49b6a179','fe49e85d-ffd3-4f32-b4dd-5bf239367ba1','agent-c01c6777-9ecf-46a5-8bca-34b2e7bb26f7',1,'FINISHED','auto',NULL,NULL,NULL,NULL,NULL,'{"inputTokens":11,"outputTokens":7,"cacheReadTokens":0,"cacheWriteTokens":0,"totalTokens":18}','Hello from the fake server.','2026-12-07T04:02:13.165Z','2026-12-07T04:02:13.993Z','2026-12-07T04:02:13.169Z','2026-12-07T04:02:13.993Z',NULL,NULL);
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
INSERT INTO run_events VALUES('run-7e14d86b-933a-42f1-b2e5-e9fa49b6a179',1,'1','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-c01c6777-9ecf-46a5-8bca-34b2e7bb26f7","runId":"run-7e14d86b-933a-42f1-b2e5-e9fa49b6a179","message":{"type":"request","agent_id":"agent-c01c6777-9ecf-46a5-8bca-34b2e7bb26f7","run_id":"run-7e14d86b-933a-42f1-b2e5-e9fa49b6a179","request_id":"fe49e85d-ffd3-4f32-b4dd-5bf239367ba1"}}',NULL,NULL,'2026-12-07T04:02:13.170Z');
INSERT INTO run_events VALUES('run-7e14d86b-933a-42f1-b2e5-e9fa49b6a179',2,'2','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-c01c6777-9ecf-46a5-8bca-34b2e7bb26f7","runId":"run-7e14d86b-933a-42f1-b2e5-e9fa49b6a179","message":{"type":"status","agent_id":"agent-c01c6777-9ecf-46a5-8bca-34b2e7bb26f7","run_id":"run-7e14d86b-933a-42f1-b2e5-e9fa49b6a179","status":"RUNNING"}}',NULL,NULL,'2026-12-07T04:02:13.170Z');
INSERT INTO run_events VALUES('run-7e14d86b-933a-42f1-b2e5-e9fa49b6a179',3,'3','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-c01c6777-9ecf-46a5-8bca-34b2e7bb26f7","runId":"run-7e14d86b-933a-42f1-b2e5-e9fa49b6a179","message":{"type":"assistant","agent_id":"agent-c01c6777-9ecf-46a5-8bca-34b2e7bb26f7","run_id":"run-7e14d86b-933a-42f1-b2e5-e9fa49b6a179","message":{"role":"assistant","content":[{"type":"text","text":"Hello from the fake server."}]}}}',NULL,NULL,'2026-12-07T04:02:13.589Z');
INSERT INTO run_events VALUES('run-7e14d86b-933a-42f1-b2e5-e9fa49b6a179',4,'4','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-c01c6777-9ecf-46a5-8bca-34b2e7bb26f7","runId":"run-7e14d86b-933a-42f1-b2e5-e9fa49b6a179","message":{"type":"usage","agent_id":"agent-c01c6777-9ecf-46a5-8bca-34b2e7bb26f7","run_id":"run-7e14d86b-933a-42f1-b2e5-e9fa49b6a179","usage":{"inputTokens":11,"outputTokens":7,"cacheReadTokens":0,"cacheWriteTokens":0,"totalTokens":18}}}',NULL,NULL,'2026-12-07T04:02:13.788Z');
INSERT INTO run_events VALUES('run-7e14d86b-933a-42f1-b2e5-e9fa49b6a179',5,'5','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-c01c6777-9ecf-46a5-8bca-34b2e7bb26f7","runId":"run-7e14d86b-933a-42f1-b2e5-e9fa49b6a179","message":{"type":"status","agent_id":"agent-c01c6777-9ecf-46a5-8bca-34b2e7bb26f7","run_id":"run-7e14d86b-933a-42f1-b2e5-e9fa49b6a179","status":"FINISHED"}}',NULL,NULL,'2026-12-07T04:02:13.992Z');
CREATE UNIQUE INDEX run_events_idempotency_key_idx
      ON run_events (run_id, idempotency_key)
      WHERE idempotency_key IS NOT NULL;
COMMIT;
