// Package child is the renderer meshguard runs as a separate executable,
// meshguard-render: one Helm render or kustomize build per process, read from
// standard input, under the memory limit the request names, answered on
// standard output. It is the only package that links Helm and kustomize's
// builder; keeping them out of meshguard keeps their initialisers out of every
// meshguard start, and a Go template that allocates without end can only be
// stopped for sure from outside the process that runs it.
package child

import (
	"encoding/json"
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

// Serve reads one render request from in, renders it in this process under
// the request's memory limit, and writes the answer to out. The libraries' log
// lines (Go's log package) are captured and returned with the answer, for
// meshguard to report as notes, instead of reaching standard error in Go's log
// format. Problems with the request itself go to errOut. It returns the
// process exit code.
func Serve(in io.Reader, out, errOut io.Writer) int {
	var req render.Request
	if err := json.NewDecoder(io.LimitReader(in, maxRequest)).Decode(&req); err != nil {
		fmt.Fprintf(errOut, "%s: bad request: %v\n", render.ExecutableName, err)
		return 2
	}
	answer := render.Answer{Protocol: render.ProtocolVersion}
	switch {
	case req.Protocol != render.ProtocolVersion:
		answer.Err = fmt.Sprintf("%s speaks render protocol %d, the request protocol %d", render.ExecutableName, render.ProtocolVersion, req.Protocol)
		return encode(out, answer)
	case (req.Helm == nil) == (req.Kustomize == nil):
		answer.Err = "a request names exactly one of helm and kustomize"
		return encode(out, answer)
	}
	if req.MaxMemory > 0 {
		debug.SetMemoryLimit(req.MaxMemory)
		if err := limitAddressSpace(req.MaxMemory); err != nil {
			fmt.Fprintf(errOut, "%s: %v\n", render.ExecutableName, err)
			return 2
		}
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
	return encode(out, answer)
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
