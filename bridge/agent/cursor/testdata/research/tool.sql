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
INSERT INTO agents VALUES('agent-672041a6-889e-4d0c-b9bf-af813a1687d4','/tmp/cursorsdk/ws','IDLE',NULL,'{"blobId":"251184f5e0ed34e4ffc31cabaf4b5c0739ac4c671cd69ed43da779e28876a82e","storeKind":"local-agent-store"}','New Agent','{}','2026-12-07T04:02:23.906Z','2026-12-07T04:02:24.751Z');
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
INSERT INTO runs VALUES('run-13d53ab3-3bba-4356-a617-91babf2d7ca1','5085355f-0965-4b51-9ffa-eedc039e3f25','agent-672041a6-889e-4d0c-b9bf-af813a1687d4',1,'FINISHED','auto',NULL,NULL,'{"blobId":"251184f5e0ed34e4ffc31cabaf4b5c0739ac4c671cd69ed43da779e28876a82e","storeKind":"local-agent-store"}',NULL,NULL,'{"inputTokens":11,"outputTokens":7,"cacheReadTokens":0,"cacheWriteTokens":0,"totalTokens":18}','Hello from the fake server.','2026-12-07T04:02:23.906Z','2026-12-07T04:02:24.751Z','2026-12-07T04:02:23.911Z','2026-12-07T04:02:24.751Z',NULL,NULL);
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
INSERT INTO run_events VALUES('run-13d53ab3-3bba-4356-a617-91babf2d7ca1',1,'1','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-672041a6-889e-4d0c-b9bf-af813a1687d4","runId":"run-13d53ab3-3bba-4356-a617-91babf2d7ca1","message":{"type":"request","agent_id":"agent-672041a6-889e-4d0c-b9bf-af813a1687d4","run_id":"run-13d53ab3-3bba-4356-a617-91babf2d7ca1","request_id":"5085355f-0965-4b51-9ffa-eedc039e3f25"}}',NULL,NULL,'2026-12-07T04:02:23.912Z');
INSERT INTO run_events VALUES('run-13d53ab3-3bba-4356-a617-91babf2d7ca1',2,'2','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-672041a6-889e-4d0c-b9bf-af813a1687d4","runId":"run-13d53ab3-3bba-4356-a617-91babf2d7ca1","message":{"type":"status","agent_id":"agent-672041a6-889e-4d0c-b9bf-af813a1687d4","run_id":"run-13d53ab3-3bba-4356-a617-91babf2d7ca1","status":"RUNNING"}}',NULL,NULL,'2026-12-07T04:02:23.912Z');
INSERT INTO run_events VALUES('run-13d53ab3-3bba-4356-a617-91babf2d7ca1',3,'3','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-672041a6-889e-4d0c-b9bf-af813a1687d4","runId":"run-13d53ab3-3bba-4356-a617-91babf2d7ca1","message":{"type":"assistant","agent_id":"agent-672041a6-889e-4d0c-b9bf-af813a1687d4","run_id":"run-13d53ab3-3bba-4356-a617-91babf2d7ca1","message":{"role":"assistant","content":[{"type":"text","text":"Hello from the fake server."}]}}}',NULL,NULL,'2026-12-07T04:02:24.350Z');
INSERT INTO run_events VALUES('run-13d53ab3-3bba-4356-a617-91babf2d7ca1',4,'4','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-672041a6-889e-4d0c-b9bf-af813a1687d4","runId":"run-13d53ab3-3bba-4356-a617-91babf2d7ca1","message":{"type":"tool_call","agent_id":"agent-672041a6-889e-4d0c-b9bf-af813a1687d4","run_id":"run-13d53ab3-3bba-4356-a617-91babf2d7ca1","call_id":"call_1","name":"read","status":"running","args":{"path":"/tmp/cursorsdk/ws/hello.txt"}}}',NULL,NULL,'2026-12-07T04:02:24.353Z');
INSERT INTO run_events VALUES('run-13d53ab3-3bba-4356-a617-91babf2d7ca1',5,'5','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-672041a6-889e-4d0c-b9bf-af813a1687d4","runId":"run-13d53ab3-3bba-4356-a617-91babf2d7ca1","message":{"type":"tool_call","agent_id":"agent-672041a6-889e-4d0c-b9bf-af813a1687d4","run_id":"run-13d53ab3-3bba-4356-a617-91babf2d7ca1","call_id":"call_1","name":"read","status":"completed","args":{"path":"/tmp/cursorsdk/ws/hello.txt"},"result":{"status":"success","value":{"content":"hello file\n","totalLines":11,"fileSize":0}}}}',NULL,NULL,'2026-12-07T04:02:24.355Z');
INSERT INTO run_events VALUES('run-13d53ab3-3bba-4356-a617-91babf2d7ca1',6,'6','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-672041a6-889e-4d0c-b9bf-af813a1687d4","runId":"run-13d53ab3-3bba-4356-a617-91babf2d7ca1","message":{"type":"usage","agent_id":"agent-672041a6-889e-4d0c-b9bf-af813a1687d4","run_id":"run-13d53ab3-3bba-4356-a617-91babf2d7ca1","usage":{"inputTokens":11,"outputTokens":7,"cacheReadTokens":0,"cacheWriteTokens":0,"totalTokens":18}}}',NULL,NULL,'2026-12-07T04:02:24.546Z');
INSERT INTO run_events VALUES('run-13d53ab3-3bba-4356-a617-91babf2d7ca1',7,'7','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-672041a6-889e-4d0c-b9bf-af813a1687d4","runId":"run-13d53ab3-3bba-4356-a617-91babf2d7ca1","message":{"type":"status","agent_id":"agent-672041a6-889e-4d0c-b9bf-af813a1687d4","run_id":"run-13d53ab3-3bba-4356-a617-91babf2d7ca1","status":"FINISHED"}}',NULL,NULL,'2026-12-07T04:02:24.750Z');
CREATE UNIQUE INDEX run_events_idempotency_key_idx
      ON run_events (run_id, idempotency_key)
      WHERE idempotency_key IS NOT NULL;
COMMIT;
