package main

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumadiff"
	"github.com/meshguard/meshguard/kumainspect"
	"github.com/meshguard/meshguard/schema"
)

// kumaConfigDiff compares what the Kuma objects of both sets give every proxy
// (their Dataplanes), every policy kind but MeshTrafficPermission, whose change
// the authorization diff reports.
func kumaConfigDiff(oldObjs, newObjs []*unstructured.Unstructured, settings api.Settings) (kumadiff.Report, error) {
	schemas, _ := settings.Schemas.(*schema.Set)
	reg := api.DefaultRegistry()
	old, err := kumainspect.NewStore(storeObjects(oldObjs), reg, schemas)
	if err != nil {
		return kumadiff.Report{}, usageErr("old set: %v", err)
	}
	now, err := kumainspect.NewStore(storeObjects(newObjs), reg, schemas)
	if err != nil {
		return kumadiff.Report{}, usageErr("new set: %v", err)
	}
	return kumadiff.Compare(old, now, kumadiff.Options{SkipKinds: []string{api.KindMeshTrafficPermission}}), nil
}

// storeObjects are a set's objects for the store, plus a Mesh for every mesh its
// Dataplanes name that the set does not define: Kuma creates the default mesh
// itself, and a repository of policies rarely holds its Mesh.
func storeObjects(objs []*unstructured.Unstructured) []kumainspect.Object {
	out := make([]kumainspect.Object, 0, len(objs)+1)
	defined, named := map[string]bool{}, []string{}
	for _, u := range objs {
		out = append(out, kumainspect.Object{Unstructured: u})
		switch u.GetKind() {
		case api.KindMesh:
			defined[u.GetName()] = true
		case api.KindDataplane:
			mesh := u.GetLabels()[api.LabelMesh]
			if mesh == "" {
				mesh = api.DefaultMeshName
			}
			named = append(named, mesh)
		}
	}
	for _, mesh := range named {
		if defined[mesh] {
			continue
		}
		defined[mesh] = true
		m := &unstructured.Unstructured{Object: map[string]any{"apiVersion": api.KumaGroup + "/v1alpha1", "kind": api.KindMesh,
			"metadata": map[string]any{"name": mesh}}}
		out = append(out, kumainspect.Object{Unstructured: m})
	}
	return out
}
