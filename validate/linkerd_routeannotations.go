package validate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// Linkerd's retry and timeout annotations on an outbound route (one parented to a
// Service or an EgressNetwork), which its admission parses.
const (
	annRetryLimit   = "retry.linkerd.io/limit"
	annRetryTimeout = "retry.linkerd.io/timeout"
	annRetryHTTP    = "retry.linkerd.io/http"
	annRetryGRPC    = "retry.linkerd.io/grpc"
)

// lkTimeoutAnnotations are the route timeouts Linkerd reads from annotations.
func lkTimeoutAnnotations() []string {
	return []string{"timeout.linkerd.io/response", "timeout.linkerd.io/request", "timeout.linkerd.io/idle"}
}

// grpcRetryConditions are the gRPC status names retry.linkerd.io/grpc accepts.
func grpcRetryConditions() []string {
	return []string{"cancelled", "deadline-exceeded", "internal", "resource-exhausted", "unavailable"}
}

// lkRouteAnnotations checks the retry and timeout annotations of an outbound route as
// Linkerd parses them; grpc selects the gRPC retry conditions instead of HTTP's.
func (v *validator) lkRouteAnnotations(obj *unstructured.Unstructured, grpc bool) {
	ann := obj.GetAnnotations()
	if len(ann) == 0 {
		return
	}
	p := field.NewPath("metadata", "annotations")
	bad := func(key, msg string) {
		v.err(field.Invalid(p.Key(key), ann[key], msg), CodeLinkerdRouteAnnotation)
	}
	if s, ok := ann[annRetryLimit]; ok {
		if _, err := strconv.ParseUint(s, 10, 16); err != nil {
			bad(annRetryLimit, "the retry limit is a whole number from 0 to 65535")
		}
	}
	for _, key := range append([]string{annRetryTimeout}, lkTimeoutAnnotations()...) {
		if s, ok := ann[key]; ok {
			if msg := linkerdDurationError(s); msg != "" {
				bad(key, msg)
			}
		}
	}
	if s, ok := ann[annRetryHTTP]; ok && !grpc {
		for _, c := range strings.Split(s, ",") {
			if !httpRetryCondition(c) {
				bad(annRetryHTTP, fmt.Sprintf("unknown retry condition %q: use 5xx, gateway-error, a status code (500) or a range (500-504), comma-separated without spaces", c))
				break
			}
		}
	}
	if api.LinkerdBefore(v.s.LinkerdVersion, accrualUnvalidatedSince) {
		v.lkAccrualAnnotations(ann, bad)
	}
	if s, ok := ann[annRetryGRPC]; ok && grpc {
		for _, c := range strings.Split(s, ",") {
			if !containsFold(grpcRetryConditions(), c) {
				bad(annRetryGRPC, fmt.Sprintf("unknown gRPC retry condition %q: use %s, comma-separated without spaces", c, strings.Join(grpcRetryConditions(), ", ")))
				break
			}
		}
	}
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// httpRetryCondition reports whether c is an HTTP retry condition Linkerd knows: 5xx,
// gateway-error, a status code from 100 to 599, or a range of them, low to high.
func httpRetryCondition(c string) bool {
	if strings.EqualFold(c, "5xx") || strings.EqualFold(c, "gateway-error") {
		return true
	}
	code := func(s string) (int, bool) {
		n, err := strconv.Atoi(s)
		return n, err == nil && n >= 100 && n < 600
	}
	if _, ok := code(c); ok {
		return true
	}
	lo, hi, found := strings.Cut(c, "-")
	if !found {
		return false
	}
	l, okL := code(lo)
	h, okH := code(hi)
	return okL && okH && l <= h
}

// linkerdDurationError checks a duration as Linkerd's annotation parser reads it: a
// whole number and one unit of ms, s, m, h or d ("0" alone is zero); no sign, no
// fraction. It returns what is wrong, or "".
func linkerdDurationError(s string) string {
	_, msg := linkerdDuration(s)
	return msg
}

// linkerdDuration parses s as linkerdDurationError checks it, returning its length
// in milliseconds, or what is wrong.
func linkerdDuration(s string) (uint64, string) {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "-") {
		return 0, "a duration cannot be negative"
	}
	i := strings.LastIndexAny(s, "0123456789")
	if i < 0 {
		return 0, "not a duration; write a whole number and a unit, e.g. 500ms, 10s or 2m"
	}
	num, unit := s[:i+1], s[i+1:]
	if strings.Contains(num, ".") {
		return 0, "Linkerd takes no fractional durations; use a smaller unit (1500ms, not 1.5s)"
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil {
		return 0, "not a duration; write a whole number and a unit, e.g. 500ms, 10s or 2m"
	}
	msPerUnit := map[string]uint64{"ms": 1, "s": 1000, "m": 60 * 1000, "h": 60 * 60 * 1000, "d": 24 * 60 * 60 * 1000}
	mul, known := msPerUnit[unit]
	switch {
	case unit == "" && n != 0:
		return 0, fmt.Sprintf("the duration has no unit; did you mean %ds or %dms?", n, n)
	case unit != "" && !known:
		return 0, fmt.Sprintf("unknown duration unit %q; use ms, s, m, h or d", unit)
	case known && n > math.MaxUint64/mul:
		return 0, "the duration is too long: it overflows a count of milliseconds"
	}
	return n * mul, ""
}
