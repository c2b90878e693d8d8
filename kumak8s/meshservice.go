package kumak8s

import (
	"maps"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
)

// meshServices adds the MeshService Kuma's MeshServiceReconciler writes for each
// Service of the input.
func (d *deriver) meshServices() {
	for _, ns := range sortedKeys(d.services) {
		for _, svc := range d.services[ns] {
			if ms := d.meshService(svc); ms != nil {
				d.res.Objects = append(d.res.Objects, &unstructured.Unstructured{Object: ms})
			}
		}
	}
}

// meshService is the MeshService of a Service, or nil where Kuma writes none:
// the Namespace not meshed (kuma.io/sidecar-injection) and the Service without a
// kuma.io/mesh label; the mesh not in the input (but default) or its
// meshServices.mode Disabled; kuma.io/ignore; a Service for a gateway (annotated,
// or selecting gateway Pods); a zone proxy Service; no cluster IP (ExternalName);
// a headless Service (Kuma writes one per Pod endpoint, which manifests do not
// have). The input's own MeshService of that name wins.
func (d *deriver) meshService(svc *corev1.Service) map[string]any {
	ns := d.namespaces[svc.Namespace]
	if ns == nil {
		return nil
	}
	if _, labelled := svc.Labels[api.LabelMesh]; !labelled && !isEnabled(ns.Labels[annSidecarInjection]) {
		return nil
	}
	mesh := meshOf(svc.Labels, svc.Annotations, ns)
	if _, ok := d.meshes[mesh]; !ok && mesh != "default" {
		return nil
	}
	if d.meshServicesMode(mesh) == "Disabled" || isEnabled(svc.Annotations[annIgnore]) {
		return nil
	}
	if _, gw := svc.Annotations[annGateway]; gw || d.backsGateway(svc) {
		return nil
	}
	if _, zp := svc.Labels[labelZoneProxyType]; zp || svc.Spec.Type == corev1.ServiceTypeExternalName || svc.Spec.ClusterIP == corev1.ClusterIPNone {
		return nil
	}
	if d.given[api.KindMeshService+"/"+svc.Namespace+"/"+svc.Name] {
		return nil
	}
	labels := maps.Clone(svc.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	labels[api.LabelMesh] = mesh
	labels[labelServiceName] = svc.Name
	labels[labelManagedBy] = "k8s-controller"
	labels[labelEnv] = "kubernetes"
	labels[labelHeadless] = "false"
	if d.o.ZoneMode {
		setIfAbsent(labels, api.LabelOrigin, "zone")
		setIfAbsent(labels, api.LabelZone, d.o.Zone)
	}
	selector := map[string]any{}
	for k, v := range svc.Spec.Selector {
		selector[k] = v
	}
	selector[api.LabelNamespace] = svc.Namespace
	sel := map[string]any{"dataplaneTags": selector}
	if d.o.InboundTagsDisabled {
		sel = map[string]any{"dataplaneLabels": map[string]any{"matchLabels": selector}}
	}
	spec := map[string]any{"selector": sel, "ports": meshServicePorts(svc)}
	ms := map[string]any{
		"apiVersion": meshServiceAPIVersion,
		"kind":       api.KindMeshService,
		"metadata":   map[string]any{"name": svc.Name, "namespace": svc.Namespace, "labels": toAny(labels)},
		"spec":       spec,
	}
	if svc.Spec.ClusterIP != "" {
		ms["status"] = map[string]any{"vips": []any{map[string]any{"ip": svc.Spec.ClusterIP}}}
	}
	d.addMesh(mesh)
	return ms
}

// meshServicePorts are the Service's TCP ports: name (the port number when
// unnamed), port, targetPort (the port when unset, as the API server defaults
// it) and appProtocol (tcp when unset).
func meshServicePorts(svc *corev1.Service) []any {
	ports := []any{}
	for _, p := range svc.Spec.Ports {
		if p.Protocol != "" && p.Protocol != corev1.ProtocolTCP {
			continue
		}
		name := p.Name
		if name == "" {
			name = strconv.Itoa(int(p.Port))
		}
		port := map[string]any{"name": name, "port": int64(p.Port), "appProtocol": "tcp"}
		if p.AppProtocol != nil {
			port["appProtocol"] = *p.AppProtocol
		}
		switch {
		case p.TargetPort.StrVal != "":
			port["targetPort"] = p.TargetPort.StrVal
		case p.TargetPort.IntVal != 0:
			port["targetPort"] = int64(p.TargetPort.IntVal)
		default:
			port["targetPort"] = int64(p.Port)
		}
		ports = append(ports, port)
	}
	return ports
}

// backsGateway reports whether the Service selects a workload whose proxy is a
// gateway (isServiceForGateway reads the endpoints' Pods).
func (d *deriver) backsGateway(svc *corev1.Service) bool {
	if len(svc.Spec.Selector) == 0 {
		return false
	}
	for _, wp := range d.gateways {
		if wp.pod.Namespace == svc.Namespace && selects(svc, wp.pod) {
			return true
		}
	}
	return false
}
