// Package child is the renderer meshguard runs as a separate executable,
// meshguard-render: the Helm renders and kustomize builds of one meshguard run,
// one request after the other on standard input (a JSON line each), under the
// memory limit the first request names, each answered with a JSON line on
// standard output. It is the only package that links Helm and kustomize's
// builder; keeping them out of meshguard keeps their initialisers out of every
// meshguard start, and a Go template that allocates without end can only be
// stopped for sure from outside the process that runs it.
package child

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log"
	"runtime/debug"
	"strings"

	"github.com/meshguard/meshguard/internal/render"
)

// maxLog bounds what a child keeps of the libraries' log lines.
const maxLog = 64 << 10

// maxRequest bounds the request a child reads: options, values and one
// kustomization file, which the loader bounds far below this.
const maxRequest = 256 << 20

// Serve answers render requests from in until it ends: each is one line of
// JSON, rendered in this process, answered with one line of JSON on out, so a
// run with many kustomizations pays for one renderer start, not one per build.
// The first request that names a memory limit sets it for the process
// (meshguard names the same one in every request of a run); meshguard starts a
// new renderer after one is killed for its time, memory or output. The
// libraries' log lines (Go's log package) are captured per request and
// returned with the answer, for meshguard to report as notes, instead of
// reaching standard error in Go's log format. Problems with the stream itself
// go to errOut. It returns the process exit code: 0 at the end of in.
func Serve(in io.Reader, out, errOut io.Writer) int {
	return serve(in, out, errOut, maxRequest)
}

// serve is Serve with the longest request line it reads.
func serve(in io.Reader, out, errOut io.Writer, limit int) int {
	r := bufio.NewReaderSize(in, 64<<10)
	limited := false
	for {
		line, err := render.ReadLine(r, int64(limit))
		if err == io.EOF && len(line) == 0 {
			return 0
		}
		var req render.Request
		switch {
		case err == nil || err == io.EOF:
			err = json.Unmarshal(line, &req)
		case errors.Is(err, render.ErrLineTooLong):
			err = fmt.Errorf("a request line longer than %d bytes", limit)
		}
		if err != nil {
			fmt.Fprintf(errOut, "%s: bad request: %v\n", render.ExecutableName, err)
			return 2
		}
		answer, fatal := serveOne(req, &limited)
		if fatal != nil {
			fmt.Fprintf(errOut, "%s: %v\n", render.ExecutableName, fatal)
			return 2
		}
		if code := encode(out, answer); code != 0 {
			return code
		}
	}
}

// serveOne renders one request. fatal is a problem that ends the process (the
// memory limit cannot be set).
func serveOne(req render.Request, limited *bool) (answer render.Answer, fatal error) {
	answer = render.Answer{Protocol: render.ProtocolVersion}
	switch {
	case req.Protocol != render.ProtocolVersion:
		answer.Err = fmt.Sprintf("%s speaks render protocol %d, the request protocol %d", render.ExecutableName, render.ProtocolVersion, req.Protocol)
		return answer, nil
	case (req.Helm == nil) == (req.Kustomize == nil):
		answer.Err = "a request names exactly one of helm and kustomize"
		return answer, nil
	}
	if req.MaxMemory > 0 && !*limited {
		debug.SetMemoryLimit(req.MaxMemory)
		if err := limitAddressSpace(req.MaxMemory); err != nil {
			return answer, err
		}
		*limited = true
	}
	logs := &render.CappedBuffer{Max: maxLog}
	log.SetOutput(logs)
	log.SetFlags(0)
	if req.Helm != nil {
		res := helmRender(*req.Helm)
		answer.Helm = &res
	} else {
		res := kustomizeBuild(*req.Kustomize)
		answer.Kustomize = &res
	}
	answer.Logs = logLines(logs.String())
	// What one render built is garbage once answered: give it back before the
	// next, so a run's renders share the memory limit one at a time.
	debug.FreeOSMemory()
	return answer, nil
}

func encode(out io.Writer, a render.Answer) int {
	if err := json.NewEncoder(out).Encode(a); err != nil {
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
