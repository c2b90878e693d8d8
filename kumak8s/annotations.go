package kumak8s

import (
	"fmt"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"
)

// transparentProxying reads the transparent-proxy annotations as dataplaneFor
// does; nil when none of its fields is set.
func transparentProxying(ann map[string]string) (map[string]any, error) {
	tp := map[string]any{}
	enabled := isEnabled(ann[annTransparentProxy])
	if enabled || ann[annTPConfig] != "" {
		if l := splitList(ann[annDirectAccess]); len(l) > 0 {
			tp["directAccessServices"] = toAnyList(l)
		}
		if l := splitList(ann[annReachableServices]); len(l) > 0 {
			tp["reachableServices"] = toAnyList(l)
		}
		if v, ok := ann[annReachableBackends]; ok {
			rb, err := reachableBackends(v)
			if err != nil {
				return nil, err
			}
			tp["reachableBackends"] = rb
		}
	}
	if enabled {
		for key, field := range map[string]string{annTPInboundPort: "redirectPortInbound", annTPOutboundPort: "redirectPortOutbound"} {
			v, ok := ann[key]
			if !ok {
				return nil, fmt.Errorf("annotation %s: transparent proxying needs it (the injector sets it)", key)
			}
			n, err := strconv.ParseUint(v, 10, 32)
			if err != nil {
				return nil, fmt.Errorf("annotation %s: %q is not a port", key, v)
			}
			tp[field] = int64(n)
		}
		switch mode := ann[annTPIPFamilyMode]; mode {
		case "", "dualstack":
			tp["ipFamilyMode"] = "DualStack"
		case "ipv4":
			tp["ipFamilyMode"] = "IPv4"
		default:
			return nil, fmt.Errorf("annotation %s: invalid ip family mode %q", annTPIPFamilyMode, mode)
		}
	}
	if len(tp) == 0 {
		return nil, nil
	}
	return tp, nil
}

// reachableBackends parses the kuma.io/reachable-backends annotation (YAML refs
// of kind, name, namespace, labels, port).
func reachableBackends(v string) (map[string]any, error) {
	var in struct {
		Refs []struct {
			Kind      string            `json:"kind,omitempty"`
			Name      string            `json:"name,omitempty"`
			Namespace string            `json:"namespace,omitempty"`
			Labels    map[string]string `json:"labels,omitempty"`
			Port      *uint32           `json:"port,omitempty"`
		} `json:"refs,omitempty"`
	}
	if err := yaml.Unmarshal([]byte(v), &in); err != nil {
		return nil, fmt.Errorf("cannot parse, %s has invalid format", annReachableBackends)
	}
	refs := []any{}
	for _, r := range in.Refs {
		ref := map[string]any{"kind": r.Kind}
		if r.Name != "" {
			ref["name"] = r.Name
		}
		if r.Namespace != "" {
			ref["namespace"] = r.Namespace
		}
		if len(r.Labels) > 0 {
			ref["labels"] = toAny(r.Labels)
		}
		if r.Port != nil {
			ref["port"] = int64(*r.Port)
		}
		refs = append(refs, ref)
	}
	out := map[string]any{}
	if len(refs) > 0 {
		out["refs"] = refs
	}
	return out, nil
}

// isEnabled reads a Kuma boolean annotation (enabled, true, yes).
func isEnabled(v string) bool {
	switch v {
	case "enabled", "true", "yes":
		return true
	}
	return false
}

// splitList splits a list annotation at commas, as Kuma's GetList does (empty
// items dropped, no trimming).
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}
