package kit

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
)

// Machine is the line every report starts with: the Go version, the platform and
// the CPUs the measurement ran on, so that two reports say whether they compare.
func Machine() string {
	return fmt.Sprintf("%s %s/%s, NumCPU %d", runtime.Version(), runtime.GOOS, runtime.GOARCH, runtime.NumCPU())
}

// WriteJSON writes a report as indented JSON, as every measurement's -json does.
func WriteJSON(w io.Writer, report any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(report)
}

// LoadAverage is the machine's 1, 5 and 15 minute load averages ("unknown" where
// /proc/loadavg cannot be read): docs/performance.md records it with every figure.
func LoadAverage() string {
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		if fs := strings.Fields(string(b)); len(fs) >= 3 {
			return strings.Join(fs[:3], " ")
		}
	}
	return "unknown"
}
