package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessageBytes bounds one inbound message (one line): the SDK's own
// default frame bound. A longer line is refused and skipped, never held.
const MaxMessageBytes = 16 << 20

// LineTransport is MCP's stdio transport, newline-delimited JSON-RPC, that
// survives what a client gets wrong. The SDK's IOTransport ends the session
// at the first line that is not one JSON-RPC message (not JSON, [], null,
// 42, a batch, a wrong "jsonrpc", an object id, a NUL, deep nesting, a
// line over its bound): a server that an agent spawned then exits without
// a word. This one answers such a line with JSON-RPC's error, -32700
// (parse error) or -32600 (invalid request), with the line's id when it
// has a usable one and null otherwise, and reads on. A request whose id is
// null, which the SDK would take for a notification and never answer, is
// answered -32600.
//
// Batches are refused (-32600): MCP 2025-06-18 removed them.
type LineTransport struct {
	Reader io.ReadCloser
	Writer io.Writer
	// MaxLine bounds one message in bytes. Optional: MaxMessageBytes.
	MaxLine int
}

// Connect implements mcp.Transport.
func (t *LineTransport) Connect(context.Context) (mcp.Connection, error) {
	max := t.MaxLine
	if max <= 0 {
		max = MaxMessageBytes
	}
	c := &lineConn{r: t.Reader, w: t.Writer, lines: make(chan line), closed: make(chan struct{}), max: max}
	go c.readLines(bufio.NewReaderSize(t.Reader, 64<<10))
	return c, nil
}

// line is one inbound line, or why there is none.
type line struct {
	data []byte
	// tooLong is set for a line over the bound (data is empty).
	tooLong bool
	err     error
}

type lineConn struct {
	r      io.ReadCloser
	w      io.Writer
	wmu    sync.Mutex
	lines  chan line
	closed chan struct{}
	once   sync.Once
	// max bounds one line.
	max int
}

// readLines sends each line of br to c.lines until br ends or c closes.
func (c *lineConn) readLines(br *bufio.Reader) {
	for {
		l := readLine(br, c.max)
		select {
		case c.lines <- l:
		case <-c.closed:
			return
		}
		if l.err != nil {
			return
		}
	}
}

// readLine reads one line of at most max bytes; the rest of a longer one
// is read and dropped.
func readLine(br *bufio.Reader, max int) line {
	var buf []byte
	for {
		frag, err := br.ReadSlice('\n')
		if len(buf)+len(frag) > max {
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			if err != nil && !errors.Is(err, io.EOF) {
				return line{err: err}
			}
			return line{tooLong: true, err: eofIf(err)}
		}
		buf = append(buf, frag...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == nil:
			return line{data: buf}
		case errors.Is(err, io.EOF) && len(buf) > 0:
			return line{data: buf} // the last line, without its newline
		default:
			return line{err: err}
		}
	}
}

// eofIf passes on io.EOF (the line was the last) and drops other nil.
func eofIf(err error) error {
	if errors.Is(err, io.EOF) {
		return io.EOF
	}
	return nil
}

// Read returns the next message, answering the lines that are none.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		var l line
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		case l = <-c.lines:
		}
		if l.tooLong {
			c.refuse(ctx, nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message larger than %d bytes: refused", c.max))
		} else if data := bytes.TrimSpace(l.data); len(data) > 0 {
			if msg := c.decode(ctx, data); msg != nil {
				return msg, nil
			}
		}
		if l.err != nil {
			return nil, l.err
		}
	}
}

// decode returns the message data holds, or answers it with an error and
// returns nil.
func (c *lineConn) decode(ctx context.Context, data []byte) jsonrpc.Message {
	if !json.Valid(data) {
		c.refuse(ctx, nil, jsonrpc.CodeParseError, "parse error: not one JSON value")
		return nil
	}
	switch data[0] {
	case '{':
	case '[':
		c.refuse(ctx, nil, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported (MCP 2025-06-18 removed them): send one message a line")
		return nil
	default:
		c.refuse(ctx, nil, jsonrpc.CodeInvalidRequest, "invalid request: a message is a JSON object")
		return nil
	}
	var head struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	json.Unmarshal(data, &head) // valid JSON, an object: the fields may be of other types
	id := usableID(head.ID)
	msg, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		c.refuse(ctx, id, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
		return nil
	}
	if req, ok := msg.(*jsonrpc.Request); ok && !req.IsCall() && string(bytes.TrimSpace(head.ID)) == "null" {
		c.refuse(ctx, nil, jsonrpc.CodeInvalidRequest, "invalid request: id null: give a string or number id, or none for a notification")
		return nil
	}
	return msg
}

// usableID is raw as an id to answer with: a string or a number, else nil.
func usableID(raw json.RawMessage) any {
	var v any
	if len(raw) == 0 || json.Unmarshal(raw, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return json.RawMessage(raw)
	}
	return nil
}

// refuse writes an error answer with id (nil: null).
func (c *lineConn) refuse(ctx context.Context, id any, code int, msg string) {
	type wireError struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	}
	b, err := json.Marshal(struct {
		JSONRPC string    `json:"jsonrpc"`
		ID      any       `json:"id"`
		Error   wireError `json:"error"`
	}{"2.0", id, wireError{code, msg}})
	if err != nil {
		return // only our own types: cannot fail
	}
	c.write(ctx, b)
}

// Write implements mcp.Connection.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	b, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return err
	}
	return c.write(ctx, b)
}

func (c *lineConn) write(ctx context.Context, b []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.w.Write(append(b, '\n'))
	return err
}

// Close implements mcp.Connection.
func (c *lineConn) Close() error {
	var err error
	c.once.Do(func() {
		close(c.closed)
		err = c.r.Close()
	})
	return err
}

// SessionID implements mcp.Connection: stdio has no session id.
func (c *lineConn) SessionID() string { return "" }
