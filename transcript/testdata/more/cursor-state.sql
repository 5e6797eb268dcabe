-- A Cursor state database: the ItemTable of a workspace (a chat tab with
-- the draft left in its input box, a composer with its conversation
-- inline, the prompt history that repeats them) and the cursorDiskKV
-- table of newer versions (a composer whose bubbles have keys of their
-- own).
CREATE TABLE ItemTable (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
CREATE TABLE cursorDiskKV (key TEXT UNIQUE ON CONFLICT REPLACE, value BLOB);
INSERT INTO ItemTable VALUES
  ('workbench.panel.aichat.view.aichat.chatdata', '{"tabs":[{"tabId":"tab-1","chatTitle":"Sidebar","lastSendTime":1731818231743,"bubbles":[{"type":"user","id":"b1","text":"Add a sidebar"},{"type":"ai","id":"b2","text":"Here is a sidebar."},{"type":"user","id":"b3","text":""}]}]}'),
  ('composer.composerData', '{"allComposers":[{"composerId":"comp-1","createdAt":1731784818255,"conversation":[{"type":1,"bubbleId":"c1","text":"Fix the build"},{"type":2,"bubbleId":"c2","text":"Fixed the import."}]},{"composerId":"comp-empty","createdAt":1731784818256,"conversation":[]}]}'),
  ('aiService.prompts', '[{"text":"Add a sidebar","commandType":4}]'),
  ('workbench.panel.aichat', '{"collapsed":false}');
INSERT INTO cursorDiskKV VALUES
  ('composerData:comp-2', '{"composerId":"comp-2","name":"Queue","createdAt":1731900000000,"fullConversationHeadersOnly":[{"bubbleId":"d1","type":1},{"bubbleId":"d2","type":2}]}'),
  ('bubbleId:comp-2:d1', '{"type":1,"bubbleId":"d1","text":"Why does the queue stall?"}'),
  ('bubbleId:comp-2:d2', '{"type":2,"bubbleId":"d2","text":"It waits on a closed channel."}');
