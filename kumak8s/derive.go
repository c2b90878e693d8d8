package kumak8s

import (
	"encoding/json"
	"fmt"
	"maps"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/meshguard/meshguard/api"
)

// Proxy is one proxy the derivation found: the workload it stands for and the
// Dataplane that represents it (derived, or given in the input under that name).
type Proxy struct {
	// Kind and Name are the workload's (Deployment/web, Pod/web-7d9,
	// MeshGatewayInstance/edge).
	Kind, Name string
	// Namespace is the workload's namespace, also the Dataplane's.
	Namespace string
	// Mesh is the mesh the proxy joins.
	Mesh string
	// Dataplane is the Dataplane's metadata.name (Kuma's store names it
	// Dataplane.Namespace).
	Dataplane string
	// Gateway is "", "BUILTIN" or "DELEGATED".
	Gateway string
	// Given is set when the input holds that Dataplane already and it was kept.
	Given bool
}

// Result is what Derive adds to the input and the proxies it stands for.
type Result struct {
	// Objects are the derived Dataplanes and MeshServices (and the default Mesh
	// when a derived object joins it and the input has none), in Kubernetes form.
	Objects []*unstructured.Unstructured
	// Proxies are the workloads that became proxies, in input order.
	Proxies []Proxy
	// Notes say which workloads could not become proxies and why.
	Notes []string
}

// deriver holds one derivation's lookups.
type deriver struct {
	o          Options
	namespaces map[string]*corev1.Namespace
	services   map[string][]*corev1.Service            // by namespace, in name order
	meshes     map[string]map[string]any               // Mesh name -> spec
	given      map[string]bool                         // namespace/name of input Dataplanes and MeshServices, by kind
	givenDPs   map[string][]*unstructured.Unstructured // the input's Dataplanes by namespace
	owners     map[string]bool                         // Kind/namespace/name of every workload of the input
	taken      map[string]bool                         // namespace/name of Dataplanes derived so far
	res        Result
	gateways   []*workloadPod // the workloads whose proxy is a gateway
	pods       []*workloadPod
	// bySelector indexes each Service with a selector under one of its pairs
	// (namespace, key=value of its first key), so a pod's Services are found
	// among those of its own labels, not among all of its namespace.
	bySelector map[string][]*corev1.Service
}

// workloadPod is one workload's representative Pod.
type workloadPod struct {
	kind, name string
	pod        *corev1.Pod
}

// Derive finds, among objs, the workloads Kuma's Kubernetes control plane gives a
// proxy and the Services it gives a MeshService, and builds those Dataplanes and
// MeshServices as Kuma 2.14 would:
//
//   - a Pod (not owned by a workload of the input), or the pod template of a
//     Deployment, StatefulSet, DaemonSet or ReplicaSet (not owned by a
//     Deployment of the input): one representative proxy per workload, its
//     Dataplane named after the workload (a Deployment's pods are named
//     web-7d9f-x2x4p by Kubernetes; the workload's name is the one users know);
//     injected when its label, else its Namespace's label, says
//     kuma.io/sidecar-injection: enabled, as the injector decides, with the
//     injector's transparent proxy (ports 15006 and 15001) unless the Pod was
//     injected already;
//   - a Pod or template annotated kuma.io/gateway: builtin, and each
//     MeshGatewayInstance: the builtin gateway Dataplane (kuma.io/tags);
//   - a ClusterIP Service of a meshed Namespace (or labelled kuma.io/mesh) in a
//     mesh whose meshServices.mode is not Disabled: its MeshService.
//
// A Dataplane or MeshService the input holds already (same namespace and name)
// is not derived again: the input wins. So does a Dataplane of one of the
// workload's pods, as a cluster running Kuma stores it (named after the pod:
// the workload's name and a dash, carrying the pod template's labels).
func Derive(objs []*unstructured.Unstructured, o Options) Result {
	d := &deriver{o: o, namespaces: map[string]*corev1.Namespace{}, services: map[string][]*corev1.Service{},
		meshes: map[string]map[string]any{}, given: map[string]bool{}, owners: map[string]bool{}, givenDPs: map[string][]*unstructured.Unstructured{}, taken: map[string]bool{}, bySelector: map[string][]*corev1.Service{}}
	d.index(objs)
	d.sortServices()
	d.indexSelectors()
	for _, u := range objs {
		d.workload(u)
	}
	for _, wp := range d.pods {
		d.proxy(wp)
	}
	d.meshServices()
	return d.res
}

// index reads the Namespaces, Services, Meshes and given Dataplanes and
// MeshServices of the input.
func (d *deriver) index(objs []*unstructured.Unstructured) {
	for _, u := range objs {
		gvk := u.GroupVersionKind()
		ns, name := u.GetNamespace(), u.GetName()
		d.owners[gvk.Kind+"/"+ns+"/"+name] = true
		switch {
		case gvk.Group == "" && gvk.Kind == api.KindNamespace:
			var n corev1.Namespace
			if d.convert(u, &n) {
				d.namespaces[name] = &n
			}
		case gvk.Group == "" && gvk.Kind == "Service":
			var s corev1.Service
			if d.convert(u, &s) {
				d.services[ns] = append(d.services[ns], &s)
			}
		case gvk.Group == api.KumaGroup && gvk.Kind == api.KindMesh:
			spec, _ := u.Object["spec"].(map[string]any)
			d.meshes[name] = spec
		case gvk.Group == api.KumaGroup && (gvk.Kind == api.KindDataplane || gvk.Kind == api.KindMeshService):
			d.given[gvk.Kind+"/"+ns+"/"+name] = true
			if gvk.Kind == api.KindDataplane {
				d.givenDPs[ns] = append(d.givenDPs[ns], u)
			}
		}
	}
}

// sortServices orders each namespace's Services by name (the pod controller's
// order), a later Service of the same name replacing an earlier one, as a second
// apply does.
func (d *deriver) sortServices() {
	for ns, l := range d.services {
		at := map[string]int{}
		var out []*corev1.Service
		for _, s := range l {
			if i, seen := at[s.Name]; seen {
				out[i] = s
				continue
			}
			at[s.Name] = len(out)
			out = append(out, s)
		}
		sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
		d.services[ns] = out
	}
}

// convert decodes u into a typed object; one that does not decode is noted.
func (d *deriver) convert(u *unstructured.Unstructured, into any) bool {
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, into); err != nil {
		d.res.Notes = append(d.res.Notes, fmt.Sprintf("%s %s: not read as a %s: %v", u.GetKind(), place(u.GetNamespace(), u.GetName()), u.GetKind(), err))
		return false
	}
	return true
}

func place(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// workload adds the representative Pod of a workload object.
func (d *deriver) workload(u *unstructured.Unstructured) {
	gvk := u.GroupVersionKind()
	if d.ownedInInput(u) {
		return
	}
	var pod *corev1.Pod
	switch {
	case gvk.Group == "" && gvk.Kind == api.KindPod:
		var p corev1.Pod
		if !d.convert(u, &p) {
			return
		}
		pod = &p
	case gvk.Group == "apps" && appsWorkload(gvk):
		var t struct {
			metav1.ObjectMeta `json:"metadata"`
			Spec              struct {
				Template corev1.PodTemplateSpec `json:"template"`
			} `json:"spec"`
		}
		if !d.convert(u, &t) {
			return
		}
		pod = &corev1.Pod{ObjectMeta: t.Spec.Template.ObjectMeta, Spec: t.Spec.Template.Spec}
		pod.Name, pod.Namespace = u.GetName(), u.GetNamespace()
	case gvk.Group == api.KumaGroup && gvk.Kind == api.KindMeshGatewayInstance:
		pod = d.gatewayInstancePod(u)
	}
	if pod == nil {
		return
	}
	if pod.Namespace == "" {
		pod.Namespace = metav1.NamespaceDefault
	}
	d.pods = append(d.pods, &workloadPod{kind: gvk.Kind, name: u.GetName(), pod: pod})
}

// ownedInInput reports whether a workload's controller is in the input (a
// ReplicaSet's Deployment, a Pod's ReplicaSet or StatefulSet, the Deployment of
// a MeshGatewayInstance): the owner stands for it.
func (d *deriver) ownedInInput(u *unstructured.Unstructured) bool {
	ref := metav1.GetControllerOf(u)
	if ref == nil {
		return false
	}
	ns := u.GetNamespace()
	if d.owners[ref.Kind+"/"+ns+"/"+ref.Name] {
		return true
	}
	// A Pod of a Deployment names a ReplicaSet `<deployment>-<hash>`.
	if ref.Kind == api.KindReplicaSet {
		if i := strings.LastIndex(ref.Name, "-"); i > 0 && d.owners[api.KindDeployment+"/"+ns+"/"+ref.Name[:i]] {
			return true
		}
	}
	return false
}

// gatewayInstancePod is the pod template of the Deployment Kuma's
// GatewayInstanceReconciler writes for a MeshGatewayInstance: labels app,
// kuma.io/sidecar-injection: disabled and kuma.io/mesh (then the instance's
// podTemplate labels), annotations kuma.io/gateway: builtin and kuma.io/tags
// (the instance's tags with kuma.io/service `<name>_<ns>_svc`).
func (d *deriver) gatewayInstancePod(u *unstructured.Unstructured) *corev1.Pod {
	var gi struct {
		metav1.ObjectMeta `json:"metadata"`
		Spec              struct {
			Tags        map[string]string `json:"tags"`
			PodTemplate struct {
				Metadata struct {
					Labels      map[string]string `json:"labels"`
					Annotations map[string]string `json:"annotations"`
				} `json:"metadata"`
				Spec struct {
					ServiceAccountName string `json:"serviceAccountName"`
				} `json:"spec"`
			} `json:"podTemplate"`
		} `json:"spec"`
	}
	if !d.convert(u, &gi) {
		return nil
	}
	ns := u.GetNamespace()
	if ns == "" {
		ns = metav1.NamespaceDefault
	}
	mesh := meshOf(gi.Labels, gi.Annotations, d.namespaces[ns])
	tags := maps.Clone(gi.Spec.Tags)
	if tags == nil {
		tags = map[string]string{}
	}
	if _, ok := tags[tagService]; !ok {
		tags[tagService] = fmt.Sprintf("%s_%s_svc", gi.Name, ns)
	}
	jsonTags, _ := json.Marshal(tags)
	ann := map[string]string{annGateway: "builtin", annTags: string(jsonTags)}
	maps.Copy(ann, gi.Spec.PodTemplate.Metadata.Annotations)
	labels := map[string]string{"app": gi.Name, annSidecarInjection: "disabled", api.LabelMesh: mesh}
	maps.Copy(labels, gi.Spec.PodTemplate.Metadata.Labels)
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: gi.Name, Namespace: ns, Labels: labels, Annotations: ann},
		Spec:       corev1.PodSpec{ServiceAccountName: gi.Spec.PodTemplate.Spec.ServiceAccountName},
	}
}

// meshOf is MeshOfByLabelOrAnnotation: the object's kuma.io/mesh label, else its
// annotation, else the Namespace's label, else its annotation, else default.
func meshOf(labels, annotations map[string]string, ns *corev1.Namespace) string {
	cands := []map[string]string{labels, annotations}
	if ns != nil {
		cands = append(cands, ns.Labels, ns.Annotations)
	}
	for _, m := range cands {
		if v := m[api.LabelMesh]; v != "" {
			return v
		}
	}
	return "default"
}

// appsWorkload reports whether gvk is one of the apps/v1 kinds with a pod
// template (Deployment, StatefulSet, DaemonSet, ReplicaSet), as api's workload
// table lists them.
func appsWorkload(gvk schema.GroupVersionKind) bool {
	path, ok := api.PodTemplatePathOf(gvk)
	return ok && path != nil
}
