package terminal

import (
	"bytes"
	"strings"
	"testing"
)

func TestSafe(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text\twith tab\nand line", "plain text\twith tab\nand line"},
		{"docs/\x1b[31mred.md", `docs/\x1b[31mred.md`},
		{"\x1b]52;c;aGk=\a", `\x1b]52;c;aGk=\a`},
		{"\u001b]0;HACKED\u0007", `\x1b]0;HACKED\a`},
		{"csi \u009b2J", `csi \u009b2J`},
		{"bad \xff byte", `bad \xff byte`},
		{"é ✓", "é ✓"},
	} {
		if got := Safe(tc.in); got != tc.want {
			t.Errorf("Safe(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestScreenKeepsColours(t *testing.T) {
	in := "\x1b[1;31mtitle\x1b[0m \x1b[2J\x1b]0;x\a"
	want := "\x1b[1;31mtitle\x1b[0m " + `\x1b[2J\x1b]0;x\a`
	if got := Screen(in); got != want {
		t.Errorf("Screen(%q) = %q, want %q", in, got, want)
	}
}

func TestWriterHoldsASplitCharacter(t *testing.T) {
	var b bytes.Buffer
	w := Writer(&b)
	s := "é \u009b ✓ \x1b[2J"
	for i := 0; i < len(s); i++ {
		if _, err := w.Write([]byte{s[i]}); err != nil {
			t.Fatal(err)
		}
	}
	if want := Safe(s); b.String() != want {
		t.Errorf("byte by byte: %q, want %q", b.String(), want)
	}
	if strings.ContainsRune(b.String(), 0x1b) {
		t.Errorf("ESC written raw: %q", b.String())
	}
}
