package model

// LoadKernel is Load with the named kernel, "go" or the fast one (the test
// fails elsewhere if this CPU cannot run it): tests and benchmarks compare
// the two in one process.
func LoadKernel(dir, kernel string) (*Model, error) { return load(dir, kernel != "go") }

// FastKernel reports whether this build and CPU run the fast kernel.
func FastKernel() bool { return fastKernel }
