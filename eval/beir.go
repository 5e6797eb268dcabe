package eval

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/ragd/ragd/search"
)

// BEIR is a folder in the BEIR layout, read for evaluation: a corpus
// (corpus.jsonl or corpus.jsonl.gz: {"_id", "title", "text"} lines), queries
// (queries.jsonl or queries-SPLIT.jsonl: {"_id", "text"} lines) and
// relevance judgments (qrels/SPLIT.tsv, qrels-SPLIT.tsv or qrels.tsv:
// query-id, corpus-id, score; an optional header line; TREC's four-column
// form query-id 0 corpus-id score is read too).
type BEIR struct {
	Dir string
	// Name is the folder's base name; Split the split read ("" when the
	// file names carry none).
	Name, Split string
	// Corpus, Queries and Qrels are the files read.
	Corpus, Queries, Qrels string
	// Docs counts the corpus documents; CorpusSHA256 identifies the corpus
	// file, so that an index built from it is reused only for it.
	Docs         int
	CorpusSHA256 string
	// Set holds the judged queries: those with at least one judgment, in
	// the order of the queries file, each citing documents (UnitDocument).
	Set    *Set
	Report BEIRReport
}

// BEIRReport counts what the files held and what was left out.
type BEIRReport struct {
	// Queries in the queries file; Evaluated of them have a judgment;
	// WithoutQrels have none and are not evaluated (BEIR's convention).
	Queries      int `json:"queries"`
	Evaluated    int `json:"evaluated"`
	WithoutQrels int `json:"withoutQrels"`
	// Skipped are queries ragd refuses (e.g. longer than its 1000
	// characters); they are not evaluated.
	Skipped []string `json:"skipped,omitempty"`
	// Qrels counts judgment lines; NotRelevant those with a score ≤ 0;
	// Duplicates repeated (query, document) pairs (the highest score
	// counts).
	Qrels       int `json:"qrels"`
	NotRelevant int `json:"notRelevant"`
	Duplicates  int `json:"duplicates"`
	// UnknownQueries counts qrels lines naming a query not in the queries
	// file (ignored); UnknownDocs those naming a document not in the corpus
	// (unresolvable). The ids list the first few.
	UnknownQueries   int      `json:"unknownQueries"`
	UnknownQueryIDs  []string `json:"unknownQueryIds,omitempty"`
	UnknownDocs      int      `json:"unknownDocs"`
	UnknownDocIDs    []string `json:"unknownDocIds,omitempty"`
	RelevantJudgment int      `json:"relevant"`
}

// maxListedIDs bounds the ids a report lists.
const maxListedIDs = 10

// LoadBEIR reads the BEIR folder dir. split chooses among several query
// and qrels files ("train", "test"…); "" takes the only one there is. A
// missing file is an error naming what was looked for; so is a malformed
// line (file:line), a repeated query id (with both lines) or a corpus
// document without an id. Judgments naming unknown queries or documents
// are counted in Report, with warnings in Set.
func LoadBEIR(dir, split string) (*BEIR, error) {
	b := &BEIR{Dir: dir, Name: filepath.Base(filepath.Clean(dir)), Split: split}
	if fi, err := os.Stat(dir); err != nil {
		return nil, fmt.Errorf("BEIR folder: %w", err)
	} else if !fi.IsDir() {
		return nil, fmt.Errorf("BEIR folder %s: not a directory", dir)
	}
	if err := b.find(); err != nil {
		return nil, err
	}
	docs, err := b.readCorpus()
	if err != nil {
		return nil, err
	}
	queries, order, err := b.readQueries()
	if err != nil {
		return nil, err
	}
	qrels, err := b.readQrels(queries, docs)
	if err != nil {
		return nil, err
	}
	b.Set = &Set{Name: "BEIR " + b.Name}
	if b.Split != "" {
		b.Set.Name += " (" + b.Split + ")"
	}
	for _, id := range order {
		judged, ok := qrels[id]
		if !ok {
			b.Report.WithoutQrels++
			continue
		}
		q := queries[id]
		if _, err := search.ParseQuery(q.Text); err != nil {
			b.Report.Skipped = append(b.Report.Skipped, id)
			b.Set.Warnings = append(b.Set.Warnings, fmt.Sprintf("%s: query %s skipped: %v", q.Origin, id, err))
			continue
		}
		for _, doc := range slices.Sorted(maps.Keys(judged)) {
			c := Citation{DocID: doc, Grade: judged[doc]}
			if !docs[doc] {
				q.Unresolvable = append(q.Unresolvable, Unresolved{Citation: c, Reason: "not in the corpus"})
				continue
			}
			q.Relevant = append(q.Relevant, c)
		}
		b.Report.Evaluated++
		b.Set.Queries = append(b.Set.Queries, q)
	}
	if b.Report.UnknownQueries > 0 {
		b.Set.Warnings = append(b.Set.Warnings, fmt.Sprintf("%s: %d judgments name queries not in %s (ignored), e.g. %s",
			filepath.Base(b.Qrels), b.Report.UnknownQueries, filepath.Base(b.Queries), strings.Join(b.Report.UnknownQueryIDs, ", ")))
	}
	if b.Report.UnknownDocs > 0 {
		b.Set.Warnings = append(b.Set.Warnings, fmt.Sprintf("%s: %d judgments name documents not in %s (unresolvable, counted apart), e.g. %s",
			filepath.Base(b.Qrels), b.Report.UnknownDocs, filepath.Base(b.Corpus), strings.Join(b.Report.UnknownDocIDs, ", ")))
	}
	if len(b.Set.Queries) == 0 {
		return nil, fmt.Errorf("BEIR folder %s: no query of %s has a judgment in %s", dir, filepath.Base(b.Queries), filepath.Base(b.Qrels))
	}
	return b, nil
}

// find locates the three files.
func (b *BEIR) find() error {
	exists := func(name string) bool {
		fi, err := os.Stat(filepath.Join(b.Dir, name))
		return err == nil && fi.Mode().IsRegular()
	}
	first := func(names ...string) string {
		for _, n := range names {
			if exists(n) {
				return filepath.Join(b.Dir, n)
			}
		}
		return ""
	}
	missing := func(what string, names ...string) error {
		return fmt.Errorf("BEIR folder %s: missing %s: looked for %s", b.Dir, what, strings.Join(names, ", "))
	}

	b.Corpus = first("corpus.jsonl", "corpus.jsonl.gz")
	if b.Corpus == "" {
		return missing("the corpus", "corpus.jsonl", "corpus.jsonl.gz")
	}

	if b.Split != "" {
		names := []string{"queries-" + b.Split + ".jsonl", "queries.jsonl"}
		if b.Queries = first(names...); b.Queries == "" {
			return missing("the queries", names...)
		}
		names = []string{"qrels/" + b.Split + ".tsv", "qrels-" + b.Split + ".tsv"}
		if b.Qrels = first(names...); b.Qrels == "" {
			return missing("the judgments of split "+b.Split, names...)
		}
		return nil
	}

	splits := func(pattern, prefix, suffix string) ([]string, error) {
		matches, err := filepath.Glob(filepath.Join(b.Dir, pattern))
		if err != nil {
			return nil, err
		}
		var out []string
		for _, m := range matches {
			rel, _ := filepath.Rel(b.Dir, m)
			rel = filepath.ToSlash(rel)
			out = append(out, strings.TrimSuffix(strings.TrimPrefix(rel, prefix), suffix))
		}
		return out, nil
	}
	qsplits, err := splits("queries-*.jsonl", "queries-", ".jsonl")
	if err != nil {
		return fmt.Errorf("BEIR folder %s: %w", b.Dir, err)
	}
	if exists("queries.jsonl") {
		b.Queries = filepath.Join(b.Dir, "queries.jsonl")
	} else {
		switch len(qsplits) {
		case 0:
			return missing("the queries", "queries.jsonl", "queries-SPLIT.jsonl")
		case 1:
			b.Split = qsplits[0]
			b.Queries = filepath.Join(b.Dir, "queries-"+b.Split+".jsonl")
		default:
			return fmt.Errorf("BEIR folder %s: several query files (splits %s): choose one with --split", b.Dir, strings.Join(qsplits, ", "))
		}
	}
	if b.Split != "" {
		names := []string{"qrels/" + b.Split + ".tsv", "qrels-" + b.Split + ".tsv"}
		if b.Qrels = first(names...); b.Qrels == "" {
			return missing("the judgments of split "+b.Split, names...)
		}
		return nil
	}
	if b.Qrels = first("qrels.tsv"); b.Qrels != "" {
		return nil
	}
	a, err := splits("qrels-*.tsv", "qrels-", ".tsv")
	if err != nil {
		return fmt.Errorf("BEIR folder %s: %w", b.Dir, err)
	}
	c, err := splits("qrels/*.tsv", "qrels/", ".tsv")
	if err != nil {
		return fmt.Errorf("BEIR folder %s: %w", b.Dir, err)
	}
	switch all := append(a, c...); len(all) {
	case 0:
		return missing("the judgments", "qrels.tsv", "qrels-SPLIT.tsv", "qrels/SPLIT.tsv")
	case 1:
		b.Split = all[0]
		if len(a) == 1 {
			b.Qrels = filepath.Join(b.Dir, "qrels-"+b.Split+".tsv")
		} else {
			b.Qrels = filepath.Join(b.Dir, "qrels", b.Split+".tsv")
		}
	default:
		return fmt.Errorf("BEIR folder %s: judgments of several splits (%s): choose one with --split", b.Dir, strings.Join(all, ", "))
	}
	return nil
}

// OpenCorpus opens the corpus file as it is, gzip or not: WriteBEIRRepo
// reads both.
func (b *BEIR) OpenCorpus() (io.ReadCloser, error) {
	f, err := os.Open(b.Corpus)
	if err != nil {
		return nil, fmt.Errorf("BEIR corpus: %w", err)
	}
	return f, nil
}

// readCorpus reads the documents' ids and hashes the file.
func (b *BEIR) readCorpus() (map[string]bool, error) {
	f, err := os.Open(b.Corpus)
	if err != nil {
		return nil, fmt.Errorf("BEIR corpus: %w", err)
	}
	defer f.Close()
	h := sha256.New()
	tee := io.TeeReader(f, h)
	in, closeIn, err := gunzipped(tee)
	if err != nil {
		return nil, fmt.Errorf("BEIR corpus %s: %w", b.Corpus, err)
	}
	defer closeIn()
	docs := map[string]bool{}
	dec := json.NewDecoder(in)
	for n := 1; ; n++ {
		var d struct {
			ID string `json:"_id"`
		}
		err := dec.Decode(&d)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("BEIR corpus %s: document %d: %w", b.Corpus, n, err)
		}
		if d.ID == "" {
			return nil, fmt.Errorf("BEIR corpus %s: document %d has no \"_id\"", b.Corpus, n)
		}
		if docs[d.ID] {
			return nil, fmt.Errorf("BEIR corpus %s: document %d: repeated _id %q", b.Corpus, n, d.ID)
		}
		docs[d.ID] = true
	}
	// Hash the whole file, with whatever the decoder left unread.
	if _, err := io.Copy(io.Discard, tee); err != nil {
		return nil, fmt.Errorf("BEIR corpus %s: %w", b.Corpus, err)
	}
	if len(docs) == 0 {
		return nil, fmt.Errorf("BEIR corpus %s: no document", b.Corpus)
	}
	b.Docs = len(docs)
	b.CorpusSHA256 = hex.EncodeToString(h.Sum(nil))
	return docs, nil
}

// readQueries reads the queries file: every id once.
func (b *BEIR) readQueries() (map[string]*Query, []string, error) {
	f, err := os.Open(b.Queries)
	if err != nil {
		return nil, nil, fmt.Errorf("BEIR queries: %w", err)
	}
	defer f.Close()
	name := filepath.Base(b.Queries)
	le := &lineErrors{name: b.Queries}
	queries := map[string]*Query{}
	lines := map[string]int{}
	var order []string
	br := bufio.NewReaderSize(f, 64<<10)
	for n := 1; ; n++ {
		raw, tooLong, err := readLine(br, maxGoldenLine)
		if tooLong {
			le.add(n, "line longer than %d bytes", maxGoldenLine)
		} else if line := bytes.TrimSpace(raw); len(line) > 0 {
			var q struct {
				ID   json.RawMessage `json:"_id"`
				Text *string         `json:"text"`
			}
			var id string
			switch err := json.Unmarshal(line, &q); {
			case err != nil:
				le.add(n, "not a JSON object: %v", err)
			case json.Unmarshal(q.ID, &id) != nil && !numberID(q.ID, &id), id == "":
				le.add(n, `missing "_id"`)
			case q.Text == nil || strings.TrimSpace(*q.Text) == "":
				le.add(n, `query %s: missing "text"`, id)
			case lines[id] > 0:
				le.add(n, "duplicate query id %q (first on line %d)", id, lines[id])
			default:
				lines[id] = n
				order = append(order, id)
				queries[id] = &Query{ID: id, Text: strings.TrimSpace(*q.Text), Origin: fmt.Sprintf("%s:%d", name, n), Unit: UnitDocument}
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("BEIR queries %s: line %d: %w", b.Queries, n, err)
		}
	}
	if err := le.err(); err != nil {
		return nil, nil, err
	}
	b.Report.Queries = len(order)
	return queries, order, nil
}

// numberID reads a numeric JSON id.
func numberID(raw json.RawMessage, id *string) bool {
	var num json.Number
	if json.Unmarshal(raw, &num) != nil {
		return false
	}
	*id = num.String()
	return true
}

// readQrels reads the judgments: query id → document id → grade (> 0).
func (b *BEIR) readQrels(queries map[string]*Query, docs map[string]bool) (map[string]map[string]int, error) {
	f, err := os.Open(b.Qrels)
	if err != nil {
		return nil, fmt.Errorf("BEIR judgments: %w", err)
	}
	defer f.Close()
	le := &lineErrors{name: b.Qrels}
	out := map[string]map[string]int{}
	unknownQ, unknownD := map[string]bool{}, map[string]bool{}
	br := bufio.NewReaderSize(f, 64<<10)
	for n := 1; ; n++ {
		raw, tooLong, err := readLine(br, maxGoldenLine)
		line := strings.TrimSpace(string(raw))
		switch {
		case tooLong:
			le.add(n, "line longer than %d bytes", maxGoldenLine)
		case line == "":
		default:
			fields := strings.Split(line, "\t")
			if len(fields) == 1 {
				fields = strings.Fields(line)
			}
			var qid, did, grade string
			switch len(fields) {
			case 3:
				qid, did, grade = fields[0], fields[1], fields[2]
			case 4:
				qid, did, grade = fields[0], fields[2], fields[3]
			default:
				le.add(n, "want query-id, corpus-id and score separated by tabs, got %d fields", len(fields))
				break
			}
			if qid == "" && did == "" && grade == "" {
				break
			}
			score, perr := strconv.Atoi(strings.TrimSpace(grade))
			if perr != nil {
				if n == 1 {
					break // a header line: query-id corpus-id score
				}
				le.add(n, "score %q: want an integer", grade)
				break
			}
			qid, did = strings.TrimSpace(qid), strings.TrimSpace(did)
			b.Report.Qrels++
			if queries[qid] == nil {
				b.Report.UnknownQueries++
				if !unknownQ[qid] && len(b.Report.UnknownQueryIDs) < maxListedIDs {
					b.Report.UnknownQueryIDs = append(b.Report.UnknownQueryIDs, qid)
				}
				unknownQ[qid] = true
				break
			}
			if score <= 0 {
				b.Report.NotRelevant++
				if out[qid] == nil {
					out[qid] = map[string]int{} // judged, nothing relevant
				}
				break
			}
			if !docs[did] {
				b.Report.UnknownDocs++
				if !unknownD[did] && len(b.Report.UnknownDocIDs) < maxListedIDs {
					b.Report.UnknownDocIDs = append(b.Report.UnknownDocIDs, did)
				}
				unknownD[did] = true
			}
			if out[qid] == nil {
				out[qid] = map[string]int{}
			}
			if old, ok := out[qid][did]; ok {
				b.Report.Duplicates++
				score = max(old, score)
			} else {
				b.Report.RelevantJudgment++
			}
			out[qid][did] = score
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("BEIR judgments %s: line %d: %w", b.Qrels, n, err)
		}
	}
	if err := le.err(); err != nil {
		return nil, err
	}
	return out, nil
}

// gzipMagic starts every gzip stream (RFC 1952, ID1 ID2).
var gzipMagic = []byte{0x1f, 0x8b}

// corpusBuffer is the read buffer of a corpus: large reads of a file of
// many short JSON lines.
const corpusBuffer = 64 << 10

// gunzipped returns the bytes of r, decompressed when r starts with gzip's
// magic number, and a func that closes the decompressor. A corpus may come
// either way (corpus.jsonl or corpus.jsonl.gz), whatever its file name says.
func gunzipped(r io.Reader) (io.Reader, func() error, error) {
	br := bufio.NewReaderSize(r, corpusBuffer)
	if magic, _ := br.Peek(len(gzipMagic)); bytes.Equal(magic, gzipMagic) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, nil, err
		}
		return gz, gz.Close, nil
	}
	return br, func() error { return nil }, nil
}
