package localcp

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/meshguard/meshguard/webhook/serving/servingtest"
)

// Namespace and names the chart gives a release called "meshguard"; meshguard serve's
// defaults match them.
const (
	ReleaseNamespace = "meshguard-system"
	ReleaseName      = "meshguard"
)

// BuildMeshguard compiles the meshguard binary into dir and returns its path.
func BuildMeshguard(dir string) (string, error) {
	root, err := RepoRoot()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "meshguard")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/meshguard")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build ./cmd/meshguard: %v\n%s", err, out)
	}
	return bin, nil
}

// Meshguard is a `meshguard serve` process running outside the cluster, the way the
// e2e suite and the demo run it: rotated certificates synced to a local directory.
type Meshguard struct {
	Bin, Kubeconfig  string
	Port, ProbePort  int
	MetricsPort      int
	CertDir, LogPath string
	Args             []string
	cmd              *exec.Cmd
	done             chan error
	log              *os.File
}

// URL is what the chart's webhook.url value must be for this process.
// The host is localhost: cert-controller puts extra names into DNS SANs only, so an
// IP address in the URL would not match the certificate.
func (m *Meshguard) URL() string { return fmt.Sprintf("https://localhost:%d", m.Port) }

// Backend is this process as a Balancer backend: its webhook port, health-checked
// on /readyz.
func (m *Meshguard) Backend() *Backend {
	return &Backend{Addr: fmt.Sprintf("127.0.0.1:%d", m.Port), ReadyURL: fmt.Sprintf("http://127.0.0.1:%d/readyz", m.ProbePort)}
}

// NewMeshguard prepares ports and directories; Start runs it.
func NewMeshguard(bin, kubeconfig, dir string, extraArgs ...string) (*Meshguard, error) {
	m := &Meshguard{Bin: bin, Kubeconfig: kubeconfig, CertDir: filepath.Join(dir, "certs"), LogPath: filepath.Join(dir, "meshguard.log"), Args: extraArgs}
	var err error
	for _, p := range []*int{&m.Port, &m.ProbePort, &m.MetricsPort} {
		if *p, err = servingtest.FreeLoopbackPort(); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// Start launches the process (logs appended to LogPath).
func (m *Meshguard) Start() error {
	f, err := os.OpenFile(m.LogPath, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	args := append([]string{"serve",
		"--kubeconfig", m.Kubeconfig,
		"--port", fmt.Sprint(m.Port), "--host", "127.0.0.1",
		"--health-probe-bind-address", fmt.Sprintf("127.0.0.1:%d", m.ProbePort),
		// Plain HTTP, asked for: the suite reads the counters without a token
		// (TestMetricsNeedATokenAndTheReaderRole starts a secure one).
		"--metrics-bind-address", fmt.Sprintf("127.0.0.1:%d", m.MetricsPort), "--metrics-secure=false",
		"--cert-dir", m.CertDir, "--sync-cert-dir",
		"--secret-namespace", ReleaseNamespace,
		"--cert-dns-name", "localhost",
		"--shutdown-timeout", "10s",
	}, m.Args...)
	m.cmd = exec.Command(m.Bin, args...)
	m.cmd.Stdout, m.cmd.Stderr = f, f
	// Its own process group, so an interrupted test or demo never leaves it behind.
	m.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := m.cmd.Start(); err != nil {
		f.Close()
		return err
	}
	m.log = f
	m.done = make(chan error, 1)
	go func() { m.done <- m.cmd.Wait() }()
	return nil
}

// WaitReady waits until /readyz answers 200: certificates ready, handlers registered.
func (m *Meshguard) WaitReady(ctx context.Context) error {
	url := fmt.Sprintf("http://127.0.0.1:%d/readyz", m.ProbePort)
	return WaitFor(ctx, 200*time.Millisecond, func() (bool, error) {
		select {
		case err := <-m.done:
			m.done <- err
			return false, fmt.Errorf("meshguard exited: %v (see %s)", err, m.LogPath)
		default:
		}
		resp, err := http.Get(url)
		if err != nil {
			return false, err
		}
		defer resp.Body.Close()
		_, _ = io.Copy(io.Discard, resp.Body)
		return resp.StatusCode == http.StatusOK, nil
	})
}

// Stop sends SIGTERM (graceful shutdown) and waits, killing after timeout.
func (m *Meshguard) Stop(timeout time.Duration) error {
	if m.cmd == nil || m.cmd.Process == nil {
		return nil
	}
	defer func() {
		if m.log != nil {
			m.log.Close()
		}
	}()
	_ = m.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-m.done:
		m.cmd = nil
		return exitErr(err)
	case <-time.After(timeout):
		_ = syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
		<-m.done
		m.cmd = nil
		return fmt.Errorf("meshguard did not stop within %s; killed", timeout)
	}
}

// Kill ends the process at once, as a crash or an OOM kill would.
func (m *Meshguard) Kill() {
	if m.cmd == nil || m.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-m.cmd.Process.Pid, syscall.SIGKILL)
	<-m.done
	m.cmd = nil
	if m.log != nil {
		m.log.Close()
	}
}

func exitErr(err error) error {
	if err == nil {
		return nil
	}
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 0 {
		return nil
	}
	return err
}
