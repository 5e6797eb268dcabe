package daemontest

import "testing"

// On the PostgreSQL tier, NewWorld skips a test not marked
// EngineIndependent: the tier is chosen by the marks.
func TestNewWorld_SkipsUnmarkedOnPostgres(t *testing.T) {
	t.Setenv(EngineEnv, EnginePostgres)
	var inner *testing.T
	t.Run("world", func(t *testing.T) {
		inner = t
		NewWorld(t)
	})
	if !inner.Skipped() {
		t.Error("an unmarked test made a World on the PostgreSQL tier")
	}
}

func TestNewWorld_RunsMarkedOnPostgres(t *testing.T) {
	t.Setenv(EngineEnv, EnginePostgres)
	EngineIndependent(t)
	var inner *testing.T
	t.Run("world", func(t *testing.T) {
		inner = t
		if w := NewWorld(t); w.Dir == "" {
			t.Error("no World")
		}
	})
	if inner.Skipped() {
		t.Error("a marked test (through its subtest) was skipped on the PostgreSQL tier")
	}
}

// On the SQLite tier every test runs, marked or not.
func TestNewWorld_RunsUnmarkedOnSQLite(t *testing.T) {
	t.Setenv(EngineEnv, EngineSQLite)
	var inner *testing.T
	t.Run("world", func(t *testing.T) {
		inner = t
		NewWorld(t)
	})
	if inner.Skipped() {
		t.Error("an unmarked test was skipped on the SQLite tier")
	}
}
