package api

import "k8s.io/apimachinery/pkg/util/intstr"

// MeshServiceSpec is the spec of a MeshService (Kuma's meshservice API): which data
// plane proxies it selects, its ports and its identities. Kuma's validator checks the
// name's length and that at most one kind of selector is set; the rest is the CRD's.
type MeshServiceSpec struct {
	State      string                 `json:"state,omitempty"`
	Selector   MeshServiceSelector    `json:"selector,omitempty"`
	Ports      []MeshServicePort      `json:"ports,omitempty"`
	Identities *[]MeshServiceIdentity `json:"identities,omitempty"`
}

// MeshServiceSelector selects the proxies of a MeshService in one of three ways; a
// pointer per way, because Kuma counts the ways that are present, empty or not.
type MeshServiceSelector struct {
	DataplaneTags   *map[string]string `json:"dataplaneTags,omitempty"`
	DataplaneRef    *KumaNameRef       `json:"dataplaneRef,omitempty"`
	DataplaneLabels *KumaLabelSelector `json:"dataplaneLabels,omitempty"`
}

// KumaNameRef names one object (a MeshService's dataplaneRef).
type KumaNameRef struct {
	Name string `json:"name,omitempty"`
}

// KumaLabelSelector is the label selector of Kuma's common API: matchLabels only.
type KumaLabelSelector struct {
	MatchLabels *map[string]string `json:"matchLabels,omitempty"`
}

// MeshServicePort is one port of a MeshService; the CRD defaults appProtocol to tcp.
type MeshServicePort struct {
	Name        *string             `json:"name,omitempty"`
	Port        int32               `json:"port"`
	TargetPort  *intstr.IntOrString `json:"targetPort,omitempty"`
	AppProtocol string              `json:"appProtocol,omitempty"`
}

// MeshServiceIdentity is one identity a MeshService's proxies present.
type MeshServiceIdentity struct {
	Type  string `json:"type"`
	Value string `json:"value"`
}
