package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"testing"
)

// FuzzLineTransport: whatever a client sends, the transport never panics,
// and every answer it writes is one JSON-RPC error line.
func FuzzLineTransport(f *testing.F) {
	for _, s := range []string{
		"", "\n", "hello\n", "[]\n", "null\n42\n", "\x00\n", `{"jsonrpc":"2.0","id":null,"method":"x"}` + "\n",
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}` + "\n" + `{"jsonrpc":"1.0","id":"a"}`,
		`[{"jsonrpc":"2.0","id":5,"method":"tools/list"}]`, `{"jsonrpc":"2.0","id":{"a":1},"method":"m"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var out bytes.Buffer
		tr := &LineTransport{Reader: io.NopCloser(bytes.NewReader(data)), Writer: &out, MaxLine: 256}
		conn, err := tr.Connect(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		for {
			if _, err := conn.Read(context.Background()); err != nil {
				break
			}
		}
		sc := bufio.NewScanner(&out)
		for sc.Scan() {
			var a struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code int `json:"code"`
				} `json:"error"`
			}
			if err := json.Unmarshal(sc.Bytes(), &a); err != nil || a.JSONRPC != "2.0" || a.Error == nil ||
				(a.Error.Code != -32700 && a.Error.Code != -32600) || len(a.ID) == 0 {
				t.Fatalf("answer %q is not a JSON-RPC error line (%v)", sc.Bytes(), err)
			}
		}
	})
}
