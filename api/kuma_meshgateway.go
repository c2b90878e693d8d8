package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// MeshGatewaySpec is the spec of a MeshGateway: Kuma's proto MeshGateway message as
// JSON (camelCase keys). Its CRD keeps the spec unchecked and Kuma decodes it with
// unknown fields ignored and wrong types refused, so this type is what Kuma reads.
type MeshGatewaySpec struct {
	Selectors []KumaSelector    `json:"selectors,omitempty"`
	Tags      map[string]string `json:"tags,omitempty"`
	Conf      *MeshGatewayConf  `json:"conf,omitempty"`
}

// KumaSelector is the proto Selector of Kuma's old-style resources: the tags a data
// plane proxy must have.
type KumaSelector struct {
	Match map[string]string `json:"match,omitempty"`
}

// MeshGatewayConf holds a gateway's listeners.
type MeshGatewayConf struct {
	Listeners []MeshGatewayListener `json:"listeners,omitempty"`
}

// MeshGatewayListener is one port (and hostname) a gateway listens on.
type MeshGatewayListener struct {
	Hostname  string                `json:"hostname,omitempty"`
	Port      uint32                `json:"port,omitempty"`
	Protocol  ProtoEnum             `json:"protocol,omitempty"`
	TLS       *MeshGatewayTLS       `json:"tls,omitempty"`
	Tags      map[string]string     `json:"tags,omitempty"`
	CrossMesh bool                  `json:"crossMesh,omitempty"`
	Resources *MeshGatewayResources `json:"resources,omitempty"`
}

// MeshGatewayTLS is a listener's TLS: terminate with up to two certificates, or pass
// through.
type MeshGatewayTLS struct {
	Mode         ProtoEnum `json:"mode,omitempty"`
	Certificates []Free    `json:"certificates,omitempty"`
	Options      Free      `json:"options,omitempty"`
}

// MeshGatewayResources bounds what a listener may use.
type MeshGatewayResources struct {
	ConnectionLimit uint32 `json:"connectionLimit,omitempty"`
}

// MeshGatewayProtocols are the listener protocols of Kuma's proto, by number (number
// 2, once UDP, is unused).
func MeshGatewayProtocols() ProtoEnumNames {
	return ProtoEnumNames{"NONE", "TCP", "", "TLS", "HTTP", "HTTPS"}
}

// MeshGatewayTLSModes are the listener TLS modes of Kuma's proto, by number.
func MeshGatewayTLSModes() ProtoEnumNames { return ProtoEnumNames{"NONE", "TERMINATE", "PASSTHROUGH"} }

// ProtoEnum is a proto enum value as protobuf's JSON decoder takes it: its name, or
// its number (kept as the number's text). The empty value is the enum's zero.
type ProtoEnum string

// UnmarshalJSON takes a string or an integer, as Kuma's decoder does.
func (e *ProtoEnum) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*e = ProtoEnum(s)
		return nil
	}
	if string(b) == "null" {
		*e = ""
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 32)
	if err != nil {
		return fmt.Errorf("a proto enum is a name or an integer, not %s", b)
	}
	*e = ProtoEnum(strconv.FormatInt(n, 10))
	return nil
}

// ProtoEnumNames lists a proto enum's names by number.
type ProtoEnumNames []string

// Name returns the enum name of e ("" for the zero value), and false when Kuma's
// decoder would refuse e: a name it does not list. protobuf's JSON decoder keeps an
// unknown number (proto3 enums are open), so a number always decodes.
func (n ProtoEnumNames) Name(e ProtoEnum) (string, bool) {
	if e == "" {
		return n[0], true
	}
	if i, err := strconv.Atoi(string(e)); err == nil {
		if i >= 0 && i < len(n) && n[i] != "" {
			return n[i], true
		}
		return string(e), true
	}
	for _, name := range n {
		if name != "" && name == string(e) {
			return name, true
		}
	}
	return "", false
}

// TopLevelMesh reports the kinds whose mesh Kuma reads on Kubernetes from the
// object's top-level `mesh` field rather than the kuma.io/mesh label (its old-style,
// proto-based mesh-scoped kinds): Kuma requires the field and computes the label
// from it.
func TopLevelMesh(k *Kind) bool {
	switch RefKind(k.Kind) {
	case RefMeshGateway, RefMeshGatewayRoute, RefDataplane:
		return k.Group == KumaGroup
	}
	return false
}

// MeshOf is the mesh a Kuma object names: its kuma.io/mesh label, else the
// top-level mesh field of the kinds that have one (a Dataplane or MeshGateway
// manifest, TopLevelMesh); "" when it names none, which the caller reads as its
// default mesh.
func MeshOf(u *unstructured.Unstructured) string {
	if m := u.GetLabels()[LabelMesh]; m != "" {
		return m
	}
	m, _ := u.Object["mesh"].(string)
	return m
}
