package api

// MeshTrustSpec is the spec of a MeshTrust: a trust domain and the CA bundles that
// verify its identities.
type MeshTrustSpec struct {
	Origin      *MeshTrustOrigin `json:"origin,omitempty"`
	TrustDomain string           `json:"trustDomain"`
	CABundles   []CABundle       `json:"caBundles"`
}

// MeshTrustOrigin names the MeshIdentity a generated MeshTrust comes from.
type MeshTrustOrigin struct {
	KRI *string `json:"kri,omitempty"`
}

// CABundle is one CA bundle; type Pem is the only kind, in pem.
type CABundle struct {
	Type string       `json:"type"`
	PEM  *CABundlePEM `json:"pem,omitempty"`
}

// CABundlePEM is a PEM-encoded certificate bundle.
type CABundlePEM struct {
	Value string `json:"value"`
}

// KindMeshTrust is the kind's name, for code outside api that must spell it.
const KindMeshTrust = "MeshTrust"
