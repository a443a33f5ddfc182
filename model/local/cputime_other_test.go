//go:build !unix

package local

import "time"

// processCPU is unknown off unix: rates per CPU second are not
// reported there.
func processCPU() time.Duration { return 0 }
