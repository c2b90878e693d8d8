package main

import (
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/go-logr/logr"
)

// cgroupRoot is where a container sees its own cgroup (cgroup namespaces, the
// default with cgroup v2).
const cgroupRoot = "/sys/fs/cgroup"

// cgroupMemoryLimit reads the memory limit of the cgroup at root: memory.max
// (cgroup v2) or memory/memory.limit_in_bytes (v1). ok=false when there is none
// ("max", v1's near-2^63 "unlimited") or it cannot be read.
func cgroupMemoryLimit(root string) (limit int64, ok bool) {
	for _, f := range []string{"memory.max", filepath.Join("memory", "memory.limit_in_bytes")} {
		b, err := os.ReadFile(filepath.Join(root, f))
		if err != nil {
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		if err != nil || n <= 0 || n >= math.MaxInt64/2 {
			return 0, false
		}
		return n, true
	}
	return 0, false
}

// goMemoryLimit is the Go runtime's soft memory limit for a container limited to
// limit bytes: ratio of it, leaving the rest for what the Go heap does not count
// (stacks, the binary, the kernel's page cache for the certificate files).
func goMemoryLimit(limit int64, ratio float64) int64 {
	return int64(float64(limit) * ratio)
}

// applyMemoryLimit sets the Go runtime's soft memory limit to ratio of the
// container's memory limit, unless GOMEMLIMIT is set or ratio is 0.
//
// Why: the chart gives the pod 256Mi, and the Go collector, which by default lets
// the heap grow to twice what is live, knows nothing of it; with the answer caches
// full (up to 48 MiB), informer caches and a burst of admissions the heap can reach
// the limit and the pod is OOM-killed, while with a soft limit the collector works
// harder as the heap nears it instead.
func applyMemoryLimit(log logr.Logger, root string, ratio float64) {
	if ratio <= 0 || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	limit, ok := cgroupMemoryLimit(root)
	if !ok {
		return
	}
	soft := goMemoryLimit(limit, ratio)
	debug.SetMemoryLimit(soft)
	log.Info("Go memory limit set from the container's", "containerLimitBytes", limit, "goMemLimitBytes", soft)
}
