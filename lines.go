package ragd

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// ReadLine appends the next line of br to buf, without its ending (LF or
// CRLF), for every reader of a file line by line: event files, JSON-lines
// transcripts, golden sets. size is the line's length in the input, ending
// included, so a caller can keep its offset. A line longer than max bytes
// is read to its end and dropped (line empty, tooLong set): one bad line
// costs bounded memory and does not end the file. terminated is false for
// a last line without LF, which is still a line. It returns io.EOF only
// when no line is left.
func ReadLine(br *bufio.Reader, buf []byte, max int) (line []byte, size int, tooLong, terminated bool, err error) {
	for {
		frag, err := br.ReadSlice('\n')
		size += len(frag)
		if !tooLong {
			// +2 leaves room for the CRLF trimmed below.
			if len(buf)+len(frag) > max+2 {
				tooLong, buf = true, buf[:0]
			} else {
				buf = append(buf, frag...)
			}
		}
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && size > 0:
			if buf = bytes.TrimSuffix(buf, []byte("\r")); len(buf) > max {
				return buf[:0], size, true, false, nil
			}
			return buf, size, tooLong, false, nil
		case err != nil:
			return buf, size, false, false, err
		}
		buf = bytes.TrimSuffix(buf, []byte("\n"))
		buf = bytes.TrimSuffix(buf, []byte("\r"))
		if len(buf) > max {
			return buf[:0], size, true, true, nil
		}
		return buf, size, tooLong, true, nil
	}
}
