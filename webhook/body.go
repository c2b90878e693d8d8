package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"time"

	"golang.org/x/sync/semaphore"
)

// Bounds of what the webhook server reads; Options can change the timeouts and the
// budget (see cmd/meshguard's serve flags).
const (
	// MaxRequestBytes is the largest AdmissionReview read: the API server's 3 MB
	// object limit twice (object and oldObject of an UPDATE) and the rest. It is
	// controller-runtime's own limit (admission.maxRequestSize), applied here
	// before controller-runtime reads anything.
	MaxRequestBytes = 7 << 20
	// DefaultRequestReadTimeout is how long a client gets to send a whole body.
	// The API server sends 7 MiB in well under a second; a sender slower than this
	// is cut off.
	DefaultRequestReadTimeout = 10 * time.Second
	// DefaultRequestWriteTimeout bounds a request from its first byte to the last
	// byte of the answer: the API server waits at most 30 s (timeoutSeconds).
	DefaultRequestWriteTimeout = 30 * time.Second
	// DefaultRequestBodyBudget is how many body bytes all requests together may
	// hold while they are read and answered. Past it, a request waits for budget
	// until its read timeout, then gets 503: memory stays bounded whatever many
	// clients send at once.
	DefaultRequestBodyBudget = 16 << 20
	// DefaultRequestWorkBudget bounds the memory of answering: a request holds
	// workFactor times its body's bytes (at most the whole budget) while it is
	// decoded, checked and answered, so a few large or error-laden objects are
	// answered one after another instead of all at once. On 2 cores more of them
	// at once would not finish sooner anyway.
	DefaultRequestWorkBudget = 16 << 20
	// workFactor estimates the memory of answering per body byte: an object read
	// into unstructured maps, checked and turned into findings allocates ~70 times
	// its JSON (a 0.5 MB policy with 8,000 errors: 35 MiB), about half of it live.
	workFactor = 32
	// bodyChunk is the unit in which bodies are read and budget is taken: memory
	// follows the bytes that arrived, never a length a client announced.
	bodyChunk = 64 << 10
)

// BodyLimits are the bounds LimitBodies applies.
type BodyLimits struct {
	// MaxBytes: a larger body gets 413 (default MaxRequestBytes).
	MaxBytes int64
	// ReadTimeout: a body not complete by then gets 408 and the connection is
	// closed (default DefaultRequestReadTimeout).
	ReadTimeout time.Duration
	// WriteTimeout: the answer must be written by then, counted from the start of
	// the request (default DefaultRequestWriteTimeout).
	WriteTimeout time.Duration
	// Budget: body bytes held by all requests at once while they are read (default
	// DefaultRequestBodyBudget; at least MaxBytes).
	Budget int64
	// WorkBudget: what all requests being answered hold at once, workFactor per
	// body byte (default DefaultRequestWorkBudget; a request needing more than all
	// of it runs alone).
	WorkBudget int64
}

func (l BodyLimits) withDefaults() BodyLimits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = MaxRequestBytes
	}
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = DefaultRequestReadTimeout
	}
	if l.WriteTimeout <= 0 {
		l.WriteTimeout = DefaultRequestWriteTimeout
	}
	if l.Budget <= 0 {
		l.Budget = DefaultRequestBodyBudget
	}
	l.Budget = max(l.Budget, l.MaxBytes+bodyChunk)
	if l.WorkBudget <= 0 {
		l.WorkBudget = DefaultRequestWorkBudget
	}
	return l
}

// BodyLimiter reads request bodies within BodyLimits before handing them on; one
// limiter shares its budget among all the handlers it wraps.
type BodyLimiter struct {
	limits BodyLimits
	budget *semaphore.Weighted
	work   *semaphore.Weighted
}

// NewBodyLimiter returns a limiter with limits (zero fields take the defaults).
func NewBodyLimiter(limits BodyLimits) *BodyLimiter {
	limits = limits.withDefaults()
	return &BodyLimiter{limits: limits, budget: semaphore.NewWeighted(limits.Budget), work: semaphore.NewWeighted(limits.WorkBudget)}
}

// Wrap serves next with the body read first, in chunks as it arrives, within the
// size cap, the read timeout and the shared body budget; then it waits for work
// budget (workFactor per body byte) and holds it while next answers.
// controller-runtime's admission webhook then reads the body from memory (its own
// 7 MiB limit never triggers first).
func (b *BodyLimiter) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rc := http.NewResponseController(w)
		// Not every ResponseWriter supports deadlines (httptest's does not); the
		// context deadline below still bounds waiting for budget.
		_ = rc.SetReadDeadline(start.Add(b.limits.ReadTimeout))
		_ = rc.SetWriteDeadline(start.Add(b.limits.WriteTimeout))
		ctx, cancel := context.WithDeadline(r.Context(), start.Add(b.limits.ReadTimeout))
		defer cancel()
		chunks, held, status, err := b.read(ctx, r.Body)
		if err != nil {
			b.budget.Release(held)
			if status == http.StatusRequestTimeout || status == http.StatusBadRequest {
				w.Header().Set("Connection", "close")
			}
			http.Error(w, err.Error(), status)
			return
		}
		_ = rc.SetReadDeadline(time.Time{}) // the body is in; the server's idle timeout follows
		readers := make([]io.Reader, len(chunks))
		n := 0
		for i, c := range chunks {
			readers[i] = bytes.NewReader(c)
			n += len(c)
		}
		// The body's budget is handed over to the work budget, which counts the
		// body too. Requests being answered need nothing more, so waiting for
		// work budget while holding body budget cannot deadlock.
		work := min(int64(n)*workFactor, b.limits.WorkBudget)
		workCtx, cancelWork := context.WithDeadline(r.Context(), start.Add(b.limits.WriteTimeout))
		defer cancelWork()
		err = b.work.Acquire(workCtx, work)
		b.budget.Release(held)
		if err != nil {
			http.Error(w, "server busy: no memory budget to answer the request", http.StatusServiceUnavailable)
			return
		}
		defer b.work.Release(work)
		r.Body = io.NopCloser(io.MultiReader(readers...))
		r.ContentLength = int64(n)
		next.ServeHTTP(w, r)
	})
}

// read reads body in chunks, taking budget for each before reading it. It returns
// the chunks, the budget held (to release in every case) and, on failure, the
// HTTP status to answer with.
func (b *BodyLimiter) read(ctx context.Context, body io.Reader) (chunks [][]byte, held int64, status int, err error) {
	if body == nil {
		return nil, 0, 0, nil
	}
	var total int64
	for {
		if err := b.budget.Acquire(ctx, bodyChunk); err != nil {
			return nil, held, http.StatusServiceUnavailable, fmt.Errorf("server busy: no memory budget for the request body within %v", b.limits.ReadTimeout)
		}
		held += bodyChunk
		c := make([]byte, bodyChunk)
		n, err := fill(body, c)
		total += int64(n)
		if total > b.limits.MaxBytes {
			return nil, held, http.StatusRequestEntityTooLarge, fmt.Errorf("request body over %d bytes", b.limits.MaxBytes)
		}
		if n < bodyChunk {
			// The last chunk: keep only what it holds, give back the rest.
			c = append([]byte(nil), c[:n]...)
			b.budget.Release(int64(bodyChunk - n))
			held -= int64(bodyChunk - n)
		}
		if n > 0 {
			chunks = append(chunks, c[:n])
		}
		switch {
		case err == nil:
			continue
		case err == io.EOF:
			return chunks, held, 0, nil
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, held, http.StatusRequestTimeout, fmt.Errorf("request body not received within %v", b.limits.ReadTimeout)
		default:
			return nil, held, http.StatusBadRequest, fmt.Errorf("reading the request body: %w", err)
		}
	}
}

// fill reads into c until it is full (nil error), the body ends (io.EOF) or
// reading fails. A body cut short by the client reads as an error, not as EOF.
func fill(body io.Reader, c []byte) (int, error) {
	n := 0
	for n < len(c) {
		m, err := body.Read(c[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
