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
INSERT INTO "agents" VALUES('agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff','/tmp/TestRecord1706298048/001/work/demo','IDLE',NULL,'{"blobId":"251184f5e0ed34e4ffc31cabaf4b5c0739ac4c671cd69ed43da779e28876a82e","storeKind":"local-agent-store"}','New Agent','{}','2026-12-07T04:10:51.273Z','2026-12-07T04:10:51.585Z');
INSERT INTO "agents" VALUES('agent-5e590039-84b0-4065-8b13-1bec6d659032','/tmp/TestRecord1706298048/001/work/demo','ERROR',NULL,NULL,'New Agent','{}','2026-12-07T04:10:51.606Z','2026-12-07T04:11:07.288Z');
INSERT INTO "runs" VALUES('run-c0d69e15-5594-4de0-8cac-767f1d6f935f','db690dc2-9c0a-43c9-a146-cc8309cff54d','agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff',1,'FINISHED','auto',NULL,NULL,'{"blobId":"251184f5e0ed34e4ffc31cabaf4b5c0739ac4c671cd69ed43da779e28876a82e","storeKind":"local-agent-store"}',NULL,NULL,'{"inputTokens":1234,"outputTokens":56,"cacheReadTokens":700,"cacheWriteTokens":30,"totalTokens":2020}','It says hello.','2026-12-07T04:10:51.273Z','2026-12-07T04:10:51.565Z','2026-12-07T04:10:51.278Z','2026-12-07T04:10:51.565Z',NULL,NULL);
INSERT INTO "runs" VALUES('run-74fd4d5b-a60f-4e15-94e1-d87f4b7b6dfb','93baadb4-ce8b-44f3-bd60-de95547a2c95','agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff',2,'FINISHED','auto',NULL,'{"blobId":"251184f5e0ed34e4ffc31cabaf4b5c0739ac4c671cd69ed43da779e28876a82e","storeKind":"local-agent-store"}','{"blobId":"251184f5e0ed34e4ffc31cabaf4b5c0739ac4c671cd69ed43da779e28876a82e","storeKind":"local-agent-store"}',NULL,NULL,'{"inputTokens":321,"outputTokens":9,"cacheReadTokens":0,"cacheWriteTokens":0,"totalTokens":330}','Second answer.','2026-12-07T04:10:51.568Z','2026-12-07T04:10:51.585Z','2026-12-07T04:10:51.568Z','2026-12-07T04:10:51.585Z',NULL,NULL);
INSERT INTO "runs" VALUES('run-c3920bbc-5bb4-4f12-be7b-f2274815a609','9f69f797-984e-4882-ac93-c8685f824612','agent-5e590039-84b0-4065-8b13-1bec6d659032',1,'ERROR','auto',NULL,NULL,NULL,'[invalid_argument] fakemodel scripted error',NULL,NULL,NULL,'2026-12-07T04:10:51.606Z','2026-12-07T04:11:07.288Z','2026-12-07T04:10:51.607Z',NULL,NULL,NULL);
INSERT INTO "run_events" VALUES('run-c0d69e15-5594-4de0-8cac-767f1d6f935f',1,'1','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","message":{"type":"request","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","request_id":"db690dc2-9c0a-43c9-a146-cc8309cff54d"}}',NULL,NULL,'2026-12-07T04:10:51.279Z');
INSERT INTO "run_events" VALUES('run-c0d69e15-5594-4de0-8cac-767f1d6f935f',2,'2','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","message":{"type":"status","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","status":"RUNNING"}}',NULL,NULL,'2026-12-07T04:10:51.279Z');
INSERT INTO "run_events" VALUES('run-c0d69e15-5594-4de0-8cac-767f1d6f935f',3,'3','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","message":{"type":"thinking","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","text":"The user wants t"}}',NULL,NULL,'2026-12-07T04:10:51.541Z');
INSERT INTO "run_events" VALUES('run-c0d69e15-5594-4de0-8cac-767f1d6f935f',4,'4','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","message":{"type":"thinking","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","text":"he file read."}}',NULL,NULL,'2026-12-07T04:10:51.542Z');
INSERT INTO "run_events" VALUES('run-c0d69e15-5594-4de0-8cac-767f1d6f935f',5,'5','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","message":{"type":"thinking","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","text":"","thinking_duration_ms":1}}',NULL,NULL,'2026-12-07T04:10:51.543Z');
INSERT INTO "run_events" VALUES('run-c0d69e15-5594-4de0-8cac-767f1d6f935f',6,'6','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","message":{"type":"assistant","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","message":{"role":"assistant","content":[{"type":"text","text":"Reading hello.tx"}]}}}',NULL,NULL,'2026-12-07T04:10:51.543Z');
INSERT INTO "run_events" VALUES('run-c0d69e15-5594-4de0-8cac-767f1d6f935f',7,'7','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","message":{"type":"assistant","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","message":{"role":"assistant","content":[{"type":"text","text":"t."}]}}}',NULL,NULL,'2026-12-07T04:10:51.544Z');
INSERT INTO "run_events" VALUES('run-c0d69e15-5594-4de0-8cac-767f1d6f935f',8,'8','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","message":{"type":"tool_call","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","call_id":"call_read_1","name":"read","status":"running","args":{"path":"/tmp/TestRecord1706298048/001/work/demo/hello.txt"}}}',NULL,NULL,'2026-12-07T04:10:51.546Z');
INSERT INTO "run_events" VALUES('run-c0d69e15-5594-4de0-8cac-767f1d6f935f',9,'9','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","message":{"type":"tool_call","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","call_id":"call_read_1","name":"read","status":"completed","args":{"path":"/tmp/TestRecord1706298048/001/work/demo/hello.txt"},"result":{"status":"success","value":{"content":"hello from the workspace\n","totalLines":1,"fileSize":25}}}}',NULL,NULL,'2026-12-07T04:10:51.547Z');
INSERT INTO "run_events" VALUES('run-c0d69e15-5594-4de0-8cac-767f1d6f935f',10,'10','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","message":{"type":"tool_call","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","call_id":"call_shell_1","name":"shell","status":"running","args":{"command":"wc -l hello.txt"}}}',NULL,NULL,'2026-12-07T04:10:51.547Z');
INSERT INTO "run_events" VALUES('run-c0d69e15-5594-4de0-8cac-767f1d6f935f',11,'11','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","message":{"type":"tool_call","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","call_id":"call_shell_1","name":"shell","status":"completed","args":{"command":"wc -l hello.txt"},"result":{"status":"success","value":{"exitCode":0,"signal":"","stdout":"1 hello.txt\n","stderr":"","executionTime":0}}}}',NULL,NULL,'2026-12-07T04:10:51.549Z');
INSERT INTO "run_events" VALUES('run-c0d69e15-5594-4de0-8cac-767f1d6f935f',12,'12','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","message":{"type":"assistant","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","message":{"role":"assistant","content":[{"type":"text","text":"It says hello."}]}}}',NULL,NULL,'2026-12-07T04:10:51.549Z');
INSERT INTO "run_events" VALUES('run-c0d69e15-5594-4de0-8cac-767f1d6f935f',13,'13','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","message":{"type":"usage","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","usage":{"inputTokens":1234,"outputTokens":56,"cacheReadTokens":700,"cacheWriteTokens":30,"totalTokens":2020}}}',NULL,NULL,'2026-12-07T04:10:51.553Z');
INSERT INTO "run_events" VALUES('run-c0d69e15-5594-4de0-8cac-767f1d6f935f',14,'14','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","message":{"type":"status","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-c0d69e15-5594-4de0-8cac-767f1d6f935f","status":"FINISHED"}}',NULL,NULL,'2026-12-07T04:10:51.564Z');
INSERT INTO "run_events" VALUES('run-74fd4d5b-a60f-4e15-94e1-d87f4b7b6dfb',1,'1','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-74fd4d5b-a60f-4e15-94e1-d87f4b7b6dfb","message":{"type":"request","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-74fd4d5b-a60f-4e15-94e1-d87f4b7b6dfb","request_id":"93baadb4-ce8b-44f3-bd60-de95547a2c95"}}',NULL,NULL,'2026-12-07T04:10:51.569Z');
INSERT INTO "run_events" VALUES('run-74fd4d5b-a60f-4e15-94e1-d87f4b7b6dfb',2,'2','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-74fd4d5b-a60f-4e15-94e1-d87f4b7b6dfb","message":{"type":"status","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-74fd4d5b-a60f-4e15-94e1-d87f4b7b6dfb","status":"RUNNING"}}',NULL,NULL,'2026-12-07T04:10:51.569Z');
INSERT INTO "run_events" VALUES('run-74fd4d5b-a60f-4e15-94e1-d87f4b7b6dfb',3,'3','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-74fd4d5b-a60f-4e15-94e1-d87f4b7b6dfb","message":{"type":"assistant","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-74fd4d5b-a60f-4e15-94e1-d87f4b7b6dfb","message":{"role":"assistant","content":[{"type":"text","text":"Second answer."}]}}}',NULL,NULL,'2026-12-07T04:10:51.581Z');
INSERT INTO "run_events" VALUES('run-74fd4d5b-a60f-4e15-94e1-d87f4b7b6dfb',4,'4','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-74fd4d5b-a60f-4e15-94e1-d87f4b7b6dfb","message":{"type":"usage","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-74fd4d5b-a60f-4e15-94e1-d87f4b7b6dfb","usage":{"inputTokens":321,"outputTokens":9,"cacheReadTokens":0,"cacheWriteTokens":0,"totalTokens":330}}}',NULL,NULL,'2026-12-07T04:10:51.582Z');
INSERT INTO "run_events" VALUES('run-74fd4d5b-a60f-4e15-94e1-d87f4b7b6dfb',5,'5','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","runId":"run-74fd4d5b-a60f-4e15-94e1-d87f4b7b6dfb","message":{"type":"status","agent_id":"agent-0357d16c-372a-4fb2-bb94-c66a2afaa6ff","run_id":"run-74fd4d5b-a60f-4e15-94e1-d87f4b7b6dfb","status":"FINISHED"}}',NULL,NULL,'2026-12-07T04:10:51.585Z');
INSERT INTO "run_events" VALUES('run-c3920bbc-5bb4-4f12-be7b-f2274815a609',1,'1','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-5e590039-84b0-4065-8b13-1bec6d659032","runId":"run-c3920bbc-5bb4-4f12-be7b-f2274815a609","message":{"type":"request","agent_id":"agent-5e590039-84b0-4065-8b13-1bec6d659032","run_id":"run-c3920bbc-5bb4-4f12-be7b-f2274815a609","request_id":"9f69f797-984e-4882-ac93-c8685f824612"}}',NULL,NULL,'2026-12-07T04:10:51.607Z');
INSERT INTO "run_events" VALUES('run-c3920bbc-5bb4-4f12-be7b-f2274815a609',2,'2','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-5e590039-84b0-4065-8b13-1bec6d659032","runId":"run-c3920bbc-5bb4-4f12-be7b-f2274815a609","message":{"type":"status","agent_id":"agent-5e590039-84b0-4065-8b13-1bec6d659032","run_id":"run-c3920bbc-5bb4-4f12-be7b-f2274815a609","status":"RUNNING"}}',NULL,NULL,'2026-12-07T04:10:51.608Z');
INSERT INTO "run_events" VALUES('run-c3920bbc-5bb4-4f12-be7b-f2274815a609',3,'3','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-5e590039-84b0-4065-8b13-1bec6d659032","runId":"run-c3920bbc-5bb4-4f12-be7b-f2274815a609","message":{"type":"status","agent_id":"agent-5e590039-84b0-4065-8b13-1bec6d659032","run_id":"run-c3920bbc-5bb4-4f12-be7b-f2274815a609","status":"ERROR","message":"[invalid_argument] fakemodel scripted error"}}',NULL,NULL,'2026-12-07T04:11:07.288Z');
COMMIT;
