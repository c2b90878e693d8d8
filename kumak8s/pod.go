package kumak8s

import (
	"fmt"
	"maps"
	"sort"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/meshguard/meshguard/api"
)

// Annotation, label and tag names of Kuma 2.14 (pkg/plugins/runtime/k8s/metadata
// and api/mesh/v1alpha1 of kumahq/kuma v2.14.3) that the derivation reads or writes.
const (
	annSidecarInjection   = "kuma.io/sidecar-injection"
	annSidecarInjected    = "kuma.io/sidecar-injected"
	annGateway            = "kuma.io/gateway"
	annTags               = "kuma.io/tags"
	annIgnore             = "kuma.io/ignore"
	annTransparentProxy   = "kuma.io/transparent-proxying"
	annTPInboundPort      = "kuma.io/transparent-proxying-inbound-port"
	annTPOutboundPort     = "kuma.io/transparent-proxying-outbound-port"
	annTPIPFamilyMode     = "kuma.io/transparent-proxying-ip-family-mode"
	annTPConfig           = "traffic.kuma.io/transparent-proxy-config"
	annDirectAccess       = "kuma.io/direct-access-services"
	annReachableServices  = "kuma.io/transparent-proxying-reachable-services"
	annReachableBackends  = "kuma.io/reachable-backends"
	labelZoneProxyType    = "k8s.kuma.io/zone-proxy-type"
	labelServiceAccount   = "k8s.kuma.io/service-account"
	labelWorkload         = "kuma.io/workload"
	labelProxyType        = "kuma.io/proxy-type"
	labelEnv              = "kuma.io/env"
	labelManagedBy        = "kuma.io/managed-by"
	labelServiceName      = "k8s.kuma.io/service-name"
	labelHeadless         = "k8s.kuma.io/is-headless-service"
	tagService            = "kuma.io/service"
	tagProtocol           = "kuma.io/protocol"
	tagInstance           = "kuma.io/instance"
	tagServicePort        = "k8s.kuma.io/service-port"
	sidecarContainerName  = "kuma-sidecar"
	portReserved          = 49151 // TCPPortReserved: the inbound of a Pod no Service selects
	injectorInboundPort   = 15006 // the injector's default redirect ports
	injectorOutboundPort  = 15001
	gatewayDelegated      = "DELEGATED"
	gatewayBuiltin        = "BUILTIN"
	dataplaneAPIVersion   = "kuma.io/v1alpha1"
	meshServiceAPIVersion = "kuma.io/v1alpha1"
)

// Options are the control plane's settings the derivation depends on.
type Options struct {
	// Zone is the zone's name (KUMA_MULTIZONE_ZONE_NAME); "" for a standalone
	// control plane without one. Kuma writes it as the kuma.io/zone tag of every
	// inbound.
	Zone string
	// ZoneMode marks a federated zone control plane: Dataplanes then carry the
	// kuma.io/origin: zone, kuma.io/zone and kuma.io/env labels.
	ZoneMode bool
	// InboundTagsDisabled is KUMA_EXPERIMENTAL_INBOUND_TAGS_DISABLED: inbounds
	// carry no tags and MeshServices select Dataplanes by labels.
	InboundTagsDisabled bool
}

// PodDataplane is the Dataplane Kuma's PodConverter (PodToDataplane) writes for a
// sidecar Pod in mesh, given the Services that select it (in name order, as the
// pod controller lists them) and the mesh's meshServices.mode. The result is the
// Kubernetes form: apiVersion, kind, mesh, metadata (name, namespace, labels) and
// spec.networking (address, inbound, gateway, transparentProxying). Outbounds,
// metrics, probes and admin port are not derived (no inspect endpoint reads them).
func PodDataplane(pod *corev1.Pod, services []*corev1.Service, mesh, meshServicesMode string, o Options) (map[string]any, error) {
	nw := map[string]any{}
	if pod.Status.PodIP != "" {
		nw["address"] = pod.Status.PodIP
	}
	tp, err := transparentProxying(pod.Annotations)
	if err != nil {
		return nil, err
	}
	if gwType, ok := pod.Annotations[annGateway]; ok {
		gw, err := delegatedGateway(pod, services, gwType, o)
		if err != nil {
			return nil, err
		}
		nw["gateway"] = gw
	} else {
		var regular []*corev1.Service
		for _, s := range services {
			if _, zp := s.Labels[labelZoneProxyType]; !zp {
				regular = append(regular, s)
			}
		}
		if len(regular) > 0 || len(regular) == len(services) {
			in := inbounds(pod, regular, o)
			if meshServicesMode == "Exclusive" && o.InboundTagsDisabled {
				in = dedupeInbounds(in)
			}
			nw["inbound"] = in
		}
	}
	if tp != nil {
		nw["transparentProxying"] = tp
	}
	proxyType := "sidecar"
	dp := map[string]any{
		"apiVersion": dataplaneAPIVersion,
		"kind":       api.KindDataplane,
		"mesh":       mesh,
		"metadata": map[string]any{
			"name":      pod.Name,
			"namespace": pod.Namespace,
			"labels":    toAny(dataplaneLabels(pod, mesh, proxyType, o)),
		},
		"spec": map[string]any{"networking": nw},
	}
	return dp, nil
}

// dataplaneLabels are the labels resource_labels.Compute gives a Pod's Dataplane:
// the Pod's labels, then kuma.io/mesh, the zone labels in a federated zone,
// k8s.kuma.io/namespace, kuma.io/proxy-type and the service account and
// workload (the service account, when no workload label is configured).
func dataplaneLabels(pod *corev1.Pod, mesh, proxyType string, o Options) map[string]string {
	labels := maps.Clone(pod.Labels)
	if labels == nil {
		labels = map[string]string{}
	}
	setIfAbsent(labels, api.LabelMesh, mesh)
	if o.ZoneMode {
		setIfAbsent(labels, api.LabelOrigin, "zone")
		if labels[api.LabelOrigin] != "global" {
			setIfAbsent(labels, api.LabelZone, o.Zone)
			setIfAbsent(labels, labelEnv, "kubernetes")
		}
	}
	if labels[api.LabelOrigin] != "global" {
		setIfAbsent(labels, api.LabelNamespace, pod.Namespace)
	}
	labels[labelProxyType] = proxyType
	if sa := pod.Spec.ServiceAccountName; sa != "" {
		labels[labelServiceAccount] = sa
		labels[labelWorkload] = sa
	}
	return labels
}

func setIfAbsent(m map[string]string, k, v string) {
	if _, ok := m[k]; !ok {
		m[k] = v
	}
}

// inbounds are the inbounds of a Pod: one per TCP port of every Service (not of
// type ExternalName) whose target port the Pod has, else the one serviceless
// inbound on port 49151.
func inbounds(pod *corev1.Pod, services []*corev1.Service, o Options) []any {
	var out []any
	for _, svc := range services {
		if svc.Spec.Type == corev1.ServiceTypeExternalName {
			continue
		}
		for i := range svc.Spec.Ports {
			if in, ok := inboundFor(pod, svc, &svc.Spec.Ports[i], o); ok {
				out = append(out, in)
			}
		}
	}
	if len(out) == 0 {
		out = append(out, serviceless(pod, o))
	}
	return out
}

// inboundFor is the inbound of one Service port (inboundForService).
func inboundFor(pod *corev1.Pod, svc *corev1.Service, sp *corev1.ServicePort, o Options) (map[string]any, bool) {
	if sp.Protocol != "" && sp.Protocol != corev1.ProtocolTCP {
		return nil, false
	}
	port, name, container, ok := findPort(pod, sp)
	if !ok {
		return nil, false
	}
	protocol := protocolFor(svc, sp)
	in := map[string]any{"port": int64(port), "protocol": protocol}
	if name != "" {
		in["name"] = name
	}
	if !o.InboundTagsDisabled {
		in["tags"] = toAny(inboundTags(pod, svc, sp, protocol, o))
	}
	ready := podReady(pod, container) && selects(svc, pod)
	switch {
	case !selects(svc, pod):
		in["state"] = "Ignored"
	case !ready:
		in["state"] = "NotReady"
	}
	if ready {
		in["health"] = map[string]any{"ready": true}
	} else {
		in["health"] = map[string]any{}
	}
	return in, true
}

// inboundTags are InboundTagsForService: the Pod's labels (not empty, none with
// kuma.io/ in the key), the namespace, Service name and port, kuma.io/service
// `<svc>_<ns>_svc_<port>`, the zone, the protocol (not for a delegated gateway
// whose Service port is not TCP) and, for a headless Service, the instance.
func inboundTags(pod *corev1.Pod, svc *corev1.Service, sp *corev1.ServicePort, protocol string, o Options) map[string]string {
	tags := map[string]string{}
	for k, v := range pod.Labels {
		if v != "" && !strings.Contains(k, "kuma.io/") {
			tags[k] = v
		}
	}
	tags[api.LabelNamespace] = pod.Namespace
	tags[labelServiceName] = svc.Name
	tags[tagServicePort] = strconv.Itoa(int(sp.Port))
	tags[tagService] = fmt.Sprintf("%s_%s_svc_%d", svc.Name, svc.Namespace, sp.Port)
	if o.Zone != "" {
		tags[api.LabelZone] = o.Zone
	}
	if !(isEnabled(pod.Annotations[annGateway]) && protocol != "tcp") {
		tags[tagProtocol] = protocol
	}
	if svc.Spec.ClusterIP == corev1.ClusterIPNone {
		tags[tagInstance] = pod.Name
	}
	return tags
}

// serviceless is the inbound of a Pod no Service selects (inboundForServiceless):
// port 49151, kuma.io/service `<name>_<ns>_svc`, the Pod's name as instance.
func serviceless(pod *corev1.Pod, o Options) map[string]any {
	in := map[string]any{"port": int64(portReserved), "protocol": "tcp"}
	if !o.InboundTagsDisabled {
		tags := map[string]string{}
		for k, v := range pod.Labels {
			if v != "" {
				tags[k] = v
			}
		}
		tags[api.LabelNamespace] = pod.Namespace
		tags[tagService] = fmt.Sprintf("%s_%s_svc", pod.Name, pod.Namespace)
		if o.Zone != "" {
			tags[api.LabelZone] = o.Zone
		}
		tags[tagProtocol] = "tcp"
		tags[tagInstance] = pod.Name
		in["tags"] = toAny(tags)
	}
	ready := true
	for _, c := range pod.Spec.Containers {
		if c.Name != sidecarContainerName && !containerReady(pod, c.Name) {
			ready = false
		}
	}
	if !sidecarReady(pod) {
		ready = false
	}
	if ready {
		in["health"] = map[string]any{"ready": true}
	} else {
		in["state"] = "NotReady"
		in["health"] = map[string]any{}
	}
	return in
}

// findPort is util_k8s.FindPort: a named target port must name a container port
// of the Service port's protocol; a numbered one is taken as it is, with the
// name of the container port that has it.
func findPort(pod *corev1.Pod, sp *corev1.ServicePort) (int, string, *corev1.Container, bool) {
	proto := func(p corev1.Protocol) corev1.Protocol {
		if p == "" {
			return corev1.ProtocolTCP
		}
		return p
	}
	tp := sp.TargetPort
	if tp.Type == intstr.Int && tp.IntVal == 0 && tp.StrVal == "" {
		tp = intstr.FromInt32(sp.Port) // the API server defaults targetPort to port
	}
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		for _, p := range c.Ports {
			if proto(p.Protocol) != proto(sp.Protocol) {
				continue
			}
			if (tp.Type == intstr.String && p.Name == tp.StrVal) || (tp.Type == intstr.Int && p.ContainerPort == tp.IntVal) {
				return int(p.ContainerPort), p.Name, c, true
			}
		}
	}
	if tp.Type == intstr.Int {
		return tp.IntValue(), "", nil, true
	}
	return 0, "", nil, false
}

// protocolFor is ProtocolTagFor: an appProtocol Kuma knows, else the
// `<port>.service.kuma.io/protocol` annotation, else tcp; lower-cased.
func protocolFor(svc *corev1.Service, sp *corev1.ServicePort) string {
	v := ""
	if sp.AppProtocol != nil && knownProtocol(*sp.AppProtocol) {
		v = *sp.AppProtocol
	}
	if a, ok := svc.Annotations[fmt.Sprintf("%d.service.kuma.io/protocol", sp.Port)]; ok && v == "" {
		v = a
	}
	if v == "" {
		v = "tcp"
	}
	return strings.ToLower(v)
}

// knownProtocol is core_meta.ParseProtocol's set (case-insensitive); Kuma
// ignores any other appProtocol.
func knownProtocol(p string) bool {
	switch strings.ToLower(p) {
	case "http", "http2", "tcp", "tls", "grpc", "kafka", "mysql":
		return true
	}
	return false
}

func selects(svc *corev1.Service, pod *corev1.Pod) bool {
	for k, v := range svc.Spec.Selector {
		if got, ok := pod.Labels[k]; !ok || got != v {
			return false
		}
	}
	return true
}

// podReady is podReady of the inbound converter: the container (if known) and
// the sidecar ready (or without status), and the Pod not terminating.
func podReady(pod *corev1.Pod, c *corev1.Container) bool {
	if c != nil && !containerReady(pod, c.Name) {
		return false
	}
	return sidecarReady(pod) && pod.DeletionTimestamp == nil
}

func containerReady(pod *corev1.Pod, name string) bool {
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name == name {
			return cs.Ready
		}
	}
	return true
}

func sidecarReady(pod *corev1.Pod) bool {
	for _, l := range [][]corev1.ContainerStatus{pod.Status.ContainerStatuses, pod.Status.InitContainerStatuses} {
		for _, cs := range l {
			if cs.Name == sidecarContainerName {
				return cs.Ready
			}
		}
	}
	return true
}

// dedupeInbounds keeps the first inbound of each address and port.
func dedupeInbounds(in []any) []any {
	seen := map[string]bool{}
	var out []any
	for _, e := range in {
		m := e.(map[string]any)
		key := fmt.Sprint(m["address"], ":", m["port"])
		if !seen[key] {
			seen[key] = true
			out = append(out, e)
		}
	}
	return out
}

func toAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

func toAnyList(l []string) []any {
	out := make([]any, len(l))
	for i, s := range l {
		out[i] = s
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
