-- A Crush database (the schema of its migrations), with the awkward
-- records: a failed request, reasoning, tool calls and results, a
-- subagent's session, an attachment, an answer still being written.
CREATE TABLE sessions (id TEXT PRIMARY KEY, parent_session_id TEXT, title TEXT NOT NULL, message_count INTEGER NOT NULL DEFAULT 0,
  prompt_tokens INTEGER NOT NULL DEFAULT 0, completion_tokens INTEGER NOT NULL DEFAULT 0, cost REAL NOT NULL DEFAULT 0.0,
  updated_at INTEGER NOT NULL, created_at INTEGER NOT NULL, summary_message_id TEXT);
CREATE TABLE messages (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, role TEXT NOT NULL, parts TEXT NOT NULL DEFAULT '[]',
  model TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, finished_at INTEGER, provider TEXT);
INSERT INTO sessions (id, parent_session_id, title, updated_at, created_at) VALUES
  ('cs-1', NULL, 'Queue retries', 1754315300, 1754315290),
  ('call_sub', 'cs-1', 'Find the loop', 1754315320, 1754315310);
INSERT INTO messages (id, session_id, role, parts, created_at, updated_at, finished_at) VALUES
  ('m1', 'cs-1', 'user', '[{"type":"text","data":{"text":"Why does the queue retry forever?"}},{"type":"binary","data":{"path":"a.png","mime_type":"image/png","data":""}},{"type":"finish","data":{"reason":"stop"}}]', 1754315290, 1754315290, NULL),
  ('m2', 'cs-1', 'assistant', '[{"type":"finish","data":{"reason":"error","time":1754315291,"message":"API Error","details":"404 Not Found"}}]', 1754315291, 1754315291, 1754315291),
  ('m3', 'cs-1', 'assistant', '[{"type":"reasoning","data":{"thinking":"Look for the loop."}},{"type":"tool_call","data":{"id":"c1","name":"grep","input":"{\"pattern\":\"retry\"}","type":"function","finished":true}},{"type":"finish","data":{"reason":"tool_use"}}]', 1754315292, 1754315292, 1754315292),
  ('m4', 'cs-1', 'tool', '[{"type":"tool_result","data":{"tool_call_id":"c1","name":"grep","content":"q.go:12: for {","is_error":false}}]', 1754315293, 1754315293, NULL),
  ('s1', 'call_sub', 'user', '[{"type":"text","data":{"text":"Find the retry loop in q.go"}}]', 1754315310, 1754315310, NULL),
  ('s2', 'call_sub', 'assistant', '[{"type":"text","data":{"text":"It is at q.go:12."}}]', 1754315311, 1754315311, 1754315311),
  ('m5', 'cs-1', 'assistant', '[{"type":"text","data":{"text":"The loop at q.go:12 never"}},{"type":"text","data":{"text":"backs off."}},{"type":"finish","data":{"reason":"end_turn"}}]', 1754315294, 1754315294, 1754315295),
  ('m6', 'cs-1', 'assistant', '[{"type":"text","data":{"text":"Writing the fi"}}]', 1754315296, 1754315296, NULL);
