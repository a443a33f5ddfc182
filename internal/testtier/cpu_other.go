//go:build !unix

package testtier

import "testing"

// CPU reports nothing where getrusage is not available (the benchmarks
// still report wall time).
func CPU(b *testing.B) func() { return func() {} }
