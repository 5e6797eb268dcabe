package transcript

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	// The tools' databases are read through the same SQLite build as
	// ragd's own.
	_ "github.com/mattn/go-sqlite3"
)

// A tool's SQLite database is never opened where it is: opening a
// database in WAL mode writes its -wal and -shm files beside it, even to
// read. It is copied, with its -wal (the writes not yet checkpointed into
// it), into a temporary folder, and the copy is read in one transaction.
// The copy is taken again when the files changed while being copied (the
// tool wrote), so what is read is a state the tool left.

// snapshotAttempts is how many times a database is copied before a copy
// taken while the tool keeps writing is read anyway: the tool is busy,
// and the next change reads it again. A copy of a tool's database takes
// about a millisecond, so many attempts cost little, and a torn copy (a
// checkpoint between copying the database and its -wal loses the writes
// it moved) is read only when the tool wrote during every one of them: 3
// were too few for a writer committing in a loop on a loaded machine.
const snapshotAttempts = 20

// DatabaseStat returns the size and modification time of a database
// source together with its -wal file: a write in WAL mode changes the
// -wal, not the database.
func DatabaseStat(path string) (size int64, mod time.Time, err error) {
	info, err := os.Stat(path)
	if err != nil {
		return 0, time.Time{}, err
	}
	size, mod = info.Size(), info.ModTime()
	if wal, err := os.Stat(path + "-wal"); err == nil {
		size += wal.Size()
		if wal.ModTime().After(mod) {
			mod = wal.ModTime()
		}
	}
	return size, mod, nil
}

// snapshot copies the database at path and its -wal into a new temporary
// folder; done removes it.
func snapshot(path string) (copyPath string, done func(), err error) {
	dir, err := os.MkdirTemp("", "ragd-source-")
	if err != nil {
		return "", nil, fmt.Errorf("transcript: copy of %s: %w", path, err)
	}
	done = func() { os.RemoveAll(dir) }
	copyPath = filepath.Join(dir, "source.db")
	for attempt := 1; ; attempt++ {
		size, mod, err := DatabaseStat(path)
		if err != nil {
			done()
			return "", nil, err
		}
		if err := copyFile(path, copyPath); err != nil {
			done()
			return "", nil, err
		}
		os.Remove(copyPath + "-wal")
		if err := copyFile(path+"-wal", copyPath+"-wal"); err != nil && !errors.Is(err, fs.ErrNotExist) {
			done()
			return "", nil, err
		}
		size2, mod2, err := DatabaseStat(path)
		if err != nil {
			done()
			return "", nil, err
		}
		if (size == size2 && mod.Equal(mod2)) || attempt == snapshotAttempts {
			return copyPath, done, nil
		}
	}
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return fmt.Errorf("transcript: copy %s: %w", from, err)
	}
	return out.Close()
}

// openSnapshot copies the database at path and opens the copy, ready for
// one read transaction. ok is false (and the problem counted in Stats)
// when the file is not a SQLite database.
func (rd *reader) openSnapshot(ctx context.Context, path string) (tx *sql.Tx, done func(), ok bool, err error) {
	// Look before copying: a file given as a database may be anything, of
	// any size (a 2 GB sparse file was copied whole before SQLite said no).
	isDB, err := hasSQLiteHeader(path)
	if err != nil {
		return nil, nil, false, fmt.Errorf("transcript: %s: %w", path, err)
	}
	if !isDB {
		rd.bad(0, "not a SQLite database: the file does not start with SQLite's header")
		return nil, nil, false, nil
	}
	cp, cleanup, err := snapshot(path)
	if err != nil {
		return nil, nil, false, err
	}
	db, err := sql.Open("sqlite3", "file:"+(&url.URL{Path: cp}).EscapedPath()+"?_busy_timeout=5000")
	if err != nil {
		cleanup()
		return nil, nil, false, fmt.Errorf("transcript: open the copy of %s: %w", path, err)
	}
	db.SetMaxOpenConns(1)
	done = func() {
		db.Close()
		cleanup()
	}
	tx, err = db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err == nil {
		// Touch the schema: a file that is not a database fails here.
		var n int
		err = tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master").Scan(&n)
	}
	if err != nil {
		if tx != nil {
			tx.Rollback()
		}
		done()
		if ctx.Err() != nil {
			return nil, nil, false, ctx.Err()
		}
		rd.bad(0, "not a readable SQLite database: "+err.Error())
		return nil, nil, false, nil
	}
	return tx, done, true, nil
}

// sqliteHeader is how every SQLite database file starts (the "magic
// header string" of SQLite's file format).
const sqliteHeader = "SQLite format 3\x00"

// hasSQLiteHeader reports whether the file at path starts with
// sqliteHeader. An empty file is no database of a tool's: the tools
// create their schema when they create the file.
func hasSQLiteHeader(path string) (bool, error) {
	fh, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer fh.Close()
	var head [len(sqliteHeader)]byte
	if _, err := io.ReadFull(fh, head[:]); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return false, nil
		}
		return false, err
	}
	return string(head[:]) == sqliteHeader, nil
}

// hasTable reports whether the database has a table of that name.
func hasTable(ctx context.Context, tx *sql.Tx, name string) bool {
	var n int
	err := tx.QueryRowContext(ctx, "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", name).Scan(&n)
	return err == nil && n > 0
}

// hasColumn reports whether table has a column of that name.
func hasColumn(ctx context.Context, tx *sql.Tx, table, column string) bool {
	var n int
	err := tx.QueryRowContext(ctx, "SELECT count(*) FROM pragma_table_info(?) WHERE name = ?", table, column).Scan(&n)
	return err == nil && n > 0
}

// sqlInt reads an integer column scanned into an any: SQLite keeps what
// it was given, so a column declared INTEGER may hold text or a real.
func sqlInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64:
		return int64(x), x == float64(int64(x))
	case []byte:
		i, err := strconv.ParseInt(strings.TrimSpace(string(x)), 10, 64)
		return i, err == nil
	case string:
		i, err := strconv.ParseInt(strings.TrimSpace(x), 10, 64)
		return i, err == nil
	}
	return 0, false
}

// maxQuotedValue bounds a column value quoted in a malformed row's reason.
const maxQuotedValue = 40

// sqlValue renders a column value scanned into an any, for a reason.
func sqlValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return strconv.Quote(shorten(string(x), maxQuotedValue))
	case string:
		return strconv.Quote(shorten(x, maxQuotedValue))
	}
	return fmt.Sprint(v)
}
