package api

// HostnameGeneratorSpec is the spec of a HostnameGenerator: which services get a
// hostname (exactly one selector) and the Go template that renders it.
type HostnameGeneratorSpec struct {
	Selector  HostnameGeneratorSelector `json:"selector,omitempty"`
	Template  string                    `json:"template"`
	Extension *KumaExtension            `json:"extension,omitempty"`
}

// HostnameGeneratorSelector picks the kind of service a generator names and, by
// labels, which ones; a pointer per kind because Kuma counts those present.
type HostnameGeneratorSelector struct {
	MeshService          *KumaLabelSelector `json:"meshService,omitempty"`
	MeshExternalService  *KumaLabelSelector `json:"meshExternalService,omitempty"`
	MeshMultiZoneService *KumaLabelSelector `json:"meshMultiZoneService,omitempty"`
}

// KumaExtension hands a resource to a control-plane extension: its type names it,
// its config is the extension's own.
type KumaExtension struct {
	Type   string `json:"type"`
	Config Free   `json:"config,omitempty"`
}

// KindHostnameGenerator is the kind's name, for code outside api that must spell it.
const KindHostnameGenerator = "HostnameGenerator"
