package ragd

import "testing"

func TestOrigin_String(t *testing.T) {
	for _, tc := range []struct {
		o    Origin
		want string
	}{
		{Origin{Kind: OriginFile, SourcePath: "docs/adr/0001.md", HeadingPath: []string{"Decision", "Why"}, Commit: "abc"}, "docs/adr/0001.md § Decision › Why"},
		{Origin{Kind: OriginFile, SourcePath: "docs/a.md", Title: "A"}, "docs/a.md"},
		{Origin{Kind: OriginSession, SessionID: "s1", EventID: "e3", Title: "Logs"}, "session s1 › message e3"},
	} {
		if got := tc.o.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.o, got, tc.want)
		}
	}
}
