package mcpserver_test

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ragd/ragd/internal/daemontest"
	"github.com/ragd/ragd/mcpserver"
)

// rawAnswer is one JSON-RPC answer as the server wrote it.
type rawAnswer struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	Method string `json:"method"`
}

// Issue 27 item 19: the server answers each line a client gets wrong with
// JSON-RPC's error (-32700 not JSON, -32600 not a request), with its id
// when it has a usable one, and serves the next request; a request whose
// id is null is answered too. Each line is answered before the next is
// sent: a server that had exited fails the test at once.
func TestTransport_MalformedLinesAnsweredAndServingGoesOn(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serveSocketEnv+"="+filepath.Join(t.TempDir(), "none.sock"), serveDirEnv+"="+t.TempDir())
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		cmd.Wait()
	}()
	answers := make(chan rawAnswer)
	go func() {
		defer close(answers)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var a rawAnswer
			if json.Unmarshal(sc.Bytes(), &a) != nil || a.Method != "" {
				continue // not an answer: a notification of the server's
			}
			answers <- a
		}
	}()
	send := func(what, line string) rawAnswer {
		t.Helper()
		if _, err := io.WriteString(stdin, line+"\n"); err != nil {
			t.Fatalf("%s: write: %v (has the server exited?)", what, err)
		}
		select {
		case a, ok := <-answers:
			if !ok {
				t.Fatalf("%s: the server exited without an answer", what)
			}
			return a
		case <-time.After(daemontest.Timeout):
			t.Fatalf("%s: no answer", what)
		}
		return rawAnswer{}
	}

	if a := send("initialize", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"probe","version":"1"}}}`); a.Error != nil || a.Result == nil {
		t.Fatalf("initialize: %+v", a)
	}
	io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")

	deep := strings.Repeat("[", 20000) + strings.Repeat("]", 20000)
	for _, tc := range []struct {
		name, line string
		code       int
		id         string
	}{
		{"not JSON", "hello", -32700, "null"},
		{"empty array", "[]", -32600, "null"},
		{"null", "null", -32600, "null"},
		{"a number", "42", -32600, "null"},
		{"a batch", `[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`, -32600, "null"},
		{"wrong jsonrpc", `{"jsonrpc":"1.0","id":6,"method":"tools/list"}`, -32600, "6"},
		{"object id", `{"jsonrpc":"2.0","id":{"a":1},"method":"tools/list"}`, -32600, "null"},
		{"a NUL", "\x00", -32700, "null"},
		{"deep nesting", deep, -32700, "null"},
		{"a line over the bound", `{"jsonrpc":"2.0","id":7,"method":"` + strings.Repeat("x", mcpserver.MaxMessageBytes) + `"}`, -32600, "null"},
		{"id null", `{"jsonrpc":"2.0","id":null,"method":"tools/list"}`, -32600, "null"},
	} {
		a := send(tc.name, tc.line)
		if a.Error == nil || a.Error.Code != tc.code || string(a.ID) != tc.id || a.Error.Message == "" {
			t.Errorf("%s: answer %+v (error %+v), want code %d with id %s", tc.name, a, a.Error, tc.code, tc.id)
		}
	}

	a := send("tools/list after them", `{"jsonrpc":"2.0","id":9,"method":"tools/list"}`)
	var tools struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	if a.Error != nil || string(a.ID) != "9" || json.Unmarshal(a.Result, &tools) != nil || len(tools.Tools) == 0 {
		t.Fatalf("tools/list after the malformed lines: %+v", a)
	}
}
