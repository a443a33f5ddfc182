//go:build !race

package testtier

const raceEnabled = false
