package api

import (
	"slices"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// workload is a Kubernetes kind that carries pods, and where its pod template is.
type workload struct {
	gvk schema.GroupVersionKind
	// template is the path of the pod template; nil for a Pod, which is its own.
	template []string
}

// workloads are the kinds whose pods Linkerd's proxy injector and policy controller
// see: a Pod itself and the built-in controllers with a pod template. The Linkerd
// checks (Server conflicts, the default-policy annotation, the authorization
// preview) all read pod labels, ports and annotations through this one table.
var workloads = []workload{
	{schema.GroupVersionKind{Version: "v1", Kind: KindPod}, nil},
	{schema.GroupVersionKind{Version: "v1", Kind: KindReplicationController}, []string{"spec", "template"}},
	{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: KindDeployment}, []string{"spec", "template"}},
	{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "StatefulSet"}, []string{"spec", "template"}},
	{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "DaemonSet"}, []string{"spec", "template"}},
	{schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: KindReplicaSet}, []string{"spec", "template"}},
	{schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: KindJob}, []string{"spec", "template"}},
	{schema.GroupVersionKind{Group: "batch", Version: "v1", Kind: "CronJob"}, []string{"spec", "jobTemplate", "spec", "template"}},
}

// WorkloadKinds lists the kinds that carry pods, as the workload table knows them:
// readers of a cluster's inventory (meshguard audit, check --kubeconfig) list
// these, so a kind added here is read everywhere.
func WorkloadKinds() []schema.GroupVersionKind {
	out := make([]schema.GroupVersionKind, len(workloads))
	for i, w := range workloads {
		out[i] = w.gvk
	}
	return out
}

// PodTemplatePath returns where an object of the given kind keeps its pod template,
// looked up by kind name alone (manifests often get the apiVersion of a workload
// wrong in ways that do not matter to the pods): nil for a Pod, which is its own
// template; ok is false for kinds that carry no pods.
func PodTemplatePath(kind string) (path []string, ok bool) {
	for _, w := range workloads {
		if w.gvk.Kind == kind {
			return slices.Clone(w.template), true
		}
	}
	return nil, false
}

// PodTemplatePathOf is PodTemplatePath for an exact group, version and kind, for
// checks that must not guess (an admission request names its resource exactly).
func PodTemplatePathOf(gvk schema.GroupVersionKind) (path []string, ok bool) {
	for _, w := range workloads {
		if w.gvk == gvk {
			return slices.Clone(w.template), true
		}
	}
	return nil, false
}
