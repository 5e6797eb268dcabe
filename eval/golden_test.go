package eval

import (
	"slices"
	"strings"
	"testing"
)

func TestParseGolden(t *testing.T) {
	in := `{"id": "q1", "query": "how are weights chosen", "relevant": [{"sourcePath": "docs/adr/0002-x.md", "headingPath": ["Decision"], "grade": 2}, {"sessionId": "s1", "eventId": "e5"}]}

{"id": 7, "query": "  sqlite vec  ", "scopes": ["adr"], "relevant": [{"sourcePath": "./docs/adr/0003-v.md"}, {"sourcePath": "docs/x.md", "grade": 0}]}
{"query": "no id here", "relevant": []}
`
	set, err := ParseGolden(strings.NewReader(in), "golden.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Queries) != 3 {
		t.Fatalf("%d queries, want 3", len(set.Queries))
	}
	q1, q2, q3 := set.Queries[0], set.Queries[1], set.Queries[2]
	if q1.ID != "q1" || q1.Origin != "golden.jsonl:1" || len(q1.Relevant) != 2 || q1.Relevant[0].Grade != 2 || q1.Relevant[1].Grade != 1 {
		t.Errorf("q1 = %+v", q1)
	}
	if q2.ID != "7" || q2.Text != "sqlite vec" || q2.Origin != "golden.jsonl:3" || !slices.Equal(q2.Scopes, []string{"adr"}) {
		t.Errorf("q2 = %+v", q2)
	}
	if len(q2.Relevant) != 1 || q2.Relevant[0].SourcePath != "docs/adr/0003-v.md" {
		t.Errorf("q2 relevant %+v: want the ./ trimmed and the grade-0 citation dropped", q2.Relevant)
	}
	if q3.ID != "no id here" || len(q3.Relevant) != 0 {
		t.Errorf("q3 = %+v: the id defaults to the query text", q3)
	}
	if len(set.Warnings) != 1 || !strings.Contains(set.Warnings[0], "golden.jsonl:4") {
		t.Errorf("warnings %q: want one for the query without relevant citation, at line 4", set.Warnings)
	}
	c := set.Counts()
	if c.Queries != 3 || c.Judged != 2 || c.NoRelevant != 1 || c.Relevant != 3 {
		t.Errorf("counts %+v", c)
	}
}

func TestParseGoldenBadInput(t *testing.T) {
	in := strings.Join([]string{
		`{"id": "a", "query": "one", "relevant": [{"sourcePath": "docs/a.md"}]}`, // 1 fine
		`this is not json`, // 2
		`{"id": "b", "relevant": [{"sourcePath": "docs/a.md"}]}`,                                 // 3 no query
		`{"id": "a", "query": "again", "relevant": []}`,                                          // 4 duplicate id
		`{"id": "c", "query": "x", "relevent": []}`,                                              // 5 unknown field
		`{"id": "d", "query": "x", "relevant": [{"grade": 1}]}`,                                  // 6 neither file nor session
		`{"id": "e", "query": "x", "relevant": [{"sourcePath": "docs/a.md", "sessionId": "s"}]}`, // 7 both
		`{"id": "f", "query": "x", "relevant": [{"sourcePath": "docs/a.md", "grade": -1}]}`,      // 8 negative grade
		`{"id": "g", "query": "x", "relevant": [{"sourcePath": "/etc/passwd"}]}`,                 // 9 absolute
		`{"id": "h", "query": "x", "scopes": ["wiki"], "relevant": []}`,                          // 10 unknown scope
		`{"id": "i", "query": "x"} {"id": "j"}`,                                                  // 11 two values
		`{"id": "k", "query": "` + strings.Repeat("w ", 600) + `"}`,                              // 12 too long
		`{"id": "l", "query": "x", "relevant": [{"sessionId": "s", "headingPath": ["A"]}]}`,      // 13 heading on a session
	}, "\n")
	_, err := ParseGolden(strings.NewReader(in), "g.jsonl")
	if err == nil {
		t.Fatal("no error")
	}
	msg := err.Error()
	for _, want := range []string{
		"g.jsonl:2: not a golden-set JSON object",
		`g.jsonl:3: missing "query"`,
		`g.jsonl:4: duplicate query id "a" (first on line 1)`,
		`g.jsonl:5: not a golden-set JSON object: json: unknown field "relevent"`,
		`g.jsonl:6: relevant[0]: want "sourcePath"`,
		`g.jsonl:7: relevant[0]: both "sourcePath" and "sessionId"`,
		"g.jsonl:8: relevant[0]: grade -1",
		`g.jsonl:9: relevant[0]: sourcePath "/etc/passwd"`,
		`g.jsonl:10: unknown scope "wiki"`,
		"g.jsonl:11: more than one JSON value",
		"g.jsonl:12: query:",
		`g.jsonl:13: relevant[0]: "headingPath" belongs to a file citation`,
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("error lacks %q:\n%s", want, msg)
		}
	}
	if strings.Contains(msg, "g.jsonl:1:") {
		t.Errorf("line 1 is fine but reported:\n%s", msg)
	}
}

func TestParseGoldenEmpty(t *testing.T) {
	if _, err := ParseGolden(strings.NewReader("\n\n"), "empty.jsonl"); err == nil || !strings.Contains(err.Error(), "no query") {
		t.Errorf("empty golden set: %v", err)
	}
	if _, err := ReadGoldenFile("/nonexistent/golden.jsonl"); err == nil || !strings.Contains(err.Error(), "/nonexistent/golden.jsonl") {
		t.Errorf("missing file: %v", err)
	}
}
