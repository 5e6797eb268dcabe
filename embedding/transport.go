package embedding

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
)

// Response size limits. The api client reads whole bodies with io.ReadAll, so
// without a bound a broken or hostile server could make ragd allocate without
// limit; the transport below cuts the body instead.
const (
	// bytesPerValue is the JSON size allowed per vector value: Go writes a
	// float32 in at most 15 bytes ("-1.2345678e-05,"), 24 leaves room for
	// other encoders and whitespace.
	bytesPerValue = 24
	// responseSlack is allowed on top of the vectors: the envelope, an error
	// message, and room for a model with several times the configured dims,
	// so that a mismatch is reported as such rather than as an oversize.
	// Memory use stays bounded by Concurrency × (slack + batch × dims × 24):
	// about 9 MiB with the defaults.
	responseSlack = 4 << 20
	// defaultResponseLimit bounds answers that carry no vectors
	// (/api/version).
	defaultResponseLimit = 1 << 20
	// maxReasonDetail bounds the server text quoted in a Reason: an error
	// page from a proxy can be a whole HTML document.
	maxReasonDetail = 200
)

// responseLimit returns the body limit for an answer to n texts of dims.
func responseLimit(n, dims int) int64 {
	return responseSlack + int64(n)*int64(dims)*bytesPerValue
}

// errResponseTooLarge reports a response body cut at its limit.
type errResponseTooLarge struct{ limit int64 }

func (e *errResponseTooLarge) Error() string {
	return fmt.Sprintf("response larger than %d bytes, cut", e.limit)
}

type responseLimitKey struct{}

// withResponseLimit makes requests made with ctx accept at most n bytes of
// response body.
func withResponseLimit(ctx context.Context, n int64) context.Context {
	return context.WithValue(ctx, responseLimitKey{}, n)
}

// withSentFlag makes requests made with ctx set *sent once the whole request
// was written to a connection: a timeout after that is a server that took
// the request and stayed silent (busy), not one that could not be reached.
func withSentFlag(ctx context.Context, sent *atomic.Bool) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		WroteRequest: func(info httptrace.WroteRequestInfo) {
			if info.Err == nil {
				sent.Store(true)
			}
		},
	})
}

// limitTransport enforces the response limit carried by the request context
// (default defaultResponseLimit). It wraps the body after the underlying
// transport has removed any gzip encoding, so the limit applies to the
// decoded bytes that the client will hold.
type limitTransport struct {
	base http.RoundTripper
}

var _ http.RoundTripper = (*limitTransport)(nil)

// RoundTrip implements http.RoundTripper.
func (t *limitTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	limit, ok := req.Context().Value(responseLimitKey{}).(int64)
	if !ok || limit <= 0 {
		limit = defaultResponseLimit
	}
	if req.Method == http.MethodPost && req.GetBody != nil {
		// An embedding is idempotent: say so, and the transport resends a
		// request that a reused connection lost before any answer. A
		// single-threaded server (the Node shim of the test kit) busy past
		// its keep-alive timeout closes an idle connection just as the
		// next batch is written on it; read as "provider down", that cost
		// the rest of a reindex its vectors. An empty value is not sent.
		req = req.Clone(req.Context())
		req.Header["Idempotency-Key"] = nil
	}
	resp, err := t.base.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > limit {
		// Known too large up front: do not read a byte of it.
		resp.Body.Close()
		return nil, &errResponseTooLarge{limit: limit}
	}
	resp.Body = &limitedBody{rc: resp.Body, left: limit, limit: limit}
	return resp, nil
}

// limitedBody fails a read past its limit, instead of silently truncating as
// io.LimitReader would (a truncated JSON body would be reported as a syntax
// error, hiding the cause).
type limitedBody struct {
	rc          io.ReadCloser
	left, limit int64
}

func (b *limitedBody) Read(p []byte) (int, error) {
	if b.left <= 0 {
		// The limit is reached: one more byte means the body is too large.
		var one [1]byte
		n, err := b.rc.Read(one[:])
		if n > 0 {
			return 0, &errResponseTooLarge{limit: b.limit}
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.rc.Read(p)
	b.left -= int64(n)
	return n, err
}

func (b *limitedBody) Close() error { return b.rc.Close() }

var _ io.ReadCloser = (*limitedBody)(nil)

// newHTTPClient returns the client for one Service.
//
// It sets no http.Client.Timeout, on purpose: that would be one fixed
// deadline for every request, while a query needs 2s and an indexing batch a
// minute, and it would also fire on the caller's behalf when the caller has
// its own, shorter deadline. Every request carries a context with the right
// deadline instead, which also lets the caller cancel.
func newHTTPClient(concurrency int) *http.Client {
	var base *http.Transport
	if t, ok := http.DefaultTransport.(*http.Transport); ok {
		base = t.Clone()
	} else {
		base = &http.Transport{Proxy: http.ProxyFromEnvironment}
	}
	// Keep a connection per batch in flight, plus one for queries and health.
	base.MaxIdleConnsPerHost = concurrency + 1
	return &http.Client{Transport: &limitTransport{base: base}, CheckRedirect: keepKeyHome}
}

// maxRedirects is how many redirects a request follows, as net/http's
// default policy.
const maxRedirects = 10

// keepKeyHome is the clients' redirect policy: net/http's, except that the
// API key (the Authorization header) is sent to no other scheme, host or
// port than the request's first: net/http keeps it for the same host on
// another port, which may be another program.
func keepKeyHome(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return fmt.Errorf("stopped after %d redirects", maxRedirects)
	}
	first := via[0].URL
	if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		req.Header.Del("Authorization")
	}
	return nil
}
