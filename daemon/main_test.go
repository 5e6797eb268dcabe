package daemon_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/ragd/ragd/daemon"
	"github.com/ragd/ragd/internal/daemontest"
)

// The test binary doubles as two helper programs, chosen by environment:
// a daemon to kill (childDaemonEnv) and a socket probe to run as another
// user (probeEnv).
const (
	// childDaemonEnv holds the JSON daemon.Paths of a daemon to open; the
	// child prints readyLine once it listens, and runs until its standard
	// input closes or it is killed.
	childDaemonEnv = "RAGD_TEST_CHILD_DAEMON"
	readyLine      = "ready"
	// probeEnv holds a socket path to connect to; the probe prints
	// probeConnected, probeDenied, or another error, and exits.
	probeEnv       = "RAGD_TEST_PROBE_SOCKET"
	probeConnected = "connected"
	probeDenied    = "permission denied"
)

func TestMain(m *testing.M) {
	if v := os.Getenv(childDaemonEnv); v != "" {
		os.Exit(childDaemon(v))
	}
	if v := os.Getenv(probeEnv); v != "" {
		os.Exit(probe(v))
	}
	os.Exit(m.Run())
}

func childDaemon(pathsJSON string) int {
	var paths daemon.Paths
	if err := json.Unmarshal([]byte(pathsJSON), &paths); err != nil {
		fmt.Fprintln(os.Stderr, "child daemon:", err)
		return 2
	}
	cfg := daemontest.Config("http://127.0.0.1:1")
	d, err := daemon.Open(context.Background(), daemon.Options{Config: cfg, Paths: paths, Open: daemontest.OpenSQLite, Logger: daemontest.Logger()})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child daemon:", err)
		return 1
	}
	fmt.Println(readyLine)
	io.Copy(io.Discard, os.Stdin)
	d.Close(context.Background())
	return 0
}

func probe(socket string) int {
	c, err := net.Dial("unix", socket)
	switch {
	case err == nil:
		c.Close()
		fmt.Println(probeConnected)
	case errors.Is(err, syscall.EACCES):
		fmt.Println(probeDenied)
	default:
		fmt.Println("error:", err)
	}
	return 0
}
