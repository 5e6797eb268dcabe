package report

import (
	"bytes"
	"cmp"
	"context"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The browser tier: each report rendered by headless Chromium (Debian's
// chromium package, installed by scripts/setup.sh). RAGD_BROWSER_TESTS=1
// (scripts/test.sh sets it) makes a missing browser a failure; otherwise
// the tier skips without one.
//
// The screenshots in docs/ are made by the same code:
//
//	go test ./report -run TestBrowser -screenshots ../docs
var screenshots = flag.String("screenshots", "", "write the sample reports' screenshots (report-*.png) into this folder")

// browserTimeout bounds one Chromium run: a cold start takes about 5 s,
// and a minute on a machine loaded thirty deep.
const browserTimeout = 2 * time.Minute

// screen is the window a report is rendered in: a laptop screen's width,
// tall enough to show each report's first charts.
type screen struct{ w, h int }

func chromium(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("RAGD_BROWSER_TESTS") == "1" {
			t.Fatalf("RAGD_BROWSER_TESTS=1 but chromium is not installed (%v): run scripts/setup.sh", err)
		}
		t.Skip("chromium not installed: the browser tier is skipped (scripts/setup.sh installs it; RAGD_BROWSER_TESTS=1 requires it)")
	}
	return path
}

// consoleLine matches what Chromium logs for a page's console message.
var consoleLine = regexp.MustCompile(`:CONSOLE\(\d+\)\]|:CONSOLE:\d+\]|INFO:CONSOLE`)

// browse runs Chromium on an HTML file with extra arguments (a screenshot
// or a DOM dump) and returns its standard output and the page's console
// messages. It runs on its own goroutine: it reports, never stops the test.
func browse(bin, file, userData string, dark bool, args ...string) (stdout string, console []string, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), browserTimeout)
	defer cancel()
	base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--force-device-scale-factor=1", "--enable-logging=stderr", "--v=0", "--user-data-dir=" + userData}
	if dark {
		base = append(base, "--force-dark-mode", "--blink-settings=preferredColorScheme=0")
	}
	cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+file)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", nil, fmt.Errorf("chromium %v: %w\n%s", args, err, errb.String())
	}
	for _, l := range strings.Split(errb.String(), "\n") {
		if consoleLine.MatchString(l) {
			console = append(console, l)
		}
	}
	return out.String(), console, nil
}

// shot renders html to a PNG of the screen's size and dumps its DOM, and
// checks the picture: the expected size, not blank, and no console message
// (the page has no script: any message is an error, e.g. a blocked load).
func shot(t *testing.T, bin, name string, html []byte, sc screen, dark bool) (image.Image, string, bool) {
	t.Helper()
	dir := t.TempDir()
	page, file := filepath.Join(dir, name+".html"), filepath.Join(dir, name+".png")
	if err := os.WriteFile(page, html, 0o644); err != nil {
		t.Error(err)
		return nil, "", false
	}
	dom, console, err := browse(bin, page, filepath.Join(dir, "profile"), dark,
		"--dump-dom", "--screenshot="+file, "--window-size="+strconv.Itoa(sc.w)+","+strconv.Itoa(sc.h))
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return nil, "", false
	}
	if len(console) > 0 {
		t.Errorf("%s: console messages:\n%s", name, strings.Join(console, "\n"))
	}
	img, err := readPNG(file)
	if err != nil {
		t.Errorf("%s: %v", name, err)
		return nil, "", false
	}
	if b := img.Bounds(); b.Dx() != sc.w || b.Dy() != sc.h {
		t.Errorf("%s: screenshot %dx%d, want %dx%d", name, b.Dx(), b.Dy(), sc.w, sc.h)
	}
	checkDrawn(t, name, img)
	return img, dom, true
}

func readPNG(path string) (image.Image, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return img, nil
}

// checkDrawn fails a blank or nearly blank render: a page of charts has
// many colours and a good share of pixels off the background.
func checkDrawn(t *testing.T, name string, img image.Image) {
	t.Helper()
	b := img.Bounds()
	bg := img.At(b.Min.X, b.Min.Y)
	br, bgc, bb, _ := bg.RGBA()
	colours := map[[3]uint32]bool{}
	off := 0
	for y := b.Min.Y; y < b.Max.Y; y += 2 {
		for x := b.Min.X; x < b.Max.X; x += 2 {
			r, g, bl, _ := img.At(x, y).RGBA()
			colours[[3]uint32{r >> 8, g >> 8, bl >> 8}] = true
			if r != br || g != bgc || bl != bb {
				off++
			}
		}
	}
	share := float64(off) / float64(b.Dx()*b.Dy()/4)
	if len(colours) < 50 || share < 0.04 {
		t.Errorf("%s: looks blank: %d colours, %.1f%% of pixels off the background", name, len(colours), share*100)
	}
}

// luminance of the top-left pixel, 0..255: the page background.
func background(img image.Image) float64 {
	r, g, b, _ := img.At(img.Bounds().Min.X, img.Bounds().Min.Y).RGBA()
	return 0.2126*float64(r>>8) + 0.7152*float64(g>>8) + 0.0722*float64(b>>8)
}

func TestBrowser(t *testing.T) {
	bin := chromium(t)
	pages := []struct {
		name   string
		render func(*bytes.Buffer) error
		sc     screen
		charts int
	}{
		{"report-measure", func(b *bytes.Buffer) error { return MeasureHTML(b, sampleMeasure()) }, screen{1200, 1000}, 4},
		{"report-eval", func(b *bytes.Buffer) error { return EvalHTML(b, sampleEval()) }, screen{1200, 1000}, 3},
		{"report-calibrate", func(b *bytes.Buffer) error { return EvalHTML(b, sampleCalibrate()) }, screen{1200, 990}, 2},
	}
	html := make([][]byte, len(pages))
	for i, p := range pages {
		var b bytes.Buffer
		if err := p.render(&b); err != nil {
			t.Fatal(err)
		}
		html[i] = b.Bytes()
	}
	var hostile bytes.Buffer
	if err := MeasureHTML(&hostile, hostileMeasure()); err != nil {
		t.Fatal(err)
	}
	// Every browser at once: each mostly waits on its own start-up.
	var wg sync.WaitGroup
	for i, p := range pages {
		wg.Add(1)
		go func() {
			defer wg.Done()
			img, dom, ok := shot(t, bin, p.name, html[i], p.sc, false)
			if !ok {
				return
			}
			if l := background(img); l < 200 {
				t.Errorf("%s: light mode background luminance %.0f, want light", p.name, l)
			}
			if n := strings.Count(dom, "<svg"); n != p.charts {
				t.Errorf("%s: %d charts in the DOM, want %d", p.name, n, p.charts)
			}
			if *screenshots != "" {
				writePNG(t, filepath.Join(*screenshots, p.name+".png"), img)
			}
		}()
	}
	// Hostile text, in dark mode: it reaches the DOM as text, and the
	// colours follow prefers-color-scheme.
	wg.Add(1)
	go func() {
		defer wg.Done()
		img, dom, ok := shot(t, bin, "hostile-dark", hostile.Bytes(), screen{900, 700}, true)
		if !ok {
			return
		}
		if l := background(img); l > 60 {
			t.Errorf("dark mode background luminance %.0f, want dark", l)
		}
		checkHostileDOM(t, dom)
	}()
	wg.Wait()
}

// docsColours is the palette size of the committed screenshots: flat
// charts need few colours, and a paletted PNG is a third of the size.
// docsGreys of them are a grey ramp, for the antialiased edges of text.
const (
	docsColours = 256
	docsGreys   = 48
)

// writePNG writes img as a paletted PNG of its most frequent colours (the
// rare antialiasing shades take their nearest): small enough to commit.
func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	b := img.Bounds()
	counts := map[color.RGBA]int{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			counts[color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)]++
		}
	}
	colours := make([]color.RGBA, 0, len(counts))
	for c := range counts {
		colours = append(colours, c)
	}
	slices.SortFunc(colours, func(a, b color.RGBA) int {
		if d := counts[b] - counts[a]; d != 0 {
			return d
		}
		return cmp.Compare(uint32(a.R)<<16|uint32(a.G)<<8|uint32(a.B), uint32(b.R)<<16|uint32(b.G)<<8|uint32(b.B))
	})
	pal := make(color.Palette, 0, docsColours)
	for i := range docsGreys {
		v := uint8(i * 255 / (docsGreys - 1))
		pal = append(pal, color.RGBA{v, v, v, 255})
	}
	for _, c := range colours {
		if len(pal) == docsColours {
			break
		}
		if c.R != c.G || c.G != c.B || !slices.Contains(pal, color.Color(c)) {
			pal = append(pal, c)
		}
	}
	out := image.NewPaletted(b, pal)
	index := map[color.RGBA]uint8{}
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			c := color.RGBAModel.Convert(img.At(x, y)).(color.RGBA)
			i, ok := index[c]
			if !ok {
				i = uint8(pal.Index(c))
				index[c] = i
			}
			out.SetColorIndex(x, y, i)
		}
	}
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&buf, out); err != nil {
		t.Error(err)
		return
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Error(err)
	}
	t.Logf("wrote %s (%d KB)", path, buf.Len()/1024)
}
