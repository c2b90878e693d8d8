package serving

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
	// DefaultMinBodyRate is the slowest a body may arrive, in bytes per second,
	// after a grace second: each part of it must be in by the time that rate
	// allows. The API server writes a body from memory at once (megabytes per
	// second at the very least); a sender of a byte every few seconds is cut off
	// within about a second instead of holding a connection and budget for the
	// whole read timeout.
	DefaultMinBodyRate = 256 << 10
	// bodyGrace is the time any body gets before the rate counts.
	bodyGrace = time.Second
	// firstChunk and bodyChunk are the smallest and largest units in which bodies
	// are read and budget is taken: chunks grow from 4 KiB by doubling, so
	// memory follows the bytes that arrived (a stalled sender holds 4 KiB, not
	// 64), never a length a client announced.
	firstChunk = 4 << 10
	bodyChunk  = 64 << 10
	// SmallRequestBytes is the largest body answered in the small lane: a
	// quarter of the work budget kept for ordinary objects (a policy of a few
	// KB), so that large reviews, answered one at a time in the rest, never make
	// them wait.
	SmallRequestBytes = 32 << 10
)

// BodyLimits are the bounds LimitBodies applies.
type BodyLimits struct {
	// MaxBytes: a larger body gets 413 (default MaxRequestBytes).
	MaxBytes int64
	// ReadTimeout: a body not complete by then gets 408 and the connection is
	// closed (default DefaultRequestReadTimeout).
	ReadTimeout time.Duration
	// MinBodyRate: a body arriving slower than this many bytes per second (after
	// a grace second) gets 408 and the connection is closed (default
	// DefaultMinBodyRate; negative: only ReadTimeout counts).
	MinBodyRate int64
	// WriteTimeout: the answer must be written by then, counted from the start of
	// the request (default DefaultRequestWriteTimeout). A request that says how
	// long its caller waits (the API server's `timeout` query parameter) is
	// given up at that time if it is shorter.
	WriteTimeout time.Duration
	// Budget: body bytes held by all requests at once while they are read (default
	// DefaultRequestBodyBudget; at least MaxBytes).
	Budget int64
	// WorkBudget: what all requests being answered hold at once, workFactor per
	// body byte (default DefaultRequestWorkBudget). A quarter of it is the small
	// lane, for bodies up to SmallRequestBytes; the rest is the large lane, where
	// a request needing more than all of it runs alone.
	WorkBudget int64
}

func (l BodyLimits) withDefaults() BodyLimits {
	if l.MaxBytes <= 0 {
		l.MaxBytes = MaxRequestBytes
	}
	if l.ReadTimeout <= 0 {
		l.ReadTimeout = DefaultRequestReadTimeout
	}
	if l.MinBodyRate == 0 {
		l.MinBodyRate = DefaultMinBodyRate
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
	l.WorkBudget = max(l.WorkBudget, 2)
	return l
}

// BodyLimiter reads request bodies within BodyLimits before handing them on; one
// limiter shares its budgets among all the handlers it wraps.
type BodyLimiter struct {
	limits BodyLimits
	budget *semaphore.Weighted
	// small and large are the work budget's two lanes (smallCap and largeCap
	// bytes). Each is first-come first-served; a large review waiting for the
	// whole large lane never holds up a small one.
	small, large       *semaphore.Weighted
	smallCap, largeCap int64
}

// NewBodyLimiter returns a limiter with limits (zero fields take the defaults).
func NewBodyLimiter(limits BodyLimits) *BodyLimiter {
	limits = limits.withDefaults()
	smallCap := max(limits.WorkBudget/4, 1)
	largeCap := limits.WorkBudget - smallCap
	return &BodyLimiter{limits: limits, budget: semaphore.NewWeighted(limits.Budget),
		small: semaphore.NewWeighted(smallCap), large: semaphore.NewWeighted(largeCap),
		smallCap: smallCap, largeCap: largeCap}
}

// lane is the work budget a body of n bytes is answered in, and what it takes
// of it.
func (b *BodyLimiter) lane(n int64) (*semaphore.Weighted, int64) {
	if n <= SmallRequestBytes {
		return b.small, min(n*workFactor, b.smallCap)
	}
	return b.large, min(n*workFactor, b.largeCap)
}

// Wrap serves next with the body read first, in chunks as it arrives, within the
// size cap, the read timeout, the minimum rate and the shared body budget; then it
// waits for work budget in its lane (workFactor per body byte) and holds it while
// next answers. The request's context ends when its caller stops waiting (the
// `timeout` the API server sends, at most WriteTimeout) or leaves: a request
// still waiting for work then is not answered at all, and the handlers stop
// between their stages. controller-runtime's admission webhook then reads the
// body from memory (its own 7 MiB limit never triggers first).
func (b *BodyLimiter) Wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		rc := http.NewResponseController(w)
		// Not every ResponseWriter supports deadlines (httptest's does not); the
		// context deadline below still bounds waiting for budget.
		_ = rc.SetWriteDeadline(start.Add(b.limits.WriteTimeout))
		ctx, cancel := context.WithDeadline(r.Context(), start.Add(b.limits.ReadTimeout))
		defer cancel()
		chunks, held, status, err := b.read(ctx, r.Body, start, rc.SetReadDeadline)
		if err != nil {
			b.budget.Release(held)
			if status == http.StatusRequestTimeout || status == http.StatusBadRequest {
				w.Header().Set("Connection", "close")
			}
			http.Error(w, err.Error(), status)
			return
		}
		_ = rc.SetReadDeadline(time.Time{}) // the body is in; the server's idle timeout follows
		markWorking(r.Context())
		readers := make([]io.Reader, len(chunks))
		n := 0
		for i, c := range chunks {
			readers[i] = bytes.NewReader(c)
			n += len(c)
		}
		// The body's budget is handed over to the work budget, which counts the
		// body too. Requests being answered need nothing more, so waiting for
		// work budget while holding body budget cannot deadlock.
		lane, work := b.lane(int64(n))
		workCtx, cancelWork := context.WithDeadline(r.Context(), callerDeadline(r, start, b.limits.WriteTimeout))
		defer cancelWork()
		err = lane.Acquire(workCtx, work)
		b.budget.Release(held)
		if err != nil {
			http.Error(w, "server busy: no memory budget to answer the request before its caller's timeout", http.StatusServiceUnavailable)
			return
		}
		defer lane.Release(work)
		r = r.WithContext(workCtx)
		r.Body = io.NopCloser(io.MultiReader(readers...))
		r.ContentLength = int64(n)
		next.ServeHTTP(w, r)
	})
}

// callerDeadline is when the request's caller stops waiting: the API server
// sends its webhook timeout as the `timeout` query parameter (client-go's
// Request.Timeout, e.g. "5s"); without one, or past it, writeTimeout counts.
func callerDeadline(r *http.Request, start time.Time, writeTimeout time.Duration) time.Time {
	if d, err := time.ParseDuration(r.URL.Query().Get("timeout")); err == nil && d > 0 && d < writeTimeout {
		return start.Add(d)
	}
	return start.Add(writeTimeout)
}

// read reads body in chunks growing from firstChunk to bodyChunk, taking budget
// for each before reading it, and setting the read deadline each chunk must
// arrive by (setDeadline; MinBodyRate). It returns the chunks, the budget held
// (to release in every case) and, on failure, the HTTP status to answer with.
func (b *BodyLimiter) read(ctx context.Context, body io.Reader, start time.Time, setDeadline func(time.Time) error) (chunks [][]byte, held int64, status int, err error) {
	if body == nil {
		return nil, 0, 0, nil
	}
	var total int64
	var waited time.Duration // for budget: the server's doing, not the sender's
	size := int64(firstChunk)
	for {
		t0 := time.Now()
		if err := b.budget.Acquire(ctx, size); err != nil {
			return nil, held, http.StatusServiceUnavailable, fmt.Errorf("server busy: no memory budget for the request body within %v", b.limits.ReadTimeout)
		}
		waited += time.Since(t0)
		held += size
		c := make([]byte, size)
		deadline, byRate := b.chunkDeadline(start, waited, total+size)
		_ = setDeadline(deadline)
		n, err := fill(body, c)
		total += int64(n)
		if total > b.limits.MaxBytes {
			return nil, held, http.StatusRequestEntityTooLarge, fmt.Errorf("request body over %d bytes", b.limits.MaxBytes)
		}
		if int64(n) < size {
			// The last chunk: keep only what it holds, give back the rest.
			c = append([]byte(nil), c[:n]...)
			b.budget.Release(size - int64(n))
			held -= size - int64(n)
		}
		if n > 0 {
			chunks = append(chunks, c[:n])
		}
		switch {
		case err == nil:
			size = min(2*size, bodyChunk)
			continue
		case err == io.EOF:
			return chunks, held, 0, nil
		case errors.Is(err, os.ErrDeadlineExceeded) && byRate:
			return nil, held, http.StatusRequestTimeout, fmt.Errorf("request body arriving slower than %d bytes/s: %d bytes after %v", b.limits.MinBodyRate, total, time.Since(start).Round(time.Millisecond))
		case errors.Is(err, os.ErrDeadlineExceeded):
			return nil, held, http.StatusRequestTimeout, fmt.Errorf("request body not received within %v", b.limits.ReadTimeout)
		default:
			return nil, held, http.StatusBadRequest, fmt.Errorf("reading the request body: %w", err)
		}
	}
}

// chunkDeadline is when the body's first upTo bytes must be in: the grace second
// plus what MinBodyRate allows, not counting the time the request waited for
// budget, and at most ReadTimeout. byRate tells which of the two it is.
func (b *BodyLimiter) chunkDeadline(start time.Time, waited time.Duration, upTo int64) (deadline time.Time, byRate bool) {
	last := start.Add(b.limits.ReadTimeout)
	if b.limits.MinBodyRate < 0 {
		return last, false
	}
	byRateAt := start.Add(waited + bodyGrace + time.Duration(float64(upTo)/float64(b.limits.MinBodyRate)*float64(time.Second)))
	if byRateAt.Before(last) {
		return byRateAt, true
	}
	return last, false
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
