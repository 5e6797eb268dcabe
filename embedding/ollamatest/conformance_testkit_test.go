//go:build testkit

package ollamatest

import (
	"encoding/json"
	"net/http"
	"os"
	"testing"
)

// TestKitRealServerMatchesRecording runs the fake's conformance table against
// the test kit's server, so that a drift of Ollama's behaviour shows up here
// rather than as a fake that lies. Against the use-lite shim, the cases it
// is documented to answer otherwise are left out.
func TestKitRealServerMatchesRecording(t *testing.T) {
	host, model := os.Getenv("OLLAMA_HOST"), os.Getenv("RAGD_TESTKIT_MODEL")
	if host == "" || model == "" {
		t.Fatal("testkit tier: set OLLAMA_HOST and RAGD_TESTKIT_MODEL (eval \"$(../shared/testkit/ollama-real up)\")")
	}
	resp, err := http.Get(host + "/api/version")
	if err != nil {
		t.Fatalf("testkit server at %s: %v", host, err)
	}
	var v struct{ Version string }
	err = json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	if err != nil {
		t.Fatalf("version: %v", err)
	}
	cases := wireCases(model)
	if v.Version == "0.0.0-use-lite" {
		kept := cases[:0]
		for _, c := range cases {
			if c.shimDiffers {
				t.Logf("use-lite shim: not comparing %q", c.name)
				continue
			}
			kept = append(kept, c)
		}
		cases = kept
	}
	checkWire(t, host, cases)
}
