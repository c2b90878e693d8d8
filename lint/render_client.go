package lint

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/meshguard/meshguard/internal/render"
)

// RendererEnv names the environment variable that points meshguard at its
// renderer executable, meshguard-render, when it is neither next to meshguard
// nor on $PATH (the --renderer flag sets the same thing).
const RendererEnv = render.EnvRenderer

// errRenderer wraps what went wrong with the renderer process itself, rather
// than with the chart or kustomization it rendered.
var errRenderer = errors.New(render.ExecutableName)

// FindRenderer finds meshguard-render: $MESHGUARD_RENDERER when set, else the
// file of that name next to this executable (symlinks resolved, so a
// kubectl-meshguard link finds the renderer beside its target), else $PATH.
// Every Helm render and kustomize build runs there; plain YAML needs none.
func FindRenderer() (string, error) {
	if p := os.Getenv(RendererEnv); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Errorf("$%s=%s: %v", RendererEnv, p, errText(err))
		}
		return p, nil
	}
	name := render.ExecutableName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	if exe, err := os.Executable(); err == nil {
		if real, err := filepath.EvalSymlinks(exe); err == nil {
			exe = real
		}
		p := filepath.Join(filepath.Dir(exe), name)
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() {
			return p, nil
		}
	}
	p, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("%s is neither next to meshguard nor on $PATH", render.ExecutableName)
	}
	return p, nil
}

// installHint says how to get a renderer that matches this meshguard.
func installHint(version string) string {
	at := version
	if at == "" || at == "devel" {
		at = "latest"
	}
	return fmt.Sprintf("install it with `go install github.com/meshguard/meshguard/cmd/%s@%s` (it ships in the same release archive and container image as meshguard; put it next to meshguard or on $PATH, or name it with --renderer or $%s)",
		render.ExecutableName, at, RendererEnv)
}

// rendererPath finds the renderer once per run.
func (r *renderer) rendererPath() (string, error) {
	if !r.lookedUp {
		r.lookedUp = true
		if r.exe = r.opts.Render.Renderer; r.exe == "" {
			r.exe, r.exeErr = FindRenderer()
		}
	}
	if r.exeErr != nil {
		return "", fmt.Errorf("rendering needs %s, and %v: %s", render.ExecutableName, r.exeErr, installHint(r.opts.Render.Version))
	}
	return r.exe, nil
}

// helm renders one chart in the renderer process, bounded in memory, time
// and output.
func (r *renderer) helm(req render.HelmRequest) render.HelmResult {
	ans, err := r.runChild(render.Request{Helm: &req})
	if err != nil {
		return render.HelmResult{Err: err.Error()}
	}
	if ans.Helm == nil {
		return render.HelmResult{Err: fmt.Sprintf("%v: the answer has no render", errRenderer)}
	}
	res := *ans.Helm
	res.Logs = ans.Logs
	return res
}

// kustomize runs one kustomize build in the renderer process.
func (r *renderer) kustomize(req render.KustomizeRequest) (render.KustomizeResult, error) {
	ans, err := r.runChild(render.Request{Kustomize: &req})
	if err != nil {
		return render.KustomizeResult{}, err
	}
	if ans.Kustomize == nil {
		return render.KustomizeResult{}, fmt.Errorf("%w: the answer has no build", errRenderer)
	}
	return *ans.Kustomize, nil
}

// rendererProc is the run's renderer process: requests go to in, one JSON
// line each, and answers come back on out, one line each.
type rendererProc struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    *bufio.Reader
	stderr *render.CappedBuffer
}

// start starts the run's renderer process.
func (r *renderer) start(exe string) (*rendererProc, error) {
	cmd := exec.Command(exe)
	p := &rendererProc{cmd: cmd, stderr: &render.CappedBuffer{Max: 4 << 10}}
	cmd.Stderr = p.stderr
	cmd.WaitDelay = time.Second
	var err error
	if p.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	p.out = bufio.NewReaderSize(stdout, 64<<10)
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%w (%s): %v; %s", errRenderer, exe, err, installHint(r.opts.Render.Version))
	}
	return p, nil
}

// stop ends the process (at once when kill is set, else once it has read
// the end of its input) and returns how it ended.
func (p *rendererProc) stop(kill bool) error {
	_ = p.in.Close()
	if kill {
		_ = p.cmd.Process.Kill()
	}
	return p.cmd.Wait()
}

// close ends the run's renderer process, if one runs.
func (r *renderer) close() {
	if r.proc != nil {
		_ = r.proc.stop(false)
		r.proc = nil
	}
}

// runChild runs one render in the run's renderer process (started on first
// use) and reads its answer, at most about twice the output bound (JSON
// escapes). At the deadline, or when the answer is larger, the process is
// killed, and so is it when it dies or answers what cannot be read: the next
// render starts a new one. An answer of another protocol version is refused
// with the install hint.
func (r *renderer) runChild(req render.Request) (render.Answer, error) {
	exe, err := r.rendererPath()
	if err != nil {
		return render.Answer{}, err
	}
	req.Protocol, req.MaxMemory = render.ProtocolVersion, r.opts.Render.MaxMemory
	body, err := json.Marshal(req)
	if err != nil {
		return render.Answer{}, err
	}
	if r.proc == nil {
		if r.proc, err = r.start(exe); err != nil {
			return render.Answer{}, err
		}
	}
	p := r.proc
	var timedOut atomic.Bool
	timer := time.AfterFunc(r.timeout, func() { timedOut.Store(true); _ = p.cmd.Process.Kill() })
	maxBytes := r.opts.Render.MaxBytes
	limit := 2*maxBytes + 1<<20
	line, readErr := exchange(p, body, limit)
	// A deadline that fired as the answer arrived has killed (or is killing)
	// the process: keep the answer, not the process.
	stopped := timer.Stop()
	if readErr == nil {
		ans, err := r.readAnswer(exe, line)
		if !stopped || (err != nil && !errors.As(err, new(answeredError))) {
			r.proc = nil
			_ = p.stop(true)
		}
		return ans, err
	}
	r.proc = nil
	waitErr := p.stop(true)
	switch {
	case errors.Is(readErr, render.ErrLineTooLong):
		return render.Answer{}, fmt.Errorf("rendered output is larger than %d bytes (--render-max-bytes)", maxBytes)
	case timedOut.Load():
		return render.Answer{}, fmt.Errorf("timed out after %v (--render-timeout)", r.timeout)
	case waitErr != nil:
		return render.Answer{}, childFailure(waitErr, p.stderr.String(), req.MaxMemory)
	}
	return render.Answer{}, fmt.Errorf("%w: %v", errRenderer, readErr)
}

// exchange writes one request line and reads the answer line, of at most
// limit bytes.
func exchange(p *rendererProc, body []byte, limit int64) ([]byte, error) {
	if _, err := p.in.Write(append(body, '\n')); err != nil {
		return nil, err
	}
	line, err := render.ReadLine(p.out, limit)
	if err == io.EOF {
		return nil, io.ErrUnexpectedEOF // the renderer ended before its answer did
	}
	return line, err
}

// answeredError is a refusal the renderer answered in protocol: the process
// is well and serves the next render.
type answeredError struct{ error }

func (e answeredError) Unwrap() error { return e.error }

// readAnswer decodes the renderer's answer and checks its protocol version.
func (r *renderer) readAnswer(exe string, out []byte) (render.Answer, error) {
	var ans render.Answer
	if err := json.Unmarshal(out, &ans); err != nil {
		return render.Answer{}, fmt.Errorf("%w (%s) gave an unreadable answer (is it meshguard's renderer?): %v; %s", errRenderer, exe, err, installHint(r.opts.Render.Version))
	}
	if ans.Protocol != render.ProtocolVersion {
		return render.Answer{}, fmt.Errorf("%w (%s) speaks render protocol %d, this meshguard %d: its release does not match; %s",
			errRenderer, exe, ans.Protocol, render.ProtocolVersion, installHint(r.opts.Render.Version))
	}
	if ans.Err != "" {
		return render.Answer{}, answeredError{fmt.Errorf("%w (%s): %s", errRenderer, exe, ans.Err)}
	}
	return ans, nil
}

// childFailure says why a renderer process died. The Go runtime's answer to
// an allocation past the address-space limit is "out of memory"; anything
// else is reported by its first line only, never the whole standard error
// (which could quote the input).
func childFailure(err error, stderr string, maxMemory int64) error {
	if strings.Contains(stderr, "out of memory") || strings.Contains(stderr, "cannot allocate memory") {
		return fmt.Errorf("used more than %d MiB of memory (--render-max-memory)", maxMemory>>20)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
	if len(first) > 200 {
		first = first[:200] + "…"
	}
	if first == "" {
		return fmt.Errorf("%w: %v", errRenderer, err)
	}
	return fmt.Errorf("%w: %v: %s", errRenderer, err, first)
}
