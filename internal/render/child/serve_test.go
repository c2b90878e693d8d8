package child

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/internal/render"
)

// TestServeRefusesOtherProtocols: a request of another protocol version, or
// one that asks for no render or for two, gets an answer that carries the
// renderer's own protocol version and says what is wrong; nothing is rendered.
func TestServeRefusesOtherProtocols(t *testing.T) {
	for _, tc := range []struct {
		name, req, want string
	}{
		{"older meshguard", `{"protocol":0,"helm":{"dir":"/nonexistent"}}`, "speaks render protocol 2, the request protocol 0"},
		{"no render", `{"protocol":2}`, "exactly one of helm and kustomize"},
		{"two renders", `{"protocol":2,"helm":{"dir":"/x"},"kustomize":{"dir":"/y"}}`, "exactly one of helm and kustomize"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			if code := Serve(strings.NewReader(tc.req), &out, &errOut); code != 0 {
				t.Fatalf("exit %d, stderr %s", code, errOut.String())
			}
			var a render.Answer
			if err := json.Unmarshal(out.Bytes(), &a); err != nil {
				t.Fatal(err)
			}
			if a.Protocol != render.ProtocolVersion || !strings.Contains(a.Err, tc.want) || a.Helm != nil || a.Kustomize != nil {
				t.Errorf("answer %+v, want protocol %d and an error with %q", a, render.ProtocolVersion, tc.want)
			}
		})
	}
}

// TestServeBadRequest: input that is not a request is exit 2 with a message.
func TestServeBadRequest(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Serve(strings.NewReader("not json"), &out, &errOut); code != 2 || !strings.Contains(errOut.String(), "bad request") {
		t.Errorf("exit %d, stderr %q; want 2 and a bad request", code, errOut.String())
	}
}

// TestServeAnswersEachLine: one process answers a stream of requests, one JSON
// line each, in order, and ends cleanly with its input; an over-long line is a
// bad request, not unbounded memory.
func TestServeAnswersEachLine(t *testing.T) {
	var out, errOut bytes.Buffer
	in := "{\"protocol\":2}\n{\"protocol\":0,\"helm\":{\"dir\":\"/x\"}}\n"
	if code := Serve(strings.NewReader(in), &out, &errOut); code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut.String())
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("%d answer lines, want 2: %q", len(lines), out.String())
	}
	for i, want := range []string{"exactly one of helm and kustomize", "the request protocol 0"} {
		var a render.Answer
		if err := json.Unmarshal([]byte(lines[i]), &a); err != nil || !strings.Contains(a.Err, want) {
			t.Errorf("answer %d: %q (%v), want an error with %q", i, lines[i], err, want)
		}
	}
	out.Reset()
	huge := strings.Repeat("x", 1<<20)
	if code := serve(strings.NewReader(huge), &out, &errOut, 64<<10); code != 2 || out.Len() != 0 {
		t.Errorf("an over-long request: exit %d, answer %q; want 2 and none", code, out.String())
	}
}
