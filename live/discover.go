package live

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/meshguard/meshguard/api"
)

// served is what discovery says about one group: its versions, the one it
// prefers, and the resources of each version asked about so far.
type served struct {
	versions  map[string]bool
	preferred string
	resources map[string]map[string]metav1.APIResource // version -> plural -> resource
}

// resolve picks, for every registry resource, the one version to list: the
// group's preferred version when the registry has it, else the first registry
// version (registration order, newest first) the cluster serves. A kind the
// registry has in several versions is one set of stored objects, so listing
// every version would read each object several times.
func (r *Reader) resolve(reg *api.Registry, inventory bool, extra []schema.GroupVersionResource) ([]target, []Skipped, error) {
	groups, err := r.disc.ServerGroups()
	if err != nil {
		return nil, nil, fmt.Errorf("discovering the API groups the cluster serves: %w", err)
	}
	byGroup := map[string]*served{}
	for _, g := range groups.Groups {
		s := &served{versions: map[string]bool{}, preferred: g.PreferredVersion.Version, resources: map[string]map[string]metav1.APIResource{}}
		for _, v := range g.Versions {
			s.versions[v.Version] = true
		}
		byGroup[g.Name] = s
	}
	var targets []target
	var skipped []Skipped
	done := map[schema.GroupResource]bool{}
	for _, k := range reg.Kinds() {
		gr := schema.GroupResource{Group: k.Group, Resource: k.Plural}
		if done[gr] {
			continue
		}
		done[gr] = true
		t, ok, err := r.pick(byGroup[k.Group], reg, k)
		if err != nil {
			return nil, nil, err
		}
		if !ok {
			skipped = append(skipped, Skipped{Resource: resourceName(k.GVR()), Kind: k.Kind, Reason: "not served by the cluster (CRD not installed)"})
			continue
		}
		targets = append(targets, t)
	}
	if inventory {
		inv, err := r.inventoryTargets(byGroup)
		if err != nil {
			return nil, nil, err
		}
		targets = append(targets, inv...)
	}
	more, err := r.extraTargets(byGroup, extra)
	if err != nil {
		return nil, nil, err
	}
	targets = append(targets, more...)
	return targets, skipped, nil
}

// pick chooses the version of k's resource to list; ok is false when the
// cluster serves the resource in none of the registry's versions.
func (r *Reader) pick(s *served, reg *api.Registry, k *api.Kind) (target, bool, error) {
	if s == nil {
		return target{}, false, nil
	}
	var versions []string
	for _, o := range reg.Kinds() {
		if o.Group == k.Group && o.Plural == k.Plural {
			versions = append(versions, o.Version)
		}
	}
	for i, v := range versions {
		if v == s.preferred && i > 0 {
			versions[0], versions[i] = versions[i], versions[0]
		}
	}
	for _, v := range versions {
		if !s.versions[v] {
			continue
		}
		res, err := r.resourcesOf(s, k.Group, v)
		if err != nil {
			return target{}, false, err
		}
		if ar, ok := res[k.Plural]; ok {
			gvr := schema.GroupVersionResource{Group: k.Group, Version: v, Resource: k.Plural}
			return target{gvr: gvr, kind: ar.Kind, namespaced: ar.Namespaced}, true, nil
		}
	}
	return target{}, false, nil
}

// resourcesOf returns the resources of group/version, asking discovery once.
func (r *Reader) resourcesOf(s *served, group, version string) (map[string]metav1.APIResource, error) {
	if m, ok := s.resources[version]; ok {
		return m, nil
	}
	gv := schema.GroupVersion{Group: group, Version: version}.String()
	list, err := r.disc.ServerResourcesForGroupVersion(gv)
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("discovering the resources of %s: %w", gv, err)
	}
	m := map[string]metav1.APIResource{}
	if list != nil {
		for _, ar := range list.APIResources {
			m[ar.Name] = ar
		}
	}
	s.resources[version] = m
	return m, nil
}

// inventoryKind is one kind the inventory reads.
type inventoryKind struct {
	gvr  schema.GroupVersionResource
	kind string
	keep func(*unstructured.Unstructured) bool
}

// inventoryKinds are what the cross-document checks look policies up against:
// Namespaces (their labels and annotations), Services, ServiceAccounts (Linkerd
// identities name them) and the workloads of api's workload table. ReplicaSets,
// Jobs and Pods a controller owns are left out: their controller's pod template
// says the same, once.
func inventoryKinds() []inventoryKind {
	out := []inventoryKind{
		{schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}, api.KindNamespace, nil},
		{schema.GroupVersionResource{Version: "v1", Resource: "services"}, "Service", nil},
		{schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}, api.KindServiceAccount, nil},
	}
	for _, gvk := range api.WorkloadKinds() {
		// Every workload kind's resource is its lower-case plural with an "s".
		gvr := gvk.GroupVersion().WithResource(strings.ToLower(gvk.Kind) + "s")
		var keep func(*unstructured.Unstructured) bool
		switch gvk.Kind {
		case api.KindPod, api.KindReplicaSet, api.KindJob:
			keep = unowned
		}
		out = append(out, inventoryKind{gvr, gvk.Kind, keep})
	}
	return out
}

// InventoryResources lists the resources Read lists for the inventory, so the
// chart's RBAC for the audit is generated from the same table (see
// hack/gen-chart-rules).
func InventoryResources() []schema.GroupVersionResource {
	kinds := inventoryKinds()
	out := make([]schema.GroupVersionResource, len(kinds))
	for i, k := range kinds {
		out[i] = k.gvr
	}
	return out
}

// unowned keeps objects no controller owns.
func unowned(u *unstructured.Unstructured) bool {
	return metav1.GetControllerOf(u) == nil
}

func (r *Reader) inventoryTargets(byGroup map[string]*served) ([]target, error) {
	core := &served{versions: map[string]bool{"v1": true}, preferred: "v1", resources: map[string]map[string]metav1.APIResource{}}
	var out []target
	for _, ik := range inventoryKinds() {
		s := core
		if ik.gvr.Group != "" {
			s = byGroup[ik.gvr.Group]
		}
		if s == nil || !s.versions[ik.gvr.Version] {
			continue
		}
		res, err := r.resourcesOf(s, ik.gvr.Group, ik.gvr.Version)
		if err != nil {
			return nil, err
		}
		ar, ok := res[ik.gvr.Resource]
		if !ok {
			continue
		}
		out = append(out, target{gvr: ik.gvr, kind: ik.kind, namespaced: ar.Namespaced, inventory: true, keep: ik.keep})
	}
	return out, nil
}

// extraTargets are the resources of Options.Extra the cluster serves, listed
// into the inventory; one it does not serve is left out without a word (a
// cluster without Kuma's control plane has no Dataplanes).
func (r *Reader) extraTargets(byGroup map[string]*served, extra []schema.GroupVersionResource) ([]target, error) {
	var out []target
	for _, gvr := range extra {
		s := byGroup[gvr.Group]
		if s == nil || !s.versions[gvr.Version] {
			continue
		}
		res, err := r.resourcesOf(s, gvr.Group, gvr.Version)
		if err != nil {
			return nil, err
		}
		if ar, ok := res[gvr.Resource]; ok {
			out = append(out, target{gvr: gvr, kind: ar.Kind, namespaced: ar.Namespaced, inventory: true})
		}
	}
	return out, nil
}
