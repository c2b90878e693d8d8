package lint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"time"
)

// RenderChildEnv, set to "1" in a process's environment, makes meshguard (or a
// test binary whose TestMain asks) serve one Helm render on its standard input
// and output instead of running normally (ServeRenderChild). A Go template
// that allocates without end can only be stopped for sure from outside the
// process that runs it: the child has a hard address-space limit, the parent a
// deadline and a cap on what it reads back.
const RenderChildEnv = "MESHGUARD_RENDER_CHILD"

// maxChildLog bounds what a child keeps of the Helm libraries' log lines.
const maxChildLog = 64 << 10

// ServeRenderChild reads one render request from in, renders it in this
// process under the request's memory limit, and writes the result to out. The
// Helm libraries' log lines (Go's log package) are captured and returned with
// the result, for the parent to report as notes, instead of reaching standard
// error in Go's log format. It returns the process exit code.
func ServeRenderChild(in io.Reader, out io.Writer) int {
	var req helmRequest
	if err := json.NewDecoder(io.LimitReader(in, 1<<20)).Decode(&req); err != nil {
		fmt.Fprintf(os.Stderr, "meshguard render child: bad request: %v\n", err)
		return 2
	}
	if req.MaxMemory > 0 {
		debug.SetMemoryLimit(req.MaxMemory)
		if err := limitAddressSpace(req.MaxMemory); err != nil {
			fmt.Fprintf(os.Stderr, "meshguard render child: %v\n", err)
			return 2
		}
	}
	logs := &cappedBuffer{max: maxChildLog}
	log.SetOutput(logs)
	log.SetFlags(0)
	res := helmRender(req)
	res.Logs = logLines(logs.String())
	if err := json.NewEncoder(out).Encode(res); err != nil {
		return 2
	}
	return 0
}

// logLines splits captured log output into its non-empty lines.
func logLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// cappedBuffer keeps the first max bytes written to it and drops the rest.
type cappedBuffer struct {
	bytes.Buffer
	max int
}

func (b *cappedBuffer) Write(p []byte) (int, error) {
	if room := b.max - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// helm renders one chart: in a child process when the options name one,
// bounded in memory, time and output; else in this process, bounded in time
// and output only.
func (r *renderer) helm(req helmRequest) helmResult {
	if len(r.opts.Render.Child) == 0 {
		var res helmResult
		if err := r.within(nil, func() error { res = helmRender(req); return nil }); err != nil {
			return helmResult{Err: err.Error()}
		}
		return res
	}
	res, err := runRenderChild(r.opts.Render.Child, req, r.timeout)
	if err != nil {
		return helmResult{Err: err.Error()}
	}
	return res
}

// runRenderChild runs one render in a child process and reads its result, at
// most about twice req.MaxBytes (JSON escapes), killing the child at the
// deadline or when it writes more.
func runRenderChild(command []string, req helmRequest, timeout time.Duration) (helmResult, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return helmResult{}, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Env = append(os.Environ(), RenderChildEnv+"=1")
	cmd.Stdin = bytes.NewReader(body)
	stderr := &cappedBuffer{max: 4 << 10}
	cmd.Stderr = stderr
	cmd.WaitDelay = time.Second
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return helmResult{}, err
	}
	if err := cmd.Start(); err != nil {
		return helmResult{}, fmt.Errorf("%w: %v", errRenderChild, err)
	}
	limit := 2*req.MaxBytes + 1<<20
	out, readErr := io.ReadAll(io.LimitReader(stdout, limit+1))
	tooBig := int64(len(out)) > limit
	if tooBig {
		cancel()
	}
	waitErr := cmd.Wait()
	switch {
	case tooBig:
		return helmResult{}, fmt.Errorf("rendered output is larger than %d bytes (--render-max-bytes)", req.MaxBytes)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return helmResult{}, fmt.Errorf("timed out after %v (--render-timeout)", timeout)
	case waitErr != nil:
		return helmResult{}, childFailure(waitErr, stderr.String(), req.MaxMemory)
	case readErr != nil:
		return helmResult{}, readErr
	}
	var res helmResult
	if err := json.Unmarshal(out, &res); err != nil {
		return helmResult{}, fmt.Errorf("%w: unreadable answer: %v", errRenderChild, err)
	}
	return res, nil
}

// childFailure says why a render child died. The Go runtime's answer to an
// allocation past the address-space limit is "out of memory"; anything else
// is reported by its first line only, never the whole standard error (which
// could quote the input).
func childFailure(err error, stderr string, maxMemory int64) error {
	if strings.Contains(stderr, "out of memory") || strings.Contains(stderr, "cannot allocate memory") {
		return fmt.Errorf("used more than %d MiB of memory (--render-max-memory)", maxMemory>>20)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(stderr), "\n")
	if len(first) > 200 {
		first = first[:200] + "…"
	}
	if first == "" {
		return fmt.Errorf("%w: %v", errRenderChild, err)
	}
	return fmt.Errorf("%w: %v: %s", errRenderChild, err, first)
}
