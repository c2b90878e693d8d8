package validate

import (
	"fmt"

	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
)

// httpRoute checks a MeshHTTPRoute: targets, destinations and every backendRef,
// including requestMirror's.
func (v *validator) httpRoute(s *api.MeshHTTPRouteSpec, p *field.Path) {
	v.top(s.TargetRef, p)
	tk := topKind(s.TargetRef)
	for i, to := range s.To {
		tp := p.Child("to").Index(i)
		v.routeTo(to.TargetRef, tp, tk, len(to.Rules))
		for j, r := range to.Rules {
			rp := tp.Child("rules").Index(j).Child("default")
			if r.Default.BackendRefs != nil {
				for k, b := range *r.Default.BackendRefs {
					v.backendRef(b, rp.Child("backendRefs").Index(k), tk)
				}
			}
			for k, f := range r.Default.Filters {
				if f.RequestMirror != nil {
					v.backendRefOf(f.RequestMirror.BackendRef, rp.Child("filters").Index(k).Child("requestMirror", "backendRef"), tk, v.kind.MirrorRefs)
				}
			}
		}
	}
	v.requireSomething(len(s.To) > 0, p)
}

// tcpRoute checks a MeshTCPRoute the same way.
func (v *validator) tcpRoute(s *api.MeshTCPRouteSpec, p *field.Path) {
	v.top(s.TargetRef, p)
	tk := topKind(s.TargetRef)
	for i, to := range s.To {
		tp := p.Child("to").Index(i)
		v.routeTo(to.TargetRef, tp, tk, len(to.Rules))
		for j, r := range to.Rules {
			for k, b := range r.Default.BackendRefs {
				v.backendRef(b, tp.Child("rules").Index(j).Child("default", "backendRefs").Index(k), tk)
			}
		}
	}
	v.requireSomething(len(s.To) > 0, p)
}

// routeTo checks one route destination: its targetRef and that it has rules.
func (v *validator) routeTo(r *api.TargetRef, tp *field.Path, top api.RefKind, rules int) {
	if rules == 0 {
		v.err(field.Required(tp.Child("rules"), "a route destination needs at least one rule"), CodeSpecShape)
	}
	if r == nil {
		v.err(field.Required(tp.Child("targetRef"), "each 'to' item needs a targetRef naming the destination"), CodeRefField)
		return
	}
	v.ref(*r, tp.Child("targetRef"), placeTo, v.kind.ToKinds(top), CodeToKind)
}

// backendRef checks a route backend and the policy-on-namespace MADR's cross-namespace rule: a route
// attached to a MeshGateway outside the system namespace may only forward to its own
// namespace, otherwise it would open a path from the edge into any namespace (the
// ReferenceGrant problem). Such a route also gets MG105 (it belongs in the system
// namespace), and in the system namespace any backend namespace is allowed, so the
// advice here is the one that satisfies both: move the route, keep the backend.
func (v *validator) backendRef(b api.BackendRef, p *field.Path, top api.RefKind) {
	v.backendRefOf(b, p, top, v.kind.BackendRefs)
}

func (v *validator) backendRefOf(b api.BackendRef, p *field.Path, top api.RefKind, kinds []api.RefKind) {
	if !v.ref(b.AsTargetRef(), p, placeBackend, kinds, CodeBackendKind) {
		return
	}
	if b.Kind == api.RefMeshMultiZoneService && b.Port == nil {
		v.err(field.Required(p.Child("port"), "a MeshMultiZoneService backend needs a port"), CodeRefField)
	}
	if b.Weight != nil && *b.Weight < 0 {
		v.err(field.Invalid(p.Child("weight"), *b.Weight, "weight must be 0 or more"), CodeRefField)
	}
	if b.Port != nil && (*b.Port < 1 || *b.Port > 65535) {
		v.err(field.Invalid(p.Child("port"), *b.Port, "port must be between 1 and 65535"), CodeRefField)
	}
	if top != api.RefMeshGateway || v.system() {
		return // the mesh operator may route anywhere from the system namespace
	}
	if b.Namespace != "" && b.Namespace != v.ns {
		v.err(field.Forbidden(p.Child("namespace"), fmt.Sprintf(
			"a route attached to a MeshGateway in namespace %q may not send traffic to namespace %q: that would let gateway traffic reach any namespace. Only the mesh operator may, from the system namespace %q, where a route on a MeshGateway belongs anyway (MG105): move the route there and keep this backend",
			v.ns, b.Namespace, v.s.SystemNamespace)), CodeCrossNamespace)
	}
}
