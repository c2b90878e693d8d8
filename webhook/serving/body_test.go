package serving

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	crwebhook "sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	admissionv1 "k8s.io/api/admission/v1"
)

// allowAll is a real admission handler (controller-runtime's codec reads the
// AdmissionReview and writes the answer with its uid) that admits everything:
// what the body lanes wrap, without the engine's work.
func allowAll() http.Handler {
	return &crwebhook.Admission{Handler: admission.HandlerFunc(func(context.Context, admission.Request) admission.Response {
		return admission.Allowed("")
	})}
}

// limitedServer serves an admission handler behind a BodyLimiter over plain
// HTTP on loopback (real connections, so that deadlines apply).
func limitedServer(t *testing.T, l BodyLimits) (*httptest.Server, *BodyLimiter) {
	t.Helper()
	limiter := NewBodyLimiter(l)
	srv := httptest.NewServer(limiter.Wrap(allowAll()))
	t.Cleanup(srv.Close)
	return srv, limiter
}

// stalledUpload opens a connection, announces a body of announced bytes, sends
// sent of them and then nothing more. It returns the connection's reader of the
// answer.
func stalledUpload(t *testing.T, addr string, announced, sent int) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	fmt.Fprintf(c, "POST /validate HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", announced)
	if _, err := c.Write(bytes.Repeat([]byte(" "), sent)); err != nil {
		t.Fatal(err)
	}
	return c, bufio.NewReader(c)
}

// TestBodyOverCapIsRefused sends a body one byte over the cap: 413, read no
// further than the cap.
func TestBodyOverCapIsRefused(t *testing.T) {
	srv, _ := limitedServer(t, BodyLimits{MaxBytes: 1 << 20})
	body := io.LimitReader(repeatReader(' '), 1<<20+1)
	resp, err := http.Post(srv.URL, "application/json", body)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge {
		t.Fatalf("status %d, want 413", resp.StatusCode)
	}
}

// TestSlowSenderIsCutOff announces 7 MiB, sends 1 KiB and stalls: the server
// answers 408 at the read timeout and closes the connection; meanwhile the request
// holds budget for what arrived (one chunk), not for what it announced.
func TestSlowSenderIsCutOff(t *testing.T) {
	srv, limiter := limitedServer(t, BodyLimits{ReadTimeout: 2 * time.Second})
	start := time.Now()
	c, r := stalledUpload(t, srv.Listener.Addr().String(), MaxRequestBytes, 1024)
	// Wait until the request has taken its budget, then check that it took one
	// chunk: all the rest is still free.
	for limiter.budget.TryAcquire(limiter.limits.Budget) {
		limiter.budget.Release(limiter.limits.Budget)
		if time.Since(start) > 1500*time.Millisecond {
			t.Fatal("the request took no budget")
		}
		time.Sleep(time.Millisecond)
	}
	if !limiter.budget.TryAcquire(limiter.limits.Budget - bodyChunk) {
		t.Error("a stalled upload of 1 KiB holds more than one chunk of budget")
	} else {
		limiter.budget.Release(limiter.limits.Budget - bodyChunk)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatalf("no answer to a stalled upload: %v", err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if d := time.Since(start); resp.StatusCode != http.StatusRequestTimeout || d > 4*time.Second {
		t.Errorf("status %d after %v, want 408 after about 2 s", resp.StatusCode, d)
	}
	if _, err := r.ReadByte(); err == nil {
		t.Error("the connection stays open after a timed-out body")
	}
}

// TestBudgetBoundsConcurrentBodies fills the whole budget with a stalled upload:
// a request arriving meanwhile waits, and is answered once the stalled one is cut
// off and its budget returned. While the budget stays taken (held here by the
// test), a request gets 503 at its read timeout instead of more memory.
func TestBudgetBoundsConcurrentBodies(t *testing.T) {
	// Chunks of 4, 8, 16, 32, 64, 64 and 64 KiB hold exactly maxBytes; the
	// stalled upload then waits on an eighth chunk with the whole budget held.
	const maxBytes = 252 << 10
	const timeout = 1500 * time.Millisecond
	// No minimum rate: the read timeout alone cuts the stalled upload off here.
	srv, limiter := limitedServer(t, BodyLimits{MaxBytes: maxBytes, Budget: 1, ReadTimeout: timeout, MinBodyRate: -1})
	if limiter.limits.Budget != maxBytes+bodyChunk {
		t.Fatalf("budget %d, want the least that admits one whole body", limiter.limits.Budget)
	}
	review := `{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"1","kind":{"group":"","version":"v1","kind":"ConfigMap"},"operation":"CREATE","object":{}}}`
	post := func() (int, *admissionv1.AdmissionResponse) {
		resp, err := http.Post(srv.URL, "application/json", strings.NewReader(review))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out admissionv1.AdmissionReview
		_ = json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out.Response
	}

	start := time.Now()
	c, r := stalledUpload(t, srv.Listener.Addr().String(), maxBytes+1, maxBytes)
	deadline := time.Now().Add(5 * time.Second)
	for limiter.budget.TryAcquire(firstChunk) {
		limiter.budget.Release(firstChunk)
		if time.Now().After(deadline) {
			t.Fatal("the stalled upload never held the whole budget")
		}
		time.Sleep(time.Millisecond)
	}
	// The waiting request starts well after the stalled one, so the stalled upload
	// is cut off before the waiting one's own read timeout, however busy the machine.
	time.Sleep(timeout / 3)
	status, answer := post()
	if status != http.StatusOK || answer == nil || !answer.Allowed || answer.UID != "1" {
		t.Errorf("request behind the stalled upload: %d %+v", status, answer)
	}
	if d := time.Since(start); d < timeout-50*time.Millisecond {
		t.Errorf("answered after %v, before the stalled upload was cut off (%v): the budget did not hold", d, timeout)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if resp, err := http.ReadResponse(r, nil); err != nil || resp.StatusCode != http.StatusRequestTimeout {
		t.Fatalf("stalled upload: %v %v", resp, err)
	}

	if !limiter.budget.TryAcquire(limiter.limits.Budget) {
		t.Fatal("budget not returned")
	}
	start = time.Now()
	if status, _ := post(); status != http.StatusServiceUnavailable {
		t.Errorf("status %d while the budget is held, want 503", status)
	}
	if d := time.Since(start); d < timeout-50*time.Millisecond || d > 5*time.Second {
		t.Errorf("503 after %v, want after the read timeout (%v)", d, timeout)
	}
	limiter.budget.Release(limiter.limits.Budget)
	if status, answer := post(); status != http.StatusOK || answer == nil || !answer.Allowed {
		t.Errorf("after the budget is free: %d %+v", status, answer)
	}
}

// repeatReader is an endless stream of one byte.
type repeatReader byte

func (b repeatReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}
