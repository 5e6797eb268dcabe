package daemon_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/ragd/ragd/embedding/ollamatest"
	"github.com/ragd/ragd/internal/daemontest"
)

// TestAPI_MalformedRequestLine documents what no handler can reach: a NUL
// in the request line is refused by net/http itself, before routing, with
// a 400 and the connection closed (its body is net/http's plain text).
func TestAPI_MalformedRequestLine(t *testing.T) {
	d := daemontest.Start(t, daemontest.NewWorld(t), daemontest.Config(ollamatest.ClosedURL(t)))
	c, err := net.Dial("unix", d.Socket())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(daemontest.Timeout))
	fmt.Fprintf(c, "GET /v1/he\x00alth HTTP/1.1\r\nHost: ragd\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("NUL in the request line: %d, want 400", resp.StatusCode)
	}
	if _, err := d.Client.Health(context.Background()); err != nil {
		daemontest.Fatal(t, "health after a malformed request line", err)
	}
}
