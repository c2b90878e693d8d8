package kit

import (
	"context"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/meshguard/meshguard/webhook/serving/servingtest"
)

// ChartMemLimit is the GOMEMLIMIT the chart's defaults give the server:
// --memory-limit-ratio 0.9 of resources.limits.memory 256Mi.
const ChartMemLimit = 256 << 20 * 9 / 10

// ChartMemLimitMiB is the pod's memory limit, the RSS goal.
const ChartMemLimitMiB = 256

// Server is a `meshguard serve --offline` process on loopback, started as the
// chart starts it (GOMEMLIMIT at the chart's default).
type Server struct {
	Addr  string
	Roots *x509.CertPool
	Args  []string
	cmd   *exec.Cmd
}

// Build compiles ./cmd/meshguard (run from the repository root) into dir and
// returns the binary's path, for the harnesses that start the server themselves.
func Build(dir string) (string, error) {
	binary := filepath.Join(dir, "meshguard")
	if out, err := exec.Command("go", "build", "-o", binary, "./cmd/meshguard").CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return binary, nil
}

// StartServer starts binary as `serve --offline` with a throw-away certificate
// in dir, plus extra flags, and returns once it is ready.
func StartServer(ctx context.Context, binary, dir string, extra ...string) (*Server, error) {
	roots, err := WriteCerts(dir)
	if err != nil {
		return nil, err
	}
	port, err := servingtest.FreeLoopbackPort()
	if err != nil {
		return nil, err
	}
	probes, err := servingtest.FreeLoopbackPort()
	if err != nil {
		return nil, err
	}
	args := append([]string{"serve", "--offline", "--cert-dir", dir, "--host", "127.0.0.1", "--port", strconv.Itoa(port),
		"--metrics-bind-address", "0", "--health-probe-bind-address", fmt.Sprintf("127.0.0.1:%d", probes), "--log-level", "error"}, extra...)
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(os.Environ(), "GOMEMLIMIT="+strconv.Itoa(ChartMemLimit))
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Server{Addr: fmt.Sprintf("127.0.0.1:%d", port), Roots: roots, Args: args, cmd: cmd}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/readyz", probes))
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return s, nil
			}
		}
		if time.Now().After(deadline) {
			s.Stop()
			return nil, fmt.Errorf("meshguard serve not ready after 60 s")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// Stop interrupts the server and waits for it, at most 10 s before killing it.
func (s *Server) Stop() {
	_ = s.cmd.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

// PeakRSSMiB is the server's VmHWM in MiB.
func (s *Server) PeakRSSMiB() (float64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return float64(kb) / 1024, err
		}
	}
	return 0, fmt.Errorf("no VmHWM in /proc/%d/status", s.cmd.Process.Pid)
}
