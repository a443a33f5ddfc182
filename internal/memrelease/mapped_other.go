//go:build !linux

package memrelease

// DropMapped does nothing where /proc/self/maps is not available: mapped
// pages stay resident until the kernel reclaims them.
func DropMapped(map[string]bool) (int64, error) { return 0, nil }

// FileResident is 0 where /proc/self/status is not available.
func FileResident() uint64 { return 0 }
