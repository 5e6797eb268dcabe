package daemon_test

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/ragd/ragd/api"
	"github.com/ragd/ragd/internal/daemontest"
)

// TestAPI_JSONWhateverTheContentType: curl -d sends its default form
// content type with a JSON body; a body that parses as JSON is JSON.
func TestAPI_JSONWhateverTheContentType(t *testing.T) {
	daemontest.EngineIndependent(t)
	d, _ := startDocs(t, newServer(t).URL)
	daemontest.Reindex(t, d.Client, "demo")
	for _, ct := range []string{"application/x-www-form-urlencoded", "text/plain", "", "application/json; charset=utf-8"} {
		a := daemontest.Do(t, d.Socket(), "POST", daemontest.ProjectPath("demo", "/search"), ct, []byte(`{"query": "socket", "limit": 2}`))
		var resp api.SearchResponse
		if a.Status != http.StatusOK || json.Unmarshal(a.Body, &resp) != nil || len(resp.Hits) == 0 {
			t.Errorf("search sent as %q: %d %s", ct, a.Status, a.Body)
		}
	}
}
