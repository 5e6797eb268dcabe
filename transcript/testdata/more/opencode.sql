-- An OpenCode database (its session, message and part tables), with the
-- awkward records: text OpenCode adds (synthetic) or drops (ignored), a
-- tool still running, a failed tool, a file, a subagent's session, a
-- compaction, an answer still being written.
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL, parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL,
  title TEXT NOT NULL, version TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL, session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
INSERT INTO session VALUES
  ('ses_1', 'prj', NULL, 'retry', '/home/dev/proj', 'Retry loop', '1.0', 1706459830000, 1706459840000),
  ('ses_2', 'prj', 'ses_1', 'find', '/home/dev/proj', 'Find the loop (@general subagent)', '1.0', 1706459832000, 1706459833000);
INSERT INTO message VALUES
  ('msg_1', 'ses_1', 1706459830000, 1706459830000, '{"role":"user","time":{"created":1706459830000}}'),
  ('msg_2', 'ses_1', 1706459831000, 1706459835000, '{"role":"assistant","time":{"created":1706459831000,"completed":1706459835000}}'),
  ('msg_3', 'ses_2', 1706459832000, 1706459832000, '{"role":"user","time":{"created":1706459832000}}'),
  ('msg_4', 'ses_2', 1706459832500, 1706459833000, '{"role":"assistant","time":{"created":1706459832500,"completed":1706459833000}}'),
  ('msg_5', 'ses_1', 1706459836000, 1706459836000, '{"role":"user","time":{"created":1706459836000}}'),
  ('msg_6', 'ses_1', 1706459837000, 1706459837000, '{"role":"assistant","time":{"created":1706459837000}}');
INSERT INTO part VALUES
  ('prt_01', 'msg_1', 'ses_1', 1706459830000, 1706459830000, '{"type":"text","text":"Why does q.go retry forever?"}'),
  ('prt_02', 'msg_1', 'ses_1', 1706459830001, 1706459830001, '{"type":"text","text":"Called the Read tool with q.go: package q","synthetic":true}'),
  ('prt_03', 'msg_1', 'ses_1', 1706459830002, 1706459830002, '{"type":"file","mime":"text/plain","filename":"q.go","url":"file:///home/dev/proj/q.go"}'),
  ('prt_04', 'msg_2', 'ses_1', 1706459831000, 1706459831000, '{"type":"step-start"}'),
  ('prt_05', 'msg_2', 'ses_1', 1706459831001, 1706459831001, '{"type":"reasoning","text":"Find the loop first."}'),
  ('prt_06', 'msg_2', 'ses_1', 1706459831002, 1706459831002, '{"type":"tool","tool":"task","callID":"c1","state":{"status":"completed","input":{"prompt":"find it"},"output":"at q.go:12"}}'),
  ('prt_07', 'msg_2', 'ses_1', 1706459831003, 1706459831003, '{"type":"tool","tool":"bash","callID":"c2","state":{"status":"error","input":{"command":"go vet"},"error":"exit 1"}}'),
  ('prt_08', 'msg_2', 'ses_1', 1706459831004, 1706459831004, '{"type":"text","text":"The loop at q.go:12"}'),
  ('prt_09', 'msg_2', 'ses_1', 1706459831005, 1706459831005, '{"type":"text","text":"never backs off."}'),
  ('prt_10', 'msg_2', 'ses_1', 1706459831006, 1706459831006, '{"type":"step-finish","reason":"stop"}'),
  ('prt_11', 'msg_3', 'ses_2', 1706459832000, 1706459832000, '{"type":"text","text":"Find the retry loop"}'),
  ('prt_12', 'msg_4', 'ses_2', 1706459832500, 1706459832500, '{"type":"text","text":"q.go:12"}'),
  ('prt_13', 'msg_5', 'ses_1', 1706459836000, 1706459836000, '{"type":"text","text":"ignore me","ignored":true}'),
  ('prt_14', 'msg_5', 'ses_1', 1706459836001, 1706459836001, '{"type":"compaction","auto":true}'),
  ('prt_15', 'msg_6', 'ses_1', 1706459837000, 1706459837000, '{"type":"text","text":"Writing the fi"}');
