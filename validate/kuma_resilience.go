package validate

import (
	"fmt"
	"math"
	"time"

	"github.com/shopspring/decimal"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// confRules reports the findings of one kind's conf rules (MeshCircuitBreaker,
// MeshHealthCheck, MeshRetry, MeshTimeout, MeshRateLimit) under that kind's code. Its
// helpers read the conf's fields as Kuma decodes them: durations with Go's
// time.ParseDuration (metav1.Duration), counters as uint32 or int32, percentages and
// factors as decimals (intstr.IntOrString through shopspring/decimal).
type confRules struct {
	v    *validator
	kind string
	code string
}

func (c confRules) invalid(p *field.Path, value any, msg string) {
	c.v.err(field.Invalid(p, value, msg), c.code)
}

func (c confRules) required(p *field.Path, msg string) {
	c.v.err(field.Required(p, msg), c.code)
}

// absentDefault reports an item without default, unless the shared policy rules
// already do (the kind's api.KumaRules.ItemDefault: MG020 on the same field).
func (c confRules) absentDefault(p *field.Path, msg string) {
	if !c.v.kind.Shared.ItemDefault {
		c.required(p, msg)
	}
}

func (c confRules) forbidden(p *field.Path, msg string) {
	c.v.err(field.Forbidden(p, msg), c.code)
}

// duration parses a duration the way Kuma decodes it. ok is false when it is absent
// or does not parse (which Kuma refuses: it cannot decode the object).
func (c confRules) duration(p *field.Path, s *string) (time.Duration, bool) {
	if s == nil {
		c.v.numberAsDuration(p, c.kind, c.code)
		return 0, false
	}
	d, err := time.ParseDuration(*s)
	if err != nil {
		c.invalid(p, *s, fmt.Sprintf("%s cannot read %q as a duration; write a number with a unit, e.g. 500ms, 5s, 1m30s", c.kind, *s))
		return 0, false
	}
	return d, true
}

// positiveDuration is a duration that, when set, must be more than zero.
func (c confRules) positiveDuration(p *field.Path, s *string) {
	if d, ok := c.duration(p, s); ok && d <= 0 {
		c.invalid(p, *s, "must be greater than zero when set; remove it to use the default")
	}
}

// nonNegativeDuration is a duration that, when set, must not be negative (0 usually
// means "no timeout").
func (c confRules) nonNegativeDuration(p *field.Path, s *string) {
	if d, ok := c.duration(p, s); ok && d < 0 {
		c.invalid(p, *s, "must not be negative; use 0s to disable it")
	}
}

// uint32 checks a counter Kuma decodes as uint32: a negative or too large number
// cannot be decoded and Kuma refuses the object. ok is false when absent or refused.
func (c confRules) uint32(p *field.Path, n *int64) (int64, bool) {
	if n == nil {
		return 0, false
	}
	if *n < 0 || *n > math.MaxUint32 {
		c.invalid(p, *n, fmt.Sprintf("must be a whole number from 0 to %d", uint32(math.MaxUint32)))
		return 0, false
	}
	return *n, true
}

// int32 checks a number Kuma decodes as int32.
func (c confRules) int32(p *field.Path, n *int64) (int64, bool) {
	if n == nil {
		return 0, false
	}
	if *n < math.MinInt32 || *n > math.MaxInt32 {
		c.invalid(p, *n, fmt.Sprintf("must be a whole number from %d to %d", math.MinInt32, math.MaxInt32))
		return 0, false
	}
	return *n, true
}

// positiveCount is a uint32 counter that, when set, must be at least 1.
func (c confRules) positiveCount(p *field.Path, n *int64) {
	if x, ok := c.uint32(p, n); ok && x == 0 {
		c.invalid(p, x, "must be greater than 0 when set; remove it to use the default")
	}
}

// uintPercent is a uint32 percentage: 0 to 100.
func (c confRules) uintPercent(p *field.Path, n *int64) {
	if x, ok := c.uint32(p, n); ok && x > 100 {
		c.invalid(p, x, "is a percentage: must be from 0 to 100")
	}
}

// decimal reads an int-or-string number as Kuma does; ok is false when absent or
// not a number (reported).
func (c confRules) decimal(p *field.Path, n *intstr.IntOrString) (decimal.Decimal, bool) {
	if n == nil {
		return decimal.Zero, false
	}
	if n.Type == intstr.Int {
		return decimal.NewFromInt(int64(n.IntVal)), true
	}
	d, err := decimal.NewFromString(n.StrVal)
	if err != nil {
		c.invalid(p, n.StrVal, fmt.Sprintf("%q is not a number; write a decimal number such as 1.5 or \"1.5\"", n.StrVal))
		return decimal.Zero, false
	}
	return d, true
}

// decimalPercent is an int-or-string percentage: a decimal from 0 to 100.
func (c confRules) decimalPercent(p *field.Path, n *intstr.IntOrString) {
	if d, ok := c.decimal(p, n); ok && (d.IsNegative() || d.GreaterThan(decimal.NewFromInt(100))) {
		c.invalid(p, n.String(), "is a percentage: must be from 0 to 100 (decimals allowed, e.g. \"50.5\")")
	}
}

// sourceMatches reports whether any match of an inbound rule conditions on the
// client's SPIFFE ID, which some conf fields cannot be. (An empty match is the shared
// rules' MG125.)
func sourceMatches(matches []api.RuleMatch) bool {
	for _, m := range matches {
		if m.SpiffeID != nil {
			return true
		}
	}
	return false
}

// notWith reports set fields that a context forbids: each a field name under p and
// whether it is set.
func (c confRules) notWith(p *field.Path, why string, fields ...notWithField) {
	for _, f := range fields {
		if f.set {
			c.forbidden(p.Child(f.name), why)
		}
	}
}

// notWithField is one field notWith checks.
type notWithField struct {
	name string
	set  bool
}

func fieldSet[T any](name string, x *T) notWithField { return notWithField{name: name, set: x != nil} }
