//go:build !amd64

package local

var hasAVX2FMA = false
