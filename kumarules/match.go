package kumarules

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/meshguard/meshguard/api"
)

// Matched is what the policies of one kind give one Dataplane.
type Matched struct {
	// Policies are the policies that select the Dataplane, in merge order.
	Policies []Policy
	// FromRules are per inbound listener (address:port).
	FromRules map[Listener]FromRules
	ToRules   ToRules
	Single    SingleItemRules
	// Gateway is Kuma's GatewayRules for a builtin gateway Dataplane (nil for
	// other proxies): the to rules per listener and per listener and hostname.
	// Its from and inbound rules per listener are FromRules.
	Gateway *GatewayRules
	// Warnings are Kuma's: policies whose targetRef could not be resolved, rules
	// that could not be built. Kuma logs them and carries on; so does the engine.
	Warnings []string
}

// selection is which parts of a Dataplane a top-level targetRef selects.
type selection struct {
	inbounds []Listener
	// hostnames are the builtin gateway's listeners selected, with their
	// hostnames (Kuma's InboundListenerHostname), one per MeshGateway listener.
	hostnames []ListenerHostname
	delegated bool
}

func (s selection) any() bool { return len(s.inbounds) > 0 || s.delegated }

// MatchedPolicies computes which policies of policyType (among objects, which may
// also hold the MeshHTTPRoutes they target) select dp, and the rules they give
// it, as Kuma 2.14's MatchedPolicies does. A builtin gateway Dataplane is
// selected through the listeners of the MeshGateway among objects that serves it;
// its rules per listener and per listener and hostname are Matched.Gateway.
// For many proxies over the same objects, NewIndex once and its MatchedPolicies.
func (e *Engine) MatchedPolicies(policyType string, dp Dataplane, objects []Policy) (Matched, error) {
	return e.NewIndex(objects).MatchedPolicies(policyType, dp, MatchOptions{})
}

// compareMatched orders the policies that select a Dataplane as Kuma's matchers
// do: Compare, with MeshGateway policies with fewer listener tags first before
// roles. ta and tb are a's and b's top-level refs, parsed once by the caller.
func compareMatched(a Meta, ta TargetRef, b Meta, tb TargetRef) int {
	if c := cmp.Compare(KindOrder(ta.Kind), KindOrder(tb.Kind)); c != 0 {
		return c
	}
	if c := compareDataplaneRefs(ta, tb); c != 0 {
		return c
	}
	if c := cmp.Compare(originOrder(a.Labels), originOrder(b.Labels)); c != 0 {
		return c
	}
	if ta.Kind == refMeshGateway {
		if c := cmp.Compare(len(ta.Tags), len(tb.Tags)); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(roleOrder(a.Labels), roleOrder(b.Labels)); c != 0 {
		return c
	}
	return cmp.Compare(b.DisplayName(), a.DisplayName())
}

// selects is which inbounds of dp a policy's top-level targetRef selects, after the
// zone and namespace a policy's role confines it to.
func selects(policy Meta, ref TargetRef, dp Dataplane, gw *gateway, routes []Policy) (selection, error) {
	if !selectedByZone(policy, dp, gw) || !selectedByNamespace(policy, dp) {
		return selection{}, nil
	}
	switch ref.Kind {
	case refMesh:
		if !proxyTypeOK(ref, dp) {
			return selection{}, nil
		}
		s := byTags(nil, dp, gw)
		for _, l := range dp.Listeners {
			s.inbounds = append(s.inbounds, l.listener())
		}
		return s, nil
	case refDataplane:
		if gw != nil {
			return selection{}, nil
		}
		if !(ref.Name == "" && ref.Namespace == "" && !ref.HasLabels) && !selectedByName(policy, ref, dp) && !selectedByLabels(ref, dp) {
			return selection{}, nil
		}
		var s selection
		for _, group := range [][]Inbound{dp.Inbounds, dp.Listeners} {
			for _, in := range group {
				if ref.SectionName == "" || in.SectionName() == ref.SectionName {
					s.inbounds = append(s.inbounds, in.listener())
				}
			}
		}
		s.delegated = dp.Gateway == gatewayDelegated
		return s, nil
	case refMeshSubset:
		if !proxyTypeOK(ref, dp) {
			return selection{}, nil
		}
		return byTags(ref.Tags, dp, gw), nil
	case refMeshService, refMeshServiceSubset:
		tags := map[string]string{serviceTag: ref.Name}
		if ref.Kind == refMeshServiceSubset {
			for k, v := range ref.Tags {
				tags[k] = v
			}
		}
		return byTags(tags, dp, gw), nil
	case refMeshGateway:
		if !gatewayReferenced(ref, gw) {
			return selection{}, nil
		}
		s := byTags(ref.Tags, dp, gw)
		s.delegated = false
		return s, nil
	case refMeshHTTPRoute:
		for _, r := range routes {
			if r.Mesh == policy.Mesh && (r.Name == ref.Name || r.DisplayName() == ref.Name) {
				return selects(r.Meta, r.TopRef(), dp, gw, routes)
			}
		}
		return selection{}, fmt.Errorf("couldn't resolve MeshHTTPRoute targetRef with name '%s'", ref.Name)
	}
	return selection{}, fmt.Errorf("unsupported targetRef kind '%s'", ref.Kind)
}

// byTags selects the inbounds whose tags match the selector (a "*" value matches
// any value of the key), the listeners of a builtin gateway's MeshGateway whose
// tags it matches, and a delegated gateway by its gateway tags.
func byTags(sel map[string]string, dp Dataplane, gw *gateway) selection {
	var s selection
	for _, in := range dp.Inbounds {
		if tagsMatch(sel, in.Tags) {
			s.inbounds = append(s.inbounds, in.listener())
		}
	}
	listeners, hostnames := gatewayListeners(sel, dp, gw)
	for _, l := range listeners {
		if !slices.Contains(s.inbounds, l) {
			s.inbounds = append(s.inbounds, l)
		}
	}
	s.hostnames = hostnames
	s.delegated = dp.Gateway == gatewayDelegated && tagsMatch(sel, dp.GatewayTags)
	return s
}

func tagsMatch(sel, tags map[string]string) bool {
	for k, v := range sel {
		got, ok := tags[k]
		if !ok || (v != got && v != "*") {
			return false
		}
	}
	return true
}

// proxyTypeOK: proxyTypes, when set, must name the Dataplane's type.
func proxyTypeOK(ref TargetRef, dp Dataplane) bool {
	if len(ref.ProxyTypes) == 0 {
		return true
	}
	t := "Sidecar"
	if dp.Gateway != "" {
		t = "Gateway"
	}
	return slices.Contains(ref.ProxyTypes, t)
}

// selectedByName: a Dataplane targetRef by name names the Dataplane in the
// policy's mesh and namespace (or the ref's namespace), and zone.
func selectedByName(policy Meta, ref TargetRef, dp Dataplane) bool {
	if ref.Name == "" || policy.Mesh != dp.Mesh {
		return false
	}
	ns := ref.Namespace
	if ns == "" {
		ns = policy.Labels[api.LabelNamespace]
	}
	if ns != dp.Namespace || policy.Labels[labelZone] != dp.Labels[labelZone] {
		return false
	}
	return ref.Name == dp.DisplayName()
}

func selectedByLabels(ref TargetRef, dp Dataplane) bool {
	if !ref.HasLabels {
		return false
	}
	for k, v := range ref.Labels {
		if dp.Labels[k] != v {
			return false
		}
	}
	return true
}

const labelZone = "kuma.io/zone"

// selectedByNamespace: consumer and workload-owner policies apply only to proxies
// of their namespace.
func selectedByNamespace(policy Meta, dp Dataplane) bool {
	switch api.PolicyRole(policy.Labels[api.LabelPolicyRole]) {
	case api.RoleConsumer, api.RoleWorkloadOwner:
		ns, ok := policy.Labels[api.LabelNamespace]
		return ok && ns == dp.Namespace
	}
	return true
}

// selectedByZone: a zone-origin policy (other than a producer one) applies only to
// zone-origin proxies of its zone. A builtin gateway is judged by the labels of
// the MeshGateway that serves it, as Kuma's dppSelectedByZone judges it.
func selectedByZone(policy Meta, dp Dataplane, gw *gateway) bool {
	if api.PolicyRole(policy.Labels[api.LabelPolicyRole]) == api.RoleProducer {
		return true
	}
	labels := dp.Labels
	if gw != nil {
		labels = gw.meta.Labels
	}
	origin, ok := labels[api.LabelOrigin]
	if !ok || origin == api.OriginGlobal {
		return true
	}
	if policy.Labels[api.LabelOrigin] != "zone" {
		return true
	}
	zone, ok := policy.Labels[labelZone]
	if !ok {
		return true
	}
	return localToZone(labels, zone)
}
