package api

// MeshMultiZoneServiceSpec is the spec of a MeshMultiZoneService: the MeshServices of
// several zones it groups (by labels) and the ports it exposes.
type MeshMultiZoneServiceSpec struct {
	Selector MeshMultiZoneServiceSelector `json:"selector"`
	Ports    []MeshMultiZoneServicePort   `json:"ports"`
}

// MeshMultiZoneServiceSelector selects the grouped MeshServices by their labels.
type MeshMultiZoneServiceSelector struct {
	MeshService KumaLabelSelector `json:"meshService"`
}

// MeshMultiZoneServicePort is one port; a nil Name is absent, an empty one is an
// error Kuma reports. The CRD defaults appProtocol to tcp.
type MeshMultiZoneServicePort struct {
	Name        *string `json:"name,omitempty"`
	Port        int32   `json:"port"`
	AppProtocol string  `json:"appProtocol,omitempty"`
}
