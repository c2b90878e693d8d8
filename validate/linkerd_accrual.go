package validate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/meshguard/meshguard/api"
)

// accrualUnvalidatedSince is the Linkerd release from which admission no longer
// parses the failure-accrual annotations on a route (linkerd/linkerd2#15374): accrual
// belongs to the parent Service or EgressNetwork, and nothing reads it on a route.
// The releases before it refuse a route whose accrual annotations do not parse.
const accrualUnvalidatedSince = api.LinkerdV220

// The failure-accrual annotations Linkerd version-2.18 and version-2.19 parse on an
// outbound route (parse_accrual_config).
const (
	annAccrual            = "balancer.linkerd.io/failure-accrual"
	annAccrualMaxFailures = "balancer.linkerd.io/failure-accrual-consecutive-max-failures"
	annAccrualMaxPenalty  = "balancer.linkerd.io/failure-accrual-consecutive-max-penalty"
	annAccrualMinPenalty  = "balancer.linkerd.io/failure-accrual-consecutive-min-penalty"
	annAccrualJitter      = "balancer.linkerd.io/failure-accrual-consecutive-jitter-ratio"
)

// lkAccrualAnnotations checks a route's failure-accrual annotations as Linkerd before
// version-2.20 parses them (MG368): the mode is "consecutive", its maximum failures a
// whole number, its penalties durations with the minimum not above the maximum and
// a maximum above zero, its jitter ratio a number from 0 to 100. Without the mode
// annotation the others are not read. bad reports a finding on an annotation.
func (v *validator) lkAccrualAnnotations(ann map[string]string, bad func(key, msg string)) {
	mode, ok := ann[annAccrual]
	if !ok {
		return
	}
	if mode != "consecutive" {
		bad(annAccrual, fmt.Sprintf("unsupported failure accrual mode %q: Linkerd %s accepts only consecutive (version-2.20 no longer reads accrual on routes: set it on the parent Service)", mode, v.s.LinkerdVersion))
		return
	}
	if s, ok := ann[annAccrualMaxFailures]; ok {
		if _, err := strconv.ParseUint(strings.TrimPrefix(s, "+"), 10, 32); err != nil {
			bad(annAccrualMaxFailures, "the maximum number of consecutive failures is a whole number")
			return
		}
	}
	maxMS, minMS := uint64(60_000), uint64(1_000) // Linkerd's defaults
	for _, d := range []struct {
		key string
		ms  *uint64
	}{{annAccrualMaxPenalty, &maxMS}, {annAccrualMinPenalty, &minMS}} {
		if s, ok := ann[d.key]; ok {
			ms, msg := linkerdDuration(s)
			if msg != "" {
				bad(d.key, msg)
				return
			}
			*d.ms = ms
		}
	}
	if s, ok := ann[annAccrualJitter]; ok {
		if j, ok := rustFloat(s); !ok || !(j >= 0 && j <= 100) {
			bad(annAccrualJitter, "the jitter ratio is a number from 0 to 100")
			return
		}
	}
	switch {
	case minMS > maxMS:
		bad(annAccrualMinPenalty, "the minimum penalty cannot exceed the maximum penalty")
	case maxMS == 0:
		bad(annAccrualMaxPenalty, "the maximum penalty cannot be zero")
	}
}

// rustFloat parses s as Rust's f32 parser does, which Linkerd uses: decimal and
// exponent forms, inf and NaN, but no hexadecimal form and no underscores, which
// Go's parser takes.
func rustFloat(s string) (float64, bool) {
	if strings.ContainsAny(s, "_xXpP") {
		return 0, false
	}
	f, err := strconv.ParseFloat(s, 32)
	if err != nil && !math.IsInf(f, 0) {
		return 0, false
	}
	return f, true
}
