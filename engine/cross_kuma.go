package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumainspect"
	"github.com/meshguard/meshguard/kumak8s"
	"github.com/meshguard/meshguard/validate"
)

// Bounds of kumaEffects: how many proxies of a mesh are judged, and for how long
// one object is judged alone (admission answers within the API server's
// timeout). Past either, the findings that rest on a policy doing nothing
// anywhere are not given.
const (
	effectsProxiesOne  = 500
	effectsProxiesMany = 20000
	effectsBudgetOne   = time.Second
	// effectsMeshProxiesOne bounds the Dataplanes of a mesh one object is judged
	// against: each request copies the mesh's objects into a store.
	effectsMeshProxiesOne = 2000
)

// proxiesOf counts the Dataplanes of the meshes wanted.
func proxiesOf(dps []*unstructured.Unstructured, wanted map[string]bool) int {
	n := 0
	for _, u := range dps {
		if wanted[meshOf(u)] {
			n++
		}
	}
	return n
}

var (
	dataplaneGK = schema.GroupKind{Group: api.KumaGroup, Kind: api.KindDataplane}
	meshGK      = schema.GroupKind{Group: api.KumaGroup, Kind: api.KindMesh}
)

// kubeWorkloads are the Kubernetes kinds Kuma's injector gives a proxy that
// package kumak8s derives Dataplanes for (a Pod and the apps/v1 controllers of
// api.WorkloadKinds), and kubeInputs them with what the derivation reads
// besides: Namespaces (injection, mesh) and Services (inbounds, MeshServices).
// A source that holds them but no Dataplanes (a repository's manifests) is
// judged against the Dataplanes Kuma would write.
func kubeWorkloads() []schema.GroupKind {
	var out []schema.GroupKind
	for _, gvk := range api.WorkloadKinds() {
		if gvk.Group == "apps" || (gvk.Group == "" && gvk.Kind == api.KindPod) {
			out = append(out, gvk.GroupKind())
		}
	}
	return out
}

func kubeInputs() []schema.GroupKind {
	return append([]schema.GroupKind{{Kind: api.KindNamespace}, {Kind: api.KindService}}, kubeWorkloads()...)
}

// kumaEffects is MG450-MG453: what a Kuma policy does on the proxies of its mesh,
// by Kuma 2.14's matching and merging (package kumainspect, as `meshguard
// inspect` shows it). It judges every Kuma policy against the mesh's Dataplanes
// and other Kuma objects, and says nothing where the source holds no Dataplanes:
//
//   - MG450: `from` MeshTrafficPermissions Kuma ignores on an inbound a `rules`
//     one selects (kumahq/kuma #18740), told to both sides;
//   - MG451: a policy that selects proxies but decides no field of any merged
//     conf, naming the policies that override it;
//   - MG452: a policy whose top-level targetRef selects no proxy where the source
//     holds proxies of its mesh (and, for a consumer or workload-owner policy,
//     of its namespace);
//   - MG453: a `to` item naming a MeshService, MeshExternalService or
//     MeshMultiZoneService none of the proxies the policy selects can reach.
func kumaEffects() CrossCheck {
	reg := api.DefaultRegistry()
	var subjects, inputs []schema.GroupKind
	for _, k := range reg.Kinds() {
		if k.Group != api.KumaGroup || !reg.StorageVersion(k) {
			continue
		}
		gk := schema.GroupKind{Group: k.Group, Kind: k.Kind}
		inputs = append(inputs, gk)
		if !k.Resource {
			subjects = append(subjects, gk)
		}
	}
	kinds := slices.Clone(inputs)
	inputs = append(inputs, kubeInputs()...)
	gates := append([]schema.GroupKind{dataplaneGK}, kubeWorkloads()...)
	return CrossCheck{
		Codes:    []string{validate.CodeKumaFromIgnored, validate.CodeKumaOverridden, validate.CodeKumaSelectsNone, validate.CodeKumaToUnreached},
		Subjects: subjects,
		Inputs:   inputs,
		Fields:   effectsFields,
		Gates:    gates,
		RunAll: func(ctx context.Context, subjects []Subject, src Source) []field.ErrorList {
			return runKumaEffects(ctx, subjects, src, reg, kinds)
		},
	}
}

func effectsFields(s Subject) []string {
	out := []string{"spec", "spec.targetRef", "spec.from", "spec.rules"}
	to, _, _ := unstructured.NestedSlice(s.Object.Object, "spec", "to")
	for i := range to {
		out = append(out, fmt.Sprintf("spec.to[%d].targetRef", i))
	}
	return out
}

// runKumaEffects reads the Kuma objects of src (the kinds of inputs) once, with
// the subjects over their stored copies (admission judges the object before it
// is stored), and judges each subject's mesh once.
func runKumaEffects(ctx context.Context, subjects []Subject, src Source, reg *api.Registry, inputs []schema.GroupKind) []field.ErrorList {
	out := make([]field.ErrorList, len(subjects))
	dps, _ := src.List(ctx, dataplaneGK, "")
	derived := derivedProxies(ctx, src)
	for _, u := range derived {
		if u.GroupVersionKind().GroupKind() == dataplaneGK {
			dps = append(dps, u)
		}
	}
	if len(dps) == 0 {
		return out
	}
	wanted := map[string]bool{} // the subjects' meshes: only their objects are read
	for _, s := range subjects {
		wanted[meshOf(s.Object)] = true
	}
	if len(subjects) == 1 && proxiesOf(dps, wanted) > effectsMeshProxiesOne {
		return out
	}
	var objs []kumainspect.Object
	meshes := map[string]bool{}
	lists := [][]*unstructured.Unstructured{derived}
	for _, gk := range inputs {
		items, _ := src.List(ctx, gk, "")
		lists = append(lists, items)
	}
	for _, items := range lists {
		for _, u := range items {
			if u.GroupVersionKind().GroupKind() == meshGK {
				meshes[u.GetName()] = true
			} else if !wanted[meshOf(u)] {
				continue
			}
			objs = append(objs, kumainspect.Object{Unstructured: u})
		}
	}
	for _, s := range subjects {
		objs = append(objs, kumainspect.Object{Unstructured: s.Object})
	}
	for _, s := range subjects { // Kuma creates the default mesh; a source may not list Meshes
		if m := meshOf(s.Object); !meshes[m] {
			meshes[m] = true
			objs = append(objs, kumainspect.Object{Unstructured: meshObject(m)})
		}
	}
	store, err := kumainspect.NewStore(objs, reg, nil)
	if err != nil {
		return out
	}
	opts := kumainspect.EffectsOptions{Limit: effectsProxiesMany}
	if len(subjects) == 1 { // admission: only the proxies the object selects matter
		opts = kumainspect.EffectsOptions{Limit: effectsProxiesOne, Focus: []kumainspect.Object{{Unstructured: subjects[0].Object}}}
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, effectsBudgetOne)
		defer cancel()
	}
	judged := map[string]*kumainspect.Effects{}
	for i, s := range subjects {
		mesh := meshOf(s.Object)
		eff, seen := judged[mesh]
		if !seen {
			eff, _ = store.Effects(ctx, mesh, opts) // nil on error: nothing to say
			judged[mesh] = eff
		}
		if eff != nil {
			out[i] = effectFindings(s, eff, eff.Of(kumainspect.Object{Unstructured: s.Object}))
		}
	}
	return out
}

// derivedProxies are the Dataplanes and MeshServices (and the default Mesh)
// Kuma's Kubernetes control plane would write for the workloads and Services of
// src, as kumak8s derives them; those src holds already are not derived again.
// None where src holds no workloads (the webhook caches none: the cluster's
// Dataplanes are there).
func derivedProxies(ctx context.Context, src Source) []*unstructured.Unstructured {
	var kube []*unstructured.Unstructured
	for _, gk := range append(kubeWorkloads(), schema.GroupKind{Group: api.KumaGroup, Kind: api.KindMeshGatewayInstance}) {
		items, _ := src.List(ctx, gk, "")
		kube = append(kube, items...)
	}
	if len(kube) == 0 {
		return nil
	}
	for _, gk := range []schema.GroupKind{{Kind: api.KindNamespace}, {Kind: api.KindService}, dataplaneGK,
		meshGK, {Group: api.KumaGroup, Kind: api.KindMeshService}} {
		items, _ := src.List(ctx, gk, "")
		kube = append(kube, items...)
	}
	return kumak8s.Derive(kube, kumak8s.Options{}).Objects
}

func meshOf(u *unstructured.Unstructured) string {
	if m := api.MeshOf(u); m != "" {
		return m
	}
	return api.DefaultMeshName
}

func meshObject(name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{}}}
	u.SetAPIVersion(api.KumaGroup + "/v1alpha1")
	u.SetKind(api.KindMesh)
	u.SetName(name)
	return u
}

// effectFindings words what eff says of subject s (p: its effect, nil when it
// selects no proxy).
func effectFindings(s Subject, eff *kumainspect.Effects, p *kumainspect.PolicyEffect) field.ErrorList {
	var out field.ErrorList
	if s.Object.GetLabels()["kuma.io/effect"] == "shadow" {
		return nil
	}
	if p == nil || len(p.Selects) == 0 {
		if n := proxiesInScope(s, eff); n > 0 && !eff.Truncated {
			out = append(out, field.Invalid(field.NewPath("spec", "targetRef"), field.OmitValueType{},
				fmt.Sprintf("the top-level targetRef selects none of the proxies of mesh %s%s (%s), so the policy does nothing: check the targetRef's kind, name, labels and sectionName against the proxies' labels", meshOf(s.Object), scopeWords(s), countText(n, "proxy", "proxies"))).
				WithOrigin(validate.CodeKumaSelectsNone))
		}
		return out
	}
	if len(p.FromIgnored) > 0 {
		out = append(out, field.Invalid(field.NewPath("spec", "from"), field.OmitValueType{},
			fmt.Sprintf("Kuma ignores this policy's `from` on %s: `rules` MeshTrafficPermission %s selects them, and once one does Kuma programs only the `rules` policies there (kumahq/kuma #18740); move these clients into `rules`", inboundsText(p.FromIgnored), othersText(p.FromIgnored))).
			WithOrigin(validate.CodeKumaFromIgnored))
	}
	if len(p.Hides) > 0 {
		out = append(out, field.Invalid(field.NewPath("spec", "rules"), field.OmitValueType{},
			fmt.Sprintf("on %s this `rules` policy makes Kuma ignore the `from` MeshTrafficPermission %s (kumahq/kuma #18740: where a `rules` policy selects an inbound, `from` policies are not programmed); move their clients into `rules`", inboundsText(p.Hides), othersText(p.Hides))).
			WithOrigin(validate.CodeKumaFromIgnored))
	}
	if p.Merged && !p.Decides && len(p.OverriddenBy) > 0 && !eff.Truncated {
		out = append(out, field.Invalid(field.NewPath("spec"), field.OmitValueType{},
			fmt.Sprintf("the policy selects %s, but every field it sets is overridden by %s on each of them, so it changes nothing: remove it or make it the one that decides", proxiesText(p.Selects), strings.Join(p.OverriddenBy, ", "))).
			WithOrigin(validate.CodeKumaOverridden))
	}
	for _, i := range p.Unreached {
		out = append(out, field.Invalid(field.NewPath("spec", "to").Index(i).Child("targetRef"), field.OmitValueType{},
			fmt.Sprintf("none of the proxies the policy selects (%s) can reach this destination (their reachableBackends leave it out), so the item applies nowhere", proxiesText(p.Selects))).
			WithOrigin(validate.CodeKumaToUnreached))
	}
	return out
}

// proxiesInScope is how many judged proxies the policy could select: all of the
// mesh for a policy of the system namespace (its role label, which the mutating
// stage sets, says so) or without a namespace, else those of its namespace.
func proxiesInScope(s Subject, eff *kumainspect.Effects) int {
	if ns := namespaceScope(s); ns != "" {
		return eff.Namespaces[ns]
	}
	return eff.Proxies
}

// namespaceScope is the namespace a policy's proxies must be in, "" for the
// whole mesh: consumer and workload-owner policies select only proxies of their
// namespace (system and producer ones any).
func namespaceScope(s Subject) string {
	switch api.PolicyRole(s.Object.GetLabels()[api.LabelPolicyRole]) {
	case api.RoleConsumer, api.RoleWorkloadOwner:
		return s.Object.GetNamespace()
	}
	return ""
}

func scopeWords(s Subject) string {
	if ns := namespaceScope(s); ns != "" {
		return " in namespace " + ns
	}
	return ""
}

func countText(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// proxiesText names up to three proxies and counts the rest.
func proxiesText(names []string) string {
	return listText(names, "proxy", "proxies")
}

func listText(names []string, one, many string) string {
	if len(names) == 1 {
		return one + " " + names[0]
	}
	if len(names) <= 3 {
		return fmt.Sprintf("%d %s (%s)", len(names), many, strings.Join(names, ", "))
	}
	return fmt.Sprintf("%d %s (%s and %d more)", len(names), many, strings.Join(names[:3], ", "), len(names)-3)
}

func inboundsText(ins []kumainspect.Inbound) string {
	names := make([]string, len(ins))
	for i, in := range ins {
		names[i] = fmt.Sprintf("%s port %d", in.Dataplane, in.Port)
	}
	return listText(names, "the inbound", "inbounds")
}

// othersText names the policies on the other side of the inbounds, once each.
func othersText(ins []kumainspect.Inbound) string {
	seen := map[string]bool{}
	var names []string
	for _, in := range ins {
		for _, n := range in.By {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	return strings.Join(names, ", ")
}
