package main

import (
	"fmt"
	"io"
	"slices"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumadiff"
	"github.com/meshguard/meshguard/kumainspect"
	"github.com/meshguard/meshguard/kumak8s"
	"github.com/meshguard/meshguard/schema"
)

// kumaConfigDiff compares what the Kuma objects of both sets give every proxy
// (their Dataplanes, and those Kuma derives from their workloads), every policy
// kind but MeshTrafficPermission, whose change the authorization diff reports.
// Notes on workloads that could not become proxies go to errOut.
func kumaConfigDiff(errOut io.Writer, oldSet, newSet diffSet, settings api.Settings) (kumadiff.Report, error) {
	schemas, _ := settings.Schemas.(*schema.Set)
	reg := api.DefaultRegistry()
	var objects [2][]kumainspect.Object
	var notes [2][]string
	for i, set := range []diffSet{oldSet, newSet} {
		objs := make([]kumainspect.Object, 0, len(set.kuma))
		kube := slices.Clone(set.kube)
		for _, o := range set.kuma {
			objs = append(objs, kumainspect.Object{Unstructured: o.Unstructured, Universal: o.Universal})
			if !o.Universal {
				kube = append(kube, o.Unstructured)
			}
		}
		derived := kumak8s.Derive(kube, kumak8s.Options{})
		for _, note := range derived.Notes {
			notes[i] = append(notes[i], fmt.Sprintf("meshguard diff: %s: %s\n", set.label, note))
		}
		for _, u := range derived.Objects {
			objs = append(objs, kumainspect.Object{Unstructured: u})
		}
		objects[i] = storeObjects(objs)
	}
	// The two stores are read at once, each object the sets share once; what
	// is written and returned is what reading them one after the other gives.
	oldStore, newStore, oldErr, newErr := kumainspect.NewStores(objects[0], objects[1], reg, schemas)
	for i, err := range []error{oldErr, newErr} {
		for _, n := range notes[i] {
			io.WriteString(errOut, n)
		}
		if err != nil {
			return kumadiff.Report{}, usageErr("%s: %v", []string{oldSet.label, newSet.label}[i], err)
		}
	}
	return kumadiff.Compare(oldStore, newStore, kumadiff.Options{SkipKinds: []string{api.KindMeshTrafficPermission}}), nil
}

// storeObjects are a set's objects for the store, plus a Mesh for every mesh its
// Dataplanes name that the set does not define: Kuma creates the default mesh
// itself, and a repository of policies rarely holds its Mesh.
func storeObjects(objs []kumainspect.Object) []kumainspect.Object {
	out := slices.Clone(objs)
	defined, named := map[string]bool{}, []string{}
	for _, o := range objs {
		u := o.Unstructured
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
