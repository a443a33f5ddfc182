//go:build !unix

package index

import "os"

// lockScratch takes no lock where flock is not available: such scratch
// directories are removed at Close only.
func lockScratch(string) (*os.File, error) { return nil, nil }

// claimScratch claims nothing where flock is not available.
func claimScratch(string) (func(), bool) { return nil, false }
