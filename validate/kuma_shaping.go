package validate

import (
	"regexp"
	"time"

	"github.com/shopspring/decimal"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Helpers shared by the rules of MeshFaultInjection, MeshLoadBalancingStrategy,
// MeshPassthrough, MeshProxyPatch and MeshTLS (codes MG150-MG154). Their names carry
// the "shaping" prefix so that other kinds' helpers never collide with them.

// shapingBandwidth is the form Kuma accepts for a bandwidth limit: digits and a
// kbps, Mbps or Gbps unit ("10kbps", "1 Mbps").
var shapingBandwidth = regexp.MustCompile(`^(\d*)\s?([GMk]+bps)$`)

// shapingDecimal reads an int-or-string number as Kuma does (a decimal string such as
// "12.5" or an integer). It reports a string that is no number and returns false.
func (v *validator) shapingDecimal(n intstr.IntOrString, p *field.Path, code string) (decimal.Decimal, bool) {
	if n.Type == intstr.Int {
		return decimal.NewFromInt(int64(n.IntVal)), true
	}
	d, err := decimal.NewFromString(n.StrVal)
	if err != nil {
		v.err(field.Invalid(p, n.StrVal, "is not a number; write a decimal number such as 50 or \"12.5\""), code)
		return decimal.Zero, false
	}
	return d, true
}

// shapingPercentage checks an int-or-string percentage: a number from 0 to 100, and
// above 0 unless allowZero. An absent percentage counts as 0, as in Kuma's types.
func (v *validator) shapingPercentage(n *intstr.IntOrString, p *field.Path, allowZero bool, code string) {
	var val intstr.IntOrString
	if n != nil {
		val = *n
	}
	d, ok := v.shapingDecimal(val, p, code)
	if !ok {
		return
	}
	switch {
	case d.IsNegative() || d.GreaterThan(decimal.NewFromInt(100)):
		v.err(field.Invalid(p, val.String(), "is a percentage: must be from 0 to 100 (decimals allowed, e.g. \"12.5\")"), code)
	case !allowZero && d.IsZero():
		v.err(field.Invalid(p, val.String(), "must be greater than 0; remove the section to turn it off"), code)
	}
}

// shapingDuration parses a duration string as Kubernetes' metav1.Duration does (Go's
// time.ParseDuration) and reports one that does not parse.
func (v *validator) shapingDuration(s string, p *field.Path, code string) (time.Duration, bool) {
	d, err := time.ParseDuration(s)
	if err != nil {
		v.err(field.Invalid(p, s, "is not a duration; write a number with a unit such as \"500ms\", \"5s\" or \"1m\""), code)
		return 0, false
	}
	return d, true
}
