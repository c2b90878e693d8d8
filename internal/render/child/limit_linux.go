package child

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// limitAddressSpace caps this process's address space at what it uses now
// plus budget (RLIMIT_AS). The Go runtime then fails an allocation past the
// budget with a fatal "out of memory" instead of growing until the machine
// swaps or the OOM killer picks a victim.
func limitAddressSpace(budget int64) error {
	now, err := vmSize()
	if err != nil {
		return err
	}
	limit := uint64(now + budget)
	return syscall.Setrlimit(syscall.RLIMIT_AS, &syscall.Rlimit{Cur: limit, Max: limit})
}

// vmSize is this process's virtual memory size in bytes (/proc/self/status).
func vmSize() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	s := bufio.NewScanner(f)
	for s.Scan() {
		if rest, ok := strings.CutPrefix(s.Text(), "VmSize:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err != nil {
				return 0, err
			}
			return kb << 10, nil
		}
	}
	return 0, fmt.Errorf("no VmSize in /proc/self/status")
}
