package model

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
)

// maxHeader bounds a safetensors header: the format's own limit is 100 MB,
// a BERT checkpoint's header is a few kB.
const maxHeader = 100 << 20

// tensor is one F32 tensor of a checkpoint.
type tensor struct {
	shape []int
	data  []float32
}

// readSafetensors reads every F32 tensor of the safetensors file at path
// (other dtypes, such as BERT's int64 position_ids, are skipped).
func readSafetensors(path string) (map[string]tensor, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read weights: %w", err)
	}
	if len(b) < 8 {
		return nil, fmt.Errorf("weights %s: %d bytes, not a safetensors file", path, len(b))
	}
	n := binary.LittleEndian.Uint64(b[:8])
	if n > maxHeader || 8+n > uint64(len(b)) {
		return nil, fmt.Errorf("weights %s: header of %d bytes in a %d-byte file, not a safetensors file", path, n, len(b))
	}
	var header map[string]json.RawMessage
	if err := json.Unmarshal(b[8:8+n], &header); err != nil {
		return nil, fmt.Errorf("weights %s: header: %w", path, err)
	}
	body := b[8+n:]
	out := make(map[string]tensor, len(header))
	for name, raw := range header {
		if name == "__metadata__" {
			continue
		}
		var t struct {
			Dtype   string   `json:"dtype"`
			Shape   []int    `json:"shape"`
			Offsets [2]int64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(raw, &t); err != nil {
			return nil, fmt.Errorf("weights %s: tensor %q: %w", path, name, err)
		}
		if t.Dtype != "F32" {
			continue
		}
		count := 1
		for _, d := range t.Shape {
			count *= d
		}
		lo, hi := t.Offsets[0], t.Offsets[1]
		if lo < 0 || hi < lo || hi > int64(len(body)) || hi-lo != int64(count)*4 {
			return nil, fmt.Errorf("weights %s: tensor %q: offsets %d..%d do not hold shape %v in %d bytes", path, name, lo, hi, t.Shape, len(body))
		}
		data := make([]float32, count)
		for i := range data {
			data[i] = math.Float32frombits(binary.LittleEndian.Uint32(body[lo+int64(i)*4:]))
		}
		out[name] = tensor{shape: t.Shape, data: data}
	}
	return out, nil
}
