//go:build !amd64

package vector

func dot(a, b []float32) float32  { return dotGeneric(a, b) }
func l2sq(a, b []float32) float32 { return l2sqGeneric(a, b) }

func prefetch(*float32) {}
