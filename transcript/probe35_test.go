package transcript_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ragd/ragd/transcript"
)

// execDB makes a SQLite database at path from script.
func execDB(t *testing.T, path, script string) {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(script); err != nil {
		t.Fatal(err)
	}
}

func eventIDs(evs []dbEvent) []string {
	var ids []string
	for _, e := range evs {
		ids = append(ids, e.ID)
	}
	return ids
}

func errorReasons(st transcript.Stats) string {
	var rs []string
	for _, e := range st.Errors {
		rs = append(rs, e.Reason)
	}
	return strings.Join(rs, "; ")
}

// Issue 35 item 2: a Crush database with NULLs where its schema has none
// and a time that is not one: each bad row is reported as malformed, the
// rest imports.
func TestCrush_BadRowsAreMalformedNotFatal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crush.db")
	execDB(t, path, `CREATE TABLE sessions (id TEXT, parent_session_id TEXT, title TEXT, updated_at INTEGER, created_at INTEGER);
CREATE TABLE messages (id TEXT, session_id TEXT, role TEXT, parts TEXT, created_at INTEGER, updated_at INTEGER, finished_at INTEGER);
INSERT INTO sessions VALUES ('s1', NULL, NULL, 1754315290, 1754315290), (NULL, NULL, 'No id', 1754315290, 1754315290);
INSERT INTO messages VALUES
  ('m1', 's1', 'user', '[{"type":"text","data":{"text":"Where do herons nest?"}}]', 1754315290, 1754315290, NULL),
  ('m2', 's1', 'assistant', NULL, 1754315291, 1754315291, 1754315291),
  (NULL, 's1', 'user', '[{"type":"text","data":{"text":"no id"}}]', 1754315292, 1754315292, NULL),
  ('m4', 's1', 'user', '[{"type":"text","data":{"text":"when?"}}]', 'yesterday', 1754315292, NULL),
  ('m5', NULL, 'user', '[{"type":"text","data":{"text":"no session"}}]', 1754315293, 1754315293, NULL),
  ('m6', 's1', NULL, '[{"type":"text","data":{"text":"no role"}}]', 1754315294, 1754315294, NULL),
  ('m7', 's1', 'assistant', '[{"type":"text","data":{"text":"In colonies."}}]', 1754315295, 1754315295, 1754315295);`)
	evs, _, st := readDB(t, transcript.Crush, path)
	ids := eventIDs(evs)
	for _, want := range []string{"crush:s1/m1", "crush:s1/m7"} {
		if !slices.Contains(ids, want) {
			t.Errorf("events %v: want %s, a valid message beside the bad ones", ids, want)
		}
	}
	// The session without an id and the messages without parts, id, time,
	// session or role.
	if st.Malformed != 6 {
		t.Errorf("%d malformed (%s), want 6: the session without an id, messages m2, (no id), m4, m5, m6", st.Malformed, errorReasons(st))
	}
	if r := errorReasons(st); !strings.Contains(r, "yesterday") {
		t.Errorf("reasons %q: want the bad time named", r)
	}
}

// Issue 35 item 2: the same for OpenCode's database: a NULL directory or
// title is no error, a NULL id or data is a malformed row.
func TestOpenCode_BadRowsAreMalformedNotFatal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "opencode.db")
	execDB(t, path, `CREATE TABLE session (id TEXT, project_id TEXT, parent_id TEXT, slug TEXT, directory TEXT, title TEXT, version TEXT, time_created INTEGER, time_updated INTEGER);
CREATE TABLE message (id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
CREATE TABLE part (id TEXT, message_id TEXT, session_id TEXT, time_created INTEGER, time_updated INTEGER, data TEXT);
INSERT INTO session VALUES ('ses_1', 'p', NULL, 'x', NULL, NULL, '1', 1706459830000, 1706459830000),
  (NULL, 'p', NULL, 'x', '/d', 'No id', '1', 'yesterday', 1706459830000);
INSERT INTO message VALUES
  ('msg_1', 'ses_1', 1706459830000, 1706459830000, '{"role":"user","time":{"created":1706459830000}}'),
  ('msg_2', 'ses_1', 1706459831000, 1706459831000, NULL),
  (NULL, 'ses_1', 1706459832000, 1706459832000, '{"role":"user","time":{"created":1706459832000}}'),
  ('msg_4', NULL, 'yesterday', 1706459833000, '{"role":"user","time":{"created":1706459833000}}'),
  ('msg_5', 'ses_1', 1706459834000, 1706459834000, '{"role":"assistant","time":{"created":1706459834000,"completed":1706459835000}}');
INSERT INTO part VALUES
  ('prt_1', 'msg_1', 'ses_1', 1706459830000, 1706459830000, '{"type":"text","text":"Where do herons nest?"}'),
  ('prt_2', 'msg_2', 'ses_1', 1706459831000, 1706459831000, '{"type":"text","text":"lost"}'),
  ('prt_3', 'msg_5', 'ses_1', 1706459834000, 1706459834000, NULL),
  ('prt_4', 'msg_5', 'ses_1', 1706459834000, 1706459834000, '{"type":"text","text":"In colonies."}');`)
	evs, _, st := readDB(t, transcript.OpenCode, path)
	ids := eventIDs(evs)
	for _, want := range []string{"opencode:ses_1/msg_1", "opencode:ses_1/msg_5"} {
		if !slices.Contains(ids, want) {
			t.Errorf("events %v: want %s, a valid message beside the bad ones", ids, want)
		}
	}
	if st.Malformed != 5 {
		t.Errorf("%d malformed (%s), want 5: the session without an id, msg_2, the message without an id, msg_4, prt_3", st.Malformed, errorReasons(st))
	}
}

// Issue 35 item 17: a file given as a Crush database that is not SQLite
// (here a 2 GB sparse file) is refused by its header, before anything is
// copied: with no temporary folder to copy into, the read still reports
// the file as not a database, and writes nothing.
func TestCrush_NotSQLiteRefusedBeforeCopy(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crush.db")
	fh, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := fh.Truncate(2 << 30); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	t.Setenv("TMPDIR", filepath.Join(t.TempDir(), "none"))
	st, err := transcript.ReadFile(t.Context(), transcript.Crush, path, transcript.Options{}, nil)
	if err != nil {
		t.Fatalf("ReadFile: %v; want the file reported as not a database, nothing copied", err)
	}
	if st.Malformed != 1 || !strings.Contains(errorReasons(st), "not a SQLite database") {
		t.Errorf("stats: %d malformed (%s); want one: not a SQLite database", st.Malformed, errorReasons(st))
	}
}
