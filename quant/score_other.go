//go:build !amd64

package quant

const hasAVX2FMA = false

func mse4Dot(p []byte, even, odd, cent []float32) float32 {
	return mse4DotGeneric(p, even, odd, cent)
}
