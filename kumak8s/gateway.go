package kumak8s

import (
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"

	"github.com/meshguard/meshguard/api"
)

// delegatedGateway is the gateway of a Pod with the kuma.io/gateway annotation:
// "enabled" takes the tags of the first inbound the Services give it. "provided"
// (a Deployment's service name) is read like "enabled" here, since the Pod's
// owner chain is not known at this level.
func delegatedGateway(pod *corev1.Pod, services []*corev1.Service, gwType string, o Options) (map[string]any, error) {
	if gwType != "enabled" && gwType != "provided" {
		return nil, fmt.Errorf("annotation %s: invalid delegated gateway type %q", annGateway, gwType)
	}
	in := inbounds(pod, services, o)
	tags, _ := in[0].(map[string]any)["tags"].(map[string]any)
	// DELEGATED is the type's zero value, which Kuma does not write.
	return map[string]any{"tags": tags}, nil
}

// builtinGatewayDataplane is the Dataplane of a Pod serving a builtin gateway
// (BuiltinGatewayDataplane): the kuma.io/tags annotation's tags (plus the zone)
// as gateway tags.
func builtinGatewayDataplane(pod *corev1.Pod, mesh string, o Options) (map[string]any, error) {
	var tags map[string]string
	if err := json.Unmarshal([]byte(pod.Annotations[annTags]), &tags); err != nil || tags == nil {
		return nil, fmt.Errorf("annotation %s: invalid on a Pod serving a builtin gateway", annTags)
	}
	if o.Zone != "" {
		tags[api.LabelZone] = o.Zone
	}
	nw := map[string]any{"gateway": map[string]any{"tags": toAny(tags), "type": gatewayBuiltin}}
	if pod.Status.PodIP != "" {
		nw["address"] = pod.Status.PodIP
	}
	labels := dataplaneLabels(pod, mesh, "gateway", o)
	delete(labels, labelWorkload) // the gateway converter gives no workload
	return map[string]any{
		"apiVersion": dataplaneAPIVersion,
		"kind":       api.KindDataplane,
		"mesh":       mesh,
		"metadata":   map[string]any{"name": pod.Name, "namespace": pod.Namespace, "labels": toAny(labels)},
		"spec":       map[string]any{"networking": nw},
	}, nil
}
