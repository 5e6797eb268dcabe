package model

import (
	"fmt"
	"slices"
)

// Kernels returns the names of the kernels this build and CPU run, the
// slowest ("go") first and the one Load picks last.
func Kernels() []string { return kernelNames[:bestKernel+1] }

// LoadKernel is Load with the named kernel (one of Kernels): tests and
// benchmarks compare them in one process.
func LoadKernel(dir, name string) (*Model, error) {
	k := slices.Index(Kernels(), name)
	if k < 0 {
		return nil, fmt.Errorf("kernel %q: this build and CPU run %v", name, Kernels())
	}
	return load(dir, kernel(k))
}
