package ragd

import (
	"bufio"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestReadLine(t *testing.T) {
	type line struct {
		text           string
		size           int
		tooLong, ended bool
	}
	for _, tc := range []struct {
		in   string
		max  int
		want []line
	}{
		{"a\nbb\r\nccc", 8, []line{{"a", 2, false, true}, {"bb", 4, false, true}, {"ccc", 3, false, false}}},
		{"12345678\n123456789\nok\n", 8, []line{{"12345678", 9, false, true}, {"", 10, true, true}, {"ok", 3, false, true}}},
		{"\n\r\n", 8, []line{{"", 1, false, true}, {"", 2, false, true}}},
		{"last\r", 8, []line{{"last", 5, false, false}}},
		{"", 8, nil},
	} {
		br := bufio.NewReaderSize(strings.NewReader(tc.in), 16)
		var got []line
		for {
			l, size, tooLong, ended, err := ReadLine(br, nil, tc.max)
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%q: %v", tc.in, err)
			}
			got = append(got, line{string(l), size, tooLong, ended})
		}
		if len(got) != len(tc.want) {
			t.Fatalf("%q: lines %+v, want %+v", tc.in, got, tc.want)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("%q line %d: %+v, want %+v", tc.in, i+1, got[i], tc.want[i])
			}
		}
	}
}
