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
INSERT INTO agents VALUES('agent-a183127b-34da-4a81-a5ae-9288f1c18d98','/tmp/cursorsdk/ws','ERROR',NULL,NULL,'New Agent','{}','2026-12-07T03:58:07.497Z','2026-12-07T03:58:24.206Z');
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
INSERT INTO runs VALUES('run-d382675d-e180-4e08-9b0f-11012609bd49','a97b97b1-a430-47ee-8bc1-c95bdded8f27','agent-a183127b-34da-4a81-a5ae-9288f1c18d98',1,'ERROR','auto',NULL,NULL,NULL,'[unimplemented] fake server',NULL,NULL,NULL,'2026-12-07T03:58:07.497Z','2026-12-07T03:58:24.206Z','2026-12-07T03:58:07.502Z',NULL,NULL,NULL);
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
INSERT INTO run_events VALUES('run-d382675d-e180-4e08-9b0f-11012609bd49',1,'1','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-a183127b-34da-4a81-a5ae-9288f1c18d98","runId":"run-d382675d-e180-4e08-9b0f-11012609bd49","message":{"type":"request","agent_id":"agent-a183127b-34da-4a81-a5ae-9288f1c18d98","run_id":"run-d382675d-e180-4e08-9b0f-11012609bd49","request_id":"a97b97b1-a430-47ee-8bc1-c95bdded8f27"}}',NULL,NULL,'2026-12-07T03:58:07.503Z');
INSERT INTO run_events VALUES('run-d382675d-e180-4e08-9b0f-11012609bd49',2,'2','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-a183127b-34da-4a81-a5ae-9288f1c18d98","runId":"run-d382675d-e180-4e08-9b0f-11012609bd49","message":{"type":"status","agent_id":"agent-a183127b-34da-4a81-a5ae-9288f1c18d98","run_id":"run-d382675d-e180-4e08-9b0f-11012609bd49","status":"RUNNING"}}',NULL,NULL,'2026-12-07T03:58:07.503Z');
INSERT INTO run_events VALUES('run-d382675d-e180-4e08-9b0f-11012609bd49',3,'3','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-a183127b-34da-4a81-a5ae-9288f1c18d98","runId":"run-d382675d-e180-4e08-9b0f-11012609bd49","message":{"type":"status","agent_id":"agent-a183127b-34da-4a81-a5ae-9288f1c18d98","run_id":"run-d382675d-e180-4e08-9b0f-11012609bd49","status":"ERROR","message":"[unimplemented] fake server"}}',NULL,NULL,'2026-12-07T03:58:24.205Z');
CREATE UNIQUE INDEX run_events_idempotency_key_idx
      ON run_events (run_id, idempotency_key)
      WHERE idempotency_key IS NOT NULL;
COMMIT;
