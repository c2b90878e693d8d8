//go:build !linux

package child

// limitAddressSpace does nothing outside Linux: RLIMIT_AS is not enforced
// everywhere (macOS ignores it), so meshguard-render there is bounded only by
// the Go memory limit it sets, the deadline and the output cap.
func limitAddressSpace(budget int64) error { return nil }
