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
INSERT INTO agents VALUES('agent-a210fefd-15d4-4cc1-a3ee-dad86154290a','/tmp/cursorsdk/ws','ERROR',NULL,NULL,'New Agent','{}','2026-12-07T04:00:50.310Z','2026-12-07T04:01:06.496Z');
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
INSERT INTO runs VALUES('run-4811f453-db3c-465f-afba-df31a6fcf475','2797fe2c-c297-412c-b57e-d544ca6bf604','agent-a210fefd-15d4-4cc1-a3ee-dad86154290a',1,'ERROR','auto',NULL,NULL,NULL,'[internal] parse binary: premature EOF',NULL,NULL,NULL,'2026-12-07T04:00:50.310Z','2026-12-07T04:01:06.496Z','2026-12-07T04:00:50.315Z',NULL,NULL,NULL);
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
INSERT INTO run_events VALUES('run-4811f453-db3c-465f-afba-df31a6fcf475',1,'1','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-a210fefd-15d4-4cc1-a3ee-dad86154290a","runId":"run-4811f453-db3c-465f-afba-df31a6fcf475","message":{"type":"request","agent_id":"agent-a210fefd-15d4-4cc1-a3ee-dad86154290a","run_id":"run-4811f453-db3c-465f-afba-df31a6fcf475","request_id":"2797fe2c-c297-412c-b57e-d544ca6bf604"}}',NULL,NULL,'2026-12-07T04:00:50.316Z');
INSERT INTO run_events VALUES('run-4811f453-db3c-465f-afba-df31a6fcf475',2,'2','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-a210fefd-15d4-4cc1-a3ee-dad86154290a","runId":"run-4811f453-db3c-465f-afba-df31a6fcf475","message":{"type":"status","agent_id":"agent-a210fefd-15d4-4cc1-a3ee-dad86154290a","run_id":"run-4811f453-db3c-465f-afba-df31a6fcf475","status":"RUNNING"}}',NULL,NULL,'2026-12-07T04:00:50.316Z');
INSERT INTO run_events VALUES('run-4811f453-db3c-465f-afba-df31a6fcf475',3,'3','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-a210fefd-15d4-4cc1-a3ee-dad86154290a","runId":"run-4811f453-db3c-465f-afba-df31a6fcf475","message":{"type":"assistant","agent_id":"agent-a210fefd-15d4-4cc1-a3ee-dad86154290a","run_id":"run-4811f453-db3c-465f-afba-df31a6fcf475","message":{"role":"assistant","content":[{"type":"text","text":"Hello from the fake server."}]}}}',NULL,NULL,'2026-12-07T04:00:50.778Z');
INSERT INTO run_events VALUES('run-4811f453-db3c-465f-afba-df31a6fcf475',4,'4','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-a210fefd-15d4-4cc1-a3ee-dad86154290a","runId":"run-4811f453-db3c-465f-afba-df31a6fcf475","message":{"type":"assistant","agent_id":"agent-a210fefd-15d4-4cc1-a3ee-dad86154290a","run_id":"run-4811f453-db3c-465f-afba-df31a6fcf475","message":{"role":"assistant","content":[{"type":"text","text":"Hello from the fake server."}]}}}',NULL,NULL,'2026-12-07T04:00:53.034Z');
INSERT INTO run_events VALUES('run-4811f453-db3c-465f-afba-df31a6fcf475',5,'5','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-a210fefd-15d4-4cc1-a3ee-dad86154290a","runId":"run-4811f453-db3c-465f-afba-df31a6fcf475","message":{"type":"assistant","agent_id":"agent-a210fefd-15d4-4cc1-a3ee-dad86154290a","run_id":"run-4811f453-db3c-465f-afba-df31a6fcf475","message":{"role":"assistant","content":[{"type":"text","text":"Hello from the fake server."}]}}}',NULL,NULL,'2026-12-07T04:00:57.712Z');
INSERT INTO run_events VALUES('run-4811f453-db3c-465f-afba-df31a6fcf475',6,'6','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-a210fefd-15d4-4cc1-a3ee-dad86154290a","runId":"run-4811f453-db3c-465f-afba-df31a6fcf475","message":{"type":"assistant","agent_id":"agent-a210fefd-15d4-4cc1-a3ee-dad86154290a","run_id":"run-4811f453-db3c-465f-afba-df31a6fcf475","message":{"role":"assistant","content":[{"type":"text","text":"Hello from the fake server."}]}}}',NULL,NULL,'2026-12-07T04:01:06.492Z');
INSERT INTO run_events VALUES('run-4811f453-db3c-465f-afba-df31a6fcf475',7,'7','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-a210fefd-15d4-4cc1-a3ee-dad86154290a","runId":"run-4811f453-db3c-465f-afba-df31a6fcf475","message":{"type":"status","agent_id":"agent-a210fefd-15d4-4cc1-a3ee-dad86154290a","run_id":"run-4811f453-db3c-465f-afba-df31a6fcf475","status":"ERROR","message":"[internal] parse binary: premature EOF"}}',NULL,NULL,'2026-12-07T04:01:06.495Z');
CREATE UNIQUE INDEX run_events_idempotency_key_idx
      ON run_events (run_id, idempotency_key)
      WHERE idempotency_key IS NOT NULL;
COMMIT;
