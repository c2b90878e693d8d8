package api

import (
	"fmt"
	"strconv"
	"strings"
)

// MeshSpec is the spec of a Mesh: Kuma's proto Mesh message as JSON. Its CRD
// preserves unknown fields and Kuma decodes it leniently (unknown fields ignored,
// wrong types refused), so the typed spec is what Kuma reads. The backends' conf is
// free-form: its shape depends on the backend's type, and the rules decode it per type.
type MeshSpec struct {
	MTLS                        *MeshMTLS         `json:"mtls,omitempty"`
	Tracing                     *MeshTracing      `json:"tracing,omitempty"`
	Logging                     *MeshLogging      `json:"logging,omitempty"`
	Metrics                     *MeshMetrics      `json:"metrics,omitempty"`
	Networking                  *MeshNetworking   `json:"networking,omitempty"`
	Routing                     *MeshRouting      `json:"routing,omitempty"`
	Constraints                 *MeshConstraints  `json:"constraints,omitempty"`
	SkipCreatingInitialPolicies []string          `json:"skipCreatingInitialPolicies,omitempty"`
	MeshServices                *MeshServicesMode `json:"meshServices,omitempty"`
}

// MeshMTLS is the mesh's mTLS: its certificate authorities and which one is active.
type MeshMTLS struct {
	EnabledBackend string          `json:"enabledBackend,omitempty"`
	Backends       []MeshCABackend `json:"backends,omitempty"`
	SkipValidation bool            `json:"skipValidation,omitempty"`
}

// MeshCABackend is one certificate authority (builtin or provided in Kuma).
type MeshCABackend struct {
	Name      string      `json:"name,omitempty"`
	Type      string      `json:"type,omitempty"`
	DpCert    *MeshDpCert `json:"dpCert,omitempty"`
	Conf      Free        `json:"conf,omitempty"`
	Mode      Free        `json:"mode,omitempty"`
	RootChain Free        `json:"rootChain,omitempty"`
}

// MeshDpCert is how the proxies' certificates are issued.
type MeshDpCert struct {
	Rotation       *MeshDpCertRotation `json:"rotation,omitempty"`
	RequestTimeout Free                `json:"requestTimeout,omitempty"`
}

// MeshDpCertRotation says how long a proxy certificate lives ("1d", "10h").
type MeshDpCertRotation struct {
	Expiration string `json:"expiration,omitempty"`
}

// MeshTracing lists the mesh's tracing backends (legacy: MeshTrace replaces them).
type MeshTracing struct {
	DefaultBackend string               `json:"defaultBackend,omitempty"`
	Backends       []MeshTracingBackend `json:"backends,omitempty"`
}

// MeshTracingBackend is one tracing backend: zipkin or datadog.
type MeshTracingBackend struct {
	Name     string       `json:"name,omitempty"`
	Sampling *ProtoNumber `json:"sampling,omitempty"`
	Type     string       `json:"type,omitempty"`
	Conf     Free         `json:"conf,omitempty"`
}

// MeshLogging lists the mesh's access-log backends (legacy: MeshAccessLog replaces
// them).
type MeshLogging struct {
	DefaultBackend string               `json:"defaultBackend,omitempty"`
	Backends       []MeshLoggingBackend `json:"backends,omitempty"`
}

// MeshLoggingBackend is one access-log backend: file or tcp.
type MeshLoggingBackend struct {
	Name   string `json:"name,omitempty"`
	Format string `json:"format,omitempty"`
	Type   string `json:"type,omitempty"`
	Conf   Free   `json:"conf,omitempty"`
}

// MeshMetrics lists the mesh's metrics backends (legacy: MeshMetric replaces them).
type MeshMetrics struct {
	EnabledBackend string               `json:"enabledBackend,omitempty"`
	Backends       []MeshMetricsBackend `json:"backends,omitempty"`
}

// MeshMetricsBackend is one metrics backend: prometheus.
type MeshMetricsBackend struct {
	Name string `json:"name,omitempty"`
	Type string `json:"type,omitempty"`
	Conf Free   `json:"conf,omitempty"`
}

// MeshNetworking is the mesh's outbound networking.
type MeshNetworking struct {
	Outbound *struct {
		Passthrough *bool `json:"passthrough,omitempty"`
	} `json:"outbound,omitempty"`
}

// MeshRouting is how the mesh routes across zones.
type MeshRouting struct {
	LocalityAwareLoadBalancing             bool `json:"localityAwareLoadBalancing,omitempty"`
	ZoneEgress                             bool `json:"zoneEgress,omitempty"`
	DefaultForbidMeshExternalServiceAccess bool `json:"defaultForbidMeshExternalServiceAccess,omitempty"`
}

// MeshConstraints restricts which proxies may join the mesh.
type MeshConstraints struct {
	DataplaneProxy *struct {
		Requirements []MeshTagRules `json:"requirements,omitempty"`
		Restrictions []MeshTagRules `json:"restrictions,omitempty"`
	} `json:"dataplaneProxy,omitempty"`
}

// MeshTagRules is one requirement or restriction: the tags a proxy must (not) have.
type MeshTagRules struct {
	Tags map[string]string `json:"tags,omitempty"`
}

// MeshServicesMode is whether and how the mesh uses MeshServices; the mode is an
// enum name (Disabled, Everywhere, ReachableBackends, Exclusive) or its number.
type MeshServicesMode struct {
	Mode Free `json:"mode,omitempty"`
}

// ProtoNumber is a number as Kuma's protobuf JSON decoder reads a Mesh: a JSON number or
// a string that holds one ("80.5"), so that meshguard refuses no Mesh Kuma accepts.
type ProtoNumber float64

// UnmarshalJSON accepts a number or a quoted number.
func (n *ProtoNumber) UnmarshalJSON(b []byte) error {
	s := string(b)
	if uq, err := strconv.Unquote(s); err == nil {
		s = uq
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil {
		return fmt.Errorf("%s is not a number", b)
	}
	*n = ProtoNumber(f)
	return nil
}
