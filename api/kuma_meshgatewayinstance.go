package api

// MeshGatewayInstanceSpec is the spec of a MeshGatewayInstance, a Kubernetes-only
// kind (not in Kuma's resource store): how Kuma deploys a builtin gateway's proxies
// and the tags they get. Its CRD checks the types; Kuma's webhook checks the tags.
type MeshGatewayInstanceSpec struct {
	MeshGatewayCommonConfig `json:",inline"`
	Tags                    map[string]string `json:"tags,omitempty"`
}

// MeshGatewayConfigSpec is the spec of a MeshGatewayConfig, the cluster-wide defaults
// of gateway deployments (Kubernetes-only, no validator in Kuma beyond its CRD).
type MeshGatewayConfigSpec struct {
	MeshGatewayCommonConfig `json:",inline"`
	CrossMesh               bool              `json:"crossMesh,omitempty"`
	Tags                    map[string]string `json:"tags,omitempty"`
}

// MeshGatewayCommonConfig is what a gateway deployment takes: replicas, the
// Service's type, the pod's resources, and templates of the Service and the pod.
type MeshGatewayCommonConfig struct {
	Replicas        int32  `json:"replicas,omitempty"`
	ServiceType     string `json:"serviceType,omitempty"`
	Resources       Free   `json:"resources,omitempty"`
	ServiceTemplate Free   `json:"serviceTemplate,omitempty"`
	PodTemplate     Free   `json:"podTemplate,omitempty"`
}

// The Kubernetes-only gateway kinds' names, for code outside api that must spell them.
const (
	KindMeshGatewayInstance = "MeshGatewayInstance"
	KindMeshGatewayConfig   = "MeshGatewayConfig"
)
