//go:build !unix

package vector

import "time"

// processCPU is unknown off unix: build rates per CPU second are not
// reported there.
func processCPU() time.Duration { return 0 }
