package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// mainChildEnv makes the test binary run ragd's main with its arguments
// instead of the tests: a real `ragd serve` process, signals and exit code
// included, for tests that kill or stop it.
const mainChildEnv = "RAGD_TEST_RUN_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(mainChildEnv) == "1" {
		os.Args = append([]string{"ragd"}, os.Args[1:]...)
		main()
		os.Exit(0)
	}
	// No built-in model installed in the user's cache decides a test's
	// provider: each test that wants one installs it.
	cache, err := os.MkdirTemp("", "ragd-test-cache-")
	if err != nil {
		panic(err)
	}
	os.Setenv("XDG_CACHE_HOME", cache)
	code := m.Run()
	os.RemoveAll(cache)
	os.Exit(code)
}

// ragd runs the command line args in this process and returns its standard
// output; it fails the test when the command fails.
func ragd(t *testing.T, args ...string) []byte {
	t.Helper()
	out, errOut, err := ragdErr(t, args...)
	if err != nil {
		t.Fatalf("ragd %s: %v\nstdout: %s\nstderr: %s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// ragdErr runs the command line args in this process.
func ragdErr(t *testing.T, args ...string) (stdout, stderr []byte, err error) {
	t.Helper()
	var o, e bytes.Buffer
	err = run(context.Background(), args, strings.NewReader(""), &o, &e)
	return o.Bytes(), e.Bytes(), err
}

// decode decodes the JSON output of a command into a T, refusing fields T
// does not have: the output is the documented wire type.
func decode[T any](t *testing.T, out []byte) T {
	t.Helper()
	var v T
	dec := json.NewDecoder(bytes.NewReader(out))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&v); err != nil {
		t.Fatalf("decode %T from %s: %v", v, out, err)
	}
	if dec.More() {
		t.Fatalf("more than one JSON value in %s", out)
	}
	return v
}
