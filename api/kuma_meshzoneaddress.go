package api

// MeshZoneAddressSpec is the spec of a MeshZoneAddress: the address and port other
// zones reach this zone's ingress at. Kuma 2.14 has no validator for it beyond its
// CRD (address non-empty, port 1-65535), so it has no rules of its own.
type MeshZoneAddressSpec struct {
	Address string `json:"address"`
	Port    int32  `json:"port"`
}
