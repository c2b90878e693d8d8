package api

import "encoding/json"

// MeshProxyPatchSpec is a MeshProxyPatch: raw Envoy modifications (a single `default`).
type MeshProxyPatchSpec = Policy[MeshProxyPatchConf]

// MeshProxyPatchConf is the conf of MeshProxyPatch, after Kuma's meshproxypatch
// v1alpha1 Conf.
type MeshProxyPatchConf struct {
	AppendModifications *[]ProxyModification `json:"appendModifications,omitempty"`
}

// ProxyModification is one modification; exactly one of its sections must be set.
type ProxyModification struct {
	Cluster       *ProxyMod `json:"cluster,omitempty"`
	Listener      *ProxyMod `json:"listener,omitempty"`
	NetworkFilter *ProxyMod `json:"networkFilter,omitempty"`
	HTTPFilter    *ProxyMod `json:"httpFilter,omitempty"`
	VirtualHost   *ProxyMod `json:"virtualHost,omitempty"`
}

// ProxyMod is a modification of one Envoy resource type. Kuma gives each type its
// own struct; they differ only in the keys of Match, which the rules read as a map
// (the CRD checks the keys). Value is Envoy config as YAML or JSON text.
type ProxyMod struct {
	Match       *map[string]Free  `json:"match,omitempty"`
	Operation   string            `json:"operation,omitempty"`
	Value       *string           `json:"value,omitempty"`
	JSONPatches *[]JSONPatchBlock `json:"jsonPatches,omitempty"`
}

// JSONPatchBlock is one RFC 6902 operation of a jsonPatches list.
type JSONPatchBlock struct {
	Op    string          `json:"op,omitempty"`
	Path  *string         `json:"path,omitempty"`
	From  *string         `json:"from,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
}
