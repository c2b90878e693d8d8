package validate

import (
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// meshFaultInjection is Kuma 2.14's meshfaultinjection validator beyond the schema
// and the rules every policy shares: the values of every fault (status code, delay,
// bandwidth, percentages). Whether `from` (sidecars only) and `to` (gateways only)
// may be present is a shared section rule (validate/policy.go); like Kuma, the
// items of a section refused there are not checked further.
func (v *validator) meshFaultInjection(s *api.MeshFaultInjectionSpec, p *field.Path) {
	for i, r := range s.Rules {
		v.faultConf(r.Default, p.Child("rules").Index(i).Child("default"))
	}
	gateways := api.IncludesGateways(s.TargetRef)
	if !gateways {
		for i, it := range s.From {
			v.faultConf(it.Default, p.Child("from").Index(i).Child("default"))
		}
	}
	if gateways {
		for i, it := range s.To {
			v.faultConf(it.Default, p.Child("to").Index(i).Child("default"))
		}
	}
}

// faultConf checks the faults of one conf. An absent abort status counts as 0 and
// an absent percentage as 0, as in Kuma's types.
func (v *validator) faultConf(c *api.MeshFaultInjectionConf, p *field.Path) {
	if c == nil || c.HTTP == nil {
		return
	}
	const code = CodeFaultInjectionConf
	for i, f := range *c.HTTP {
		ip := p.Child("http").Index(i)
		if a := f.Abort; a != nil {
			ap := ip.Child("abort")
			var status int64
			if a.HTTPStatus != nil {
				status = *a.HTTPStatus
			}
			if status < 100 || status > 599 {
				v.err(field.Invalid(ap.Child("httpStatus"), status, "must be an HTTP status code from 100 to 599"), code)
			}
			v.shapingPercentage(a.Percentage, ap.Child("percentage"), true, code)
		}
		if d := f.Delay; d != nil {
			dp := ip.Child("delay")
			if d.Value != nil {
				if dur, ok := v.shapingDuration(*d.Value, dp.Child("value"), code); ok && dur < 0 {
					v.err(field.Invalid(dp.Child("value"), *d.Value, "a delay cannot be negative"), code)
				}
			}
			v.shapingPercentage(d.Percentage, dp.Child("percentage"), true, code)
		}
		if b := f.ResponseBandwidth; b != nil {
			bp := ip.Child("responseBandwidth")
			switch {
			case b.Limit == nil || *b.Limit == "":
				v.err(field.Required(bp.Child("limit"), "set the bandwidth limit, e.g. \"10kbps\" or \"1Mbps\""), code)
			case !shapingBandwidth.MatchString(*b.Limit):
				v.err(field.Invalid(bp.Child("limit"), *b.Limit, "must be a number with a kbps, Mbps or Gbps unit, e.g. \"10kbps\" or \"1Mbps\""), code)
			}
			v.shapingPercentage(b.Percentage, bp.Child("percentage"), true, code)
		}
	}
}
