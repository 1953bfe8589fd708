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
INSERT INTO "agents" VALUES('agent-599db935-7acb-454b-b504-af6b3f32fde7','/tmp/TestRecord3481596360/001/work/demo','IDLE',NULL,'{"blobId":"251184f5e0ed34e4ffc31cabaf4b5c0739ac4c671cd69ed43da779e28876a82e","storeKind":"local-agent-store"}','New Agent','{}','2026-12-07T04:13:39.727Z','2026-12-07T04:13:40.005Z');
INSERT INTO "agents" VALUES('agent-47b912f2-f41a-478f-afe8-32a316835016','/tmp/TestRecord3481596360/001/work/demo','ERROR',NULL,NULL,'New Agent','{}','2026-12-07T04:13:40.024Z','2026-12-07T04:13:40.057Z');
INSERT INTO "runs" VALUES('run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861','edb1f325-3776-4707-9b4e-32ee58063ac9','agent-599db935-7acb-454b-b504-af6b3f32fde7',1,'FINISHED','auto',NULL,NULL,'{"blobId":"251184f5e0ed34e4ffc31cabaf4b5c0739ac4c671cd69ed43da779e28876a82e","storeKind":"local-agent-store"}',NULL,NULL,'{"inputTokens":1234,"outputTokens":56,"cacheReadTokens":700,"cacheWriteTokens":30,"totalTokens":2020}','It says hello.','2026-12-07T04:13:39.727Z','2026-12-07T04:13:39.987Z','2026-12-07T04:13:39.731Z','2026-12-07T04:13:39.987Z',NULL,NULL);
INSERT INTO "runs" VALUES('run-125923bf-c6c0-4cfd-bf5e-9e76adc9e843','76bf74d5-b105-489e-b7bc-3836e0b8ebad','agent-599db935-7acb-454b-b504-af6b3f32fde7',2,'FINISHED','auto',NULL,'{"blobId":"251184f5e0ed34e4ffc31cabaf4b5c0739ac4c671cd69ed43da779e28876a82e","storeKind":"local-agent-store"}','{"blobId":"251184f5e0ed34e4ffc31cabaf4b5c0739ac4c671cd69ed43da779e28876a82e","storeKind":"local-agent-store"}',NULL,NULL,'{"inputTokens":321,"outputTokens":9,"cacheReadTokens":0,"cacheWriteTokens":0,"totalTokens":330}','Second answer.','2026-12-07T04:13:39.989Z','2026-12-07T04:13:40.005Z','2026-12-07T04:13:39.990Z','2026-12-07T04:13:40.005Z',NULL,NULL);
INSERT INTO "runs" VALUES('run-a7412765-5417-419e-ac3e-0865f131ded5','d28a57cc-48a9-479c-b96b-db2d9a20f41f','agent-47b912f2-f41a-478f-afe8-32a316835016',1,'ERROR','auto',NULL,NULL,NULL,'[permission_denied] fakemodel scripted error',NULL,NULL,NULL,'2026-12-07T04:13:40.024Z','2026-12-07T04:13:40.057Z','2026-12-07T04:13:40.025Z',NULL,NULL,NULL);
INSERT INTO "run_events" VALUES('run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861',1,'1','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","message":{"type":"request","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","request_id":"edb1f325-3776-4707-9b4e-32ee58063ac9"}}',NULL,NULL,'2026-12-07T04:13:39.732Z');
INSERT INTO "run_events" VALUES('run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861',2,'2','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","message":{"type":"status","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","status":"RUNNING"}}',NULL,NULL,'2026-12-07T04:13:39.732Z');
INSERT INTO "run_events" VALUES('run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861',3,'3','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","message":{"type":"thinking","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","text":"The user wants t"}}',NULL,NULL,'2026-12-07T04:13:39.964Z');
INSERT INTO "run_events" VALUES('run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861',4,'4','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","message":{"type":"thinking","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","text":"he file read."}}',NULL,NULL,'2026-12-07T04:13:39.965Z');
INSERT INTO "run_events" VALUES('run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861',5,'5','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","message":{"type":"thinking","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","text":"","thinking_duration_ms":1}}',NULL,NULL,'2026-12-07T04:13:39.966Z');
INSERT INTO "run_events" VALUES('run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861',6,'6','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","message":{"type":"assistant","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","message":{"role":"assistant","content":[{"type":"text","text":"Reading hello.tx"}]}}}',NULL,NULL,'2026-12-07T04:13:39.967Z');
INSERT INTO "run_events" VALUES('run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861',7,'7','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","message":{"type":"assistant","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","message":{"role":"assistant","content":[{"type":"text","text":"t."}]}}}',NULL,NULL,'2026-12-07T04:13:39.967Z');
INSERT INTO "run_events" VALUES('run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861',8,'8','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","message":{"type":"tool_call","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","call_id":"call_read_1","name":"read","status":"running","args":{"path":"/tmp/TestRecord3481596360/001/work/demo/hello.txt"}}}',NULL,NULL,'2026-12-07T04:13:39.969Z');
INSERT INTO "run_events" VALUES('run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861',9,'9','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","message":{"type":"tool_call","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","call_id":"call_read_1","name":"read","status":"completed","args":{"path":"/tmp/TestRecord3481596360/001/work/demo/hello.txt"},"result":{"status":"success","value":{"content":"hello from the workspace\n","totalLines":1,"fileSize":25}}}}',NULL,NULL,'2026-12-07T04:13:39.970Z');
INSERT INTO "run_events" VALUES('run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861',10,'10','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","message":{"type":"tool_call","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","call_id":"call_shell_1","name":"shell","status":"running","args":{"command":"wc -l hello.txt"}}}',NULL,NULL,'2026-12-07T04:13:39.971Z');
INSERT INTO "run_events" VALUES('run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861',11,'11','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","message":{"type":"tool_call","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","call_id":"call_shell_1","name":"shell","status":"completed","args":{"command":"wc -l hello.txt"},"result":{"status":"success","value":{"exitCode":0,"signal":"","stdout":"1 hello.txt\n","stderr":"","executionTime":0}}}}',NULL,NULL,'2026-12-07T04:13:39.972Z');
INSERT INTO "run_events" VALUES('run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861',12,'12','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","message":{"type":"assistant","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","message":{"role":"assistant","content":[{"type":"text","text":"It says hello."}]}}}',NULL,NULL,'2026-12-07T04:13:39.973Z');
INSERT INTO "run_events" VALUES('run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861',13,'13','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","message":{"type":"usage","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","usage":{"inputTokens":1234,"outputTokens":56,"cacheReadTokens":700,"cacheWriteTokens":30,"totalTokens":2020}}}',NULL,NULL,'2026-12-07T04:13:39.975Z');
INSERT INTO "run_events" VALUES('run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861',14,'14','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","message":{"type":"status","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-4e8532a8-e115-41ab-b4f8-d3cc9a6a0861","status":"FINISHED"}}',NULL,NULL,'2026-12-07T04:13:39.986Z');
INSERT INTO "run_events" VALUES('run-125923bf-c6c0-4cfd-bf5e-9e76adc9e843',1,'1','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-125923bf-c6c0-4cfd-bf5e-9e76adc9e843","message":{"type":"request","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-125923bf-c6c0-4cfd-bf5e-9e76adc9e843","request_id":"76bf74d5-b105-489e-b7bc-3836e0b8ebad"}}',NULL,NULL,'2026-12-07T04:13:39.990Z');
INSERT INTO "run_events" VALUES('run-125923bf-c6c0-4cfd-bf5e-9e76adc9e843',2,'2','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-125923bf-c6c0-4cfd-bf5e-9e76adc9e843","message":{"type":"status","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-125923bf-c6c0-4cfd-bf5e-9e76adc9e843","status":"RUNNING"}}',NULL,NULL,'2026-12-07T04:13:39.990Z');
INSERT INTO "run_events" VALUES('run-125923bf-c6c0-4cfd-bf5e-9e76adc9e843',3,'3','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-125923bf-c6c0-4cfd-bf5e-9e76adc9e843","message":{"type":"assistant","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-125923bf-c6c0-4cfd-bf5e-9e76adc9e843","message":{"role":"assistant","content":[{"type":"text","text":"Second answer."}]}}}',NULL,NULL,'2026-12-07T04:13:40.001Z');
INSERT INTO "run_events" VALUES('run-125923bf-c6c0-4cfd-bf5e-9e76adc9e843',4,'4','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-125923bf-c6c0-4cfd-bf5e-9e76adc9e843","message":{"type":"usage","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-125923bf-c6c0-4cfd-bf5e-9e76adc9e843","usage":{"inputTokens":321,"outputTokens":9,"cacheReadTokens":0,"cacheWriteTokens":0,"totalTokens":330}}}',NULL,NULL,'2026-12-07T04:13:40.002Z');
INSERT INTO "run_events" VALUES('run-125923bf-c6c0-4cfd-bf5e-9e76adc9e843',5,'5','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-599db935-7acb-454b-b504-af6b3f32fde7","runId":"run-125923bf-c6c0-4cfd-bf5e-9e76adc9e843","message":{"type":"status","agent_id":"agent-599db935-7acb-454b-b504-af6b3f32fde7","run_id":"run-125923bf-c6c0-4cfd-bf5e-9e76adc9e843","status":"FINISHED"}}',NULL,NULL,'2026-12-07T04:13:40.005Z');
INSERT INTO "run_events" VALUES('run-a7412765-5417-419e-ac3e-0865f131ded5',1,'1','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-47b912f2-f41a-478f-afe8-32a316835016","runId":"run-a7412765-5417-419e-ac3e-0865f131ded5","message":{"type":"request","agent_id":"agent-47b912f2-f41a-478f-afe8-32a316835016","run_id":"run-a7412765-5417-419e-ac3e-0865f131ded5","request_id":"d28a57cc-48a9-479c-b96b-db2d9a20f41f"}}',NULL,NULL,'2026-12-07T04:13:40.026Z');
INSERT INTO "run_events" VALUES('run-a7412765-5417-419e-ac3e-0865f131ded5',2,'2','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-47b912f2-f41a-478f-afe8-32a316835016","runId":"run-a7412765-5417-419e-ac3e-0865f131ded5","message":{"type":"status","agent_id":"agent-47b912f2-f41a-478f-afe8-32a316835016","run_id":"run-a7412765-5417-419e-ac3e-0865f131ded5","status":"RUNNING"}}',NULL,NULL,'2026-12-07T04:13:40.026Z');
INSERT INTO "run_events" VALUES('run-a7412765-5417-419e-ac3e-0865f131ded5',3,'3','run_stream_event','{"schemaVersion":1,"type":"sdk_message","agentId":"agent-47b912f2-f41a-478f-afe8-32a316835016","runId":"run-a7412765-5417-419e-ac3e-0865f131ded5","message":{"type":"status","agent_id":"agent-47b912f2-f41a-478f-afe8-32a316835016","run_id":"run-a7412765-5417-419e-ac3e-0865f131ded5","status":"ERROR","message":"[permission_denied] fakemodel scripted error"}}',NULL,NULL,'2026-12-07T04:13:40.056Z');
COMMIT;
