package kumak8s

import (
	"fmt"
	"maps"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
)

// proxy builds the Dataplane of one workload, if Kuma gives it one.
func (d *deriver) proxy(wp *workloadPod) {
	pod := wp.pod
	ns := d.namespaces[pod.Namespace]
	builtin := pod.Annotations[annGateway] == "builtin"
	if !builtin && !d.inject(pod, ns) {
		return
	}
	mesh := meshOf(pod.Labels, pod.Annotations, ns)
	if _, ok := d.meshes[mesh]; !ok && mesh != "default" {
		d.res.Notes = append(d.res.Notes, fmt.Sprintf("%s %s: mesh %q is not in the input, so Kuma would not create its Dataplane", wp.kind, place(pod.Namespace, wp.name), mesh))
		return
	}
	p := Proxy{Kind: wp.kind, Name: wp.name, Namespace: pod.Namespace, Mesh: mesh}
	if name, ok := d.podDataplane(wp); ok {
		p.Dataplane, p.Given = name, true
		d.res.Proxies = append(d.res.Proxies, p)
		return
	}
	pod.Name = d.dataplaneName(wp)
	p.Dataplane = pod.Name
	var dp map[string]any
	var err error
	if builtin {
		dp, err = builtinGatewayDataplane(pod, mesh, d.o)
		p.Gateway = gatewayBuiltin
	} else {
		dp, err = PodDataplane(pod, d.selecting(pod), mesh, d.meshServicesMode(mesh), d.o)
		if _, gw := pod.Annotations[annGateway]; gw {
			p.Gateway = gatewayDelegated
			d.providedGateway(wp, dp)
		}
	}
	if err != nil {
		d.res.Notes = append(d.res.Notes, fmt.Sprintf("%s %s: no Dataplane: %v", wp.kind, place(pod.Namespace, wp.name), err))
		return
	}
	if p.Gateway != "" {
		d.gateways = append(d.gateways, wp)
	}
	key := api.KindDataplane + "/" + pod.Namespace + "/" + pod.Name
	if d.given[key] {
		p.Given = true
	} else {
		d.addMesh(mesh)
		d.res.Objects = append(d.res.Objects, &unstructured.Unstructured{Object: dp})
	}
	d.res.Proxies = append(d.res.Proxies, p)
}

// inject decides as the injector does (needToInject): the Pod's
// kuma.io/sidecar-injection label, else its Namespace's. A Pod injected already
// (kuma.io/sidecar-injected) keeps its annotations; one to inject gets the
// injector's: the mesh label, kuma.io/sidecar-injected and the transparent proxy
// on the default redirect ports.
func (d *deriver) inject(pod *corev1.Pod, ns *corev1.Namespace) bool {
	if isEnabled(pod.Annotations[annSidecarInjected]) {
		return true
	}
	for _, c := range append(append([]corev1.Container{}, pod.Spec.Containers...), pod.Spec.InitContainers...) {
		if c.Name == sidecarContainerName {
			return false
		}
	}
	v, ok := pod.Labels[annSidecarInjection]
	if !ok && ns != nil {
		v = ns.Labels[annSidecarInjection]
	}
	if !isEnabled(v) {
		return false
	}
	mesh := meshOf(pod.Labels, pod.Annotations, ns)
	pod.Labels = maps.Clone(pod.Labels)
	if pod.Labels == nil {
		pod.Labels = map[string]string{}
	}
	pod.Labels[api.LabelMesh] = mesh
	ann := maps.Clone(pod.Annotations)
	if ann == nil {
		ann = map[string]string{}
	}
	ann[annSidecarInjected] = "true"
	ann[annTransparentProxy] = "enabled"
	ann[annTPInboundPort] = fmt.Sprint(injectorInboundPort)
	ann[annTPOutboundPort] = fmt.Sprint(injectorOutboundPort)
	pod.Annotations = ann
	return true
}

// dataplaneName is the workload's name, or `<kind>-<name>` when another
// workload of the namespace took it first.
func (d *deriver) dataplaneName(wp *workloadPod) string {
	name := wp.name
	if d.taken[wp.pod.Namespace+"/"+name] {
		name = strings.ToLower(wp.kind) + "-" + wp.name
	}
	d.taken[wp.pod.Namespace+"/"+name] = true
	return name
}

// selecting are the Services of the Pod's namespace that select it (a selector
// that matches its labels, not kuma.io/ignore), in name order.
func (d *deriver) selecting(pod *corev1.Pod) []*corev1.Service {
	var out []*corev1.Service
	for k, v := range pod.Labels {
		for _, s := range d.bySelector[selectorKey(pod.Namespace, k, v)] {
			if selects(s, pod) {
				out = append(out, s)
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// indexSelectors fills bySelector with every Service that can select a pod: a
// selector, and no kuma.io/ignore.
func (d *deriver) indexSelectors() {
	for ns, svcs := range d.services {
		for _, s := range svcs {
			if len(s.Spec.Selector) == 0 || isEnabled(s.Annotations[annIgnore]) {
				continue
			}
			k := sortedKeys(s.Spec.Selector)[0]
			key := selectorKey(ns, k, s.Spec.Selector[k])
			d.bySelector[key] = append(d.bySelector[key], s)
		}
	}
}

func selectorKey(ns, k, v string) string { return ns + "\x00" + k + "=" + v }

// providedGateway gives a Deployment's `kuma.io/gateway: provided` Pod the
// gateway tags GatewayByDeploymentFor writes.
func (d *deriver) providedGateway(wp *workloadPod, dp map[string]any) {
	if wp.pod.Annotations[annGateway] != "provided" || wp.kind != api.KindDeployment {
		return
	}
	nw := dp["spec"].(map[string]any)["networking"].(map[string]any)
	nw["gateway"] = map[string]any{"tags": map[string]any{labelServiceName: fmt.Sprintf("%s_%s_svc", wp.name, wp.pod.Namespace)}}
}

// meshServicesMode is the mesh's meshServices.mode (Disabled when unset, as
// Kuma reads it).
func (d *deriver) meshServicesMode(mesh string) string {
	ms, _ := d.meshes[mesh]["meshServices"].(map[string]any)
	if mode, _ := ms["mode"].(string); mode != "" {
		return mode
	}
	return "Disabled"
}

// addMesh adds the default Mesh Kuma's control plane creates when a derived
// object joins it and the input has no Mesh of that name.
func (d *deriver) addMesh(mesh string) {
	if _, ok := d.meshes[mesh]; ok || mesh != "default" {
		return
	}
	d.meshes[mesh] = nil
	d.res.Objects = append(d.res.Objects, &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": dataplaneAPIVersion, "kind": api.KindMesh, "metadata": map[string]any{"name": mesh}}})
}

// podDataplane is the input's Dataplane of one of the workload's pods: in its
// namespace, named `<workload>-…` (a Pod: its own name), with every label of the
// pod template.
func (d *deriver) podDataplane(wp *workloadPod) (string, bool) {
	for _, u := range d.givenDPs[wp.pod.Namespace] {
		name := u.GetName()
		if wp.kind == api.KindPod && name != wp.name || wp.kind != api.KindPod && !strings.HasPrefix(name, wp.name+"-") {
			continue
		}
		labels := u.GetLabels()
		all := true
		for k, v := range wp.pod.Labels {
			if k != api.LabelMesh && labels[k] != v {
				all = false
			}
		}
		if all {
			return name, true
		}
	}
	return "", false
}
