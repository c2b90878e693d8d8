package validate

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// lbLocalZone checks the affinity tags: keys set, weights above 0, and either every
// tag weighted or none.
func (v *validator) lbLocalZone(lz *api.LocalZone, p *field.Path) {
	if lz == nil || lz.AffinityTags == nil {
		return
	}
	tags := *lz.AffinityTags
	weighted := 0
	for i, t := range tags {
		ip := p.Child("affinityTags").Index(i)
		if t.Key == "" {
			v.err(field.Required(ip.Child("key"), "an affinity tag needs a key, e.g. k8s.io/node"), CodeLoadBalancingConf)
		}
		if t.Weight != nil {
			weighted++
			if *t.Weight <= 0 {
				v.err(field.Invalid(ip.Child("weight"), *t.Weight, "must be greater than 0"), CodeLoadBalancingConf)
			}
		}
	}
	if weighted > 0 && weighted != len(tags) {
		v.err(field.Invalid(p.Child("affinityTags"), fmt.Sprintf("%d of %d weighted", weighted, len(tags)),
			"give every affinity tag a weight, or none (then Kuma weighs them by order)"), CodeLoadBalancingConf)
	}
}

// lbCrossZone checks the failover rules and threshold; cross-zone failover makes no
// sense for a MeshService destination narrowed to a section or by labels.
func (v *validator) lbCrossZone(cz *api.CrossZone, ref *api.TargetRef, p *field.Path) {
	if cz == nil {
		return
	}
	const code = CodeLoadBalancingConf
	if ref != nil && ref.Kind == api.RefMeshService && (ref.SectionName != "" || len(ref.Labels) > 0) {
		v.err(field.Forbidden(p, "crossZone cannot be set for a MeshService picked by sectionName or labels: that traffic is local to its zone"), code)
	}
	if cz.Failover != nil {
		for i, f := range *cz.Failover {
			v.lbFailover(f, p.Child("failover").Index(i))
		}
	}
	if cz.FailoverThreshold != nil {
		v.shapingPercentage(cz.FailoverThreshold.Percentage, p.Child("failoverThreshold", "percentage"), false, code)
	}
}

// lbFailover checks one failover rule: its from zones, and to zones that fit its type.
func (v *validator) lbFailover(f api.Failover, p *field.Path) {
	const code = CodeLoadBalancingConf
	if f.From != nil {
		zp := p.Child("from", "zones")
		if len(f.From.Zones) == 0 {
			v.err(field.Required(zp, "list the zones this failover rule applies to, or drop 'from' to apply it to all"), code)
		}
		for j, z := range f.From.Zones {
			if z == "" {
				v.err(field.Required(zp.Index(j), "a zone name cannot be empty"), code)
			}
		}
	}
	zp := p.Child("to", "zones")
	n := 0
	if f.To.Zones != nil {
		n = len(*f.To.Zones)
	}
	switch f.To.Type {
	case "Any", "None":
		if n > 0 {
			v.err(field.Forbidden(zp, fmt.Sprintf("must be empty when type is %s; use Only or AnyExcept to name zones", f.To.Type)), code)
		}
	case "Only", "AnyExcept":
		if n == 0 {
			v.err(field.Required(zp, fmt.Sprintf("type %s needs the zones it names", f.To.Type)), code)
		}
	case "":
		// the CRD requires type; its finding says so
	default:
		// the CRD's enum reports other values
	}
}
