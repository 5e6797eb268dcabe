package daemon

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// checkText refuses the text encoding/json would repair without a word:
// raw bytes that are not UTF-8 and \u escapes of lone UTF-16 surrogates
// both decode as U+FFFD, so two distinct ids would collide as one. It names
// the field (events[0].id); a body that is not well-formed JSON is left to
// the decoder, which says where.
func checkText(body []byte) error {
	if utf8.Valid(body) && !bytes.Contains(body, []byte(`\ud`)) && !bytes.Contains(body, []byte(`\uD`)) {
		return nil // the common case: nothing to look at
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	var stack []jsonFrame
	var start int64
	for {
		tok, err := dec.Token()
		if err != nil {
			return nil
		}
		end := dec.InputOffset()
		raw := body[start:end]
		start = end
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, jsonFrame{object: true, wantKey: true})
			case '[':
				stack = append(stack, jsonFrame{})
			default:
				stack = stack[:len(stack)-1]
				valueDone(stack)
			}
			continue
		case string:
			key := len(stack) > 0 && stack[len(stack)-1].wantKey
			if key {
				stack[len(stack)-1].name = t
			}
			if problem := textProblem(raw); problem != "" {
				if len(stack) == 0 {
					return badRequest("request body: %s", problem)
				}
				return badRequest("request body: field %q: %s", jsonPath(stack), problem)
			}
			if key {
				stack[len(stack)-1].wantKey = false
				continue
			}
		}
		valueDone(stack)
	}
}

// jsonFrame is an object or array being read by checkText.
type jsonFrame struct {
	object  bool
	wantKey bool   // an object's next string is a key
	name    string // an object's current key
	index   int    // an array's current element
}

// valueDone moves the innermost container past the value just read.
func valueDone(stack []jsonFrame) {
	if len(stack) == 0 {
		return
	}
	f := &stack[len(stack)-1]
	if f.object {
		f.wantKey = true
	} else {
		f.index++
	}
}

// jsonPath names the current field: events[0].id.
func jsonPath(stack []jsonFrame) string {
	var b strings.Builder
	for _, f := range stack {
		switch {
		case f.object && b.Len() > 0:
			b.WriteString("." + f.name)
		case f.object:
			b.WriteString(f.name)
		default:
			fmt.Fprintf(&b, "[%d]", f.index)
		}
	}
	return b.String()
}

// textProblem says what is wrong with the raw bytes of a JSON string token
// (with the delimiters before it), or "".
func textProblem(raw []byte) string {
	if !utf8.Valid(raw) {
		return "invalid UTF-8 (send text as UTF-8)"
	}
	for i := 0; i < len(raw); i++ {
		if raw[i] != '\\' {
			continue
		}
		if i+6 > len(raw) || raw[i+1] != 'u' {
			i++ // an escaped character other than \u
			continue
		}
		r := hex4(raw[i+2 : i+6])
		switch {
		case r >= 0xD800 && r < 0xDC00:
			// A high surrogate must come with a low one.
			if i+12 <= len(raw) && raw[i+6] == '\\' && raw[i+7] == 'u' {
				if lo := hex4(raw[i+8 : i+12]); lo >= 0xDC00 && lo < 0xE000 {
					i += 11
					continue
				}
			}
			return `lone UTF-16 surrogate \u` + strings.ToLower(string(raw[i+2:i+6])) + " (escape a character outside the BMP as a surrogate pair)"
		case r >= 0xDC00 && r < 0xE000:
			return `lone UTF-16 surrogate \u` + strings.ToLower(string(raw[i+2:i+6])) + " (escape a character outside the BMP as a surrogate pair)"
		}
		i += 5
	}
	return ""
}

// hex4 reads four hex digits, -1 if they are not.
func hex4(b []byte) int {
	n, err := strconv.ParseUint(string(b), 16, 16)
	if err != nil {
		return -1
	}
	return int(n)
}
