package api

// The wire form of the domain's types: each From function returns a
// domain value (package ragd) as the socket sends it. They copy, and decide
// nothing: what a value says is the domain's.

// fromEach converts a list, keeping a nil list nil and an empty one empty:
// the wire says null or [] as the domain had it.
func fromEach[D, W any](in []D, from func(D) W) []W {
	if in == nil {
		return nil
	}
	out := make([]W, 0, len(in))
	for _, v := range in {
		out = append(out, from(v))
	}
	return out
}

// fromPtr converts a pointer, keeping nil nil.
func fromPtr[D, W any](in *D, from func(D) W) *W {
	if in == nil {
		return nil
	}
	out := from(*in)
	return &out
}
