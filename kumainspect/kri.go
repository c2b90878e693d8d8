package kumainspect

import (
	"fmt"
	"strings"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumarules"
)

// kri is Kuma's resource identifier: kri_<short>_<mesh>_<zone>_<namespace>_<name>_<section>.
type kri struct {
	Type, Mesh, Zone, Namespace, Name, Section string
}

// String is the identifier's text, as Kuma writes it.
func (t typeTable) kriString(k kri) string {
	return strings.Join([]string{"kri", t.byKind[k.Type].shortName, k.Mesh, k.Zone, k.Namespace, k.Name, k.Section}, "_")
}

// parseKRI reads an identifier as Kuma's kri.FromString does, with its errors:
// at least seven parts, the first "kri", a known short name, and the section the
// rest of the parts joined.
func (t typeTable) parseKRI(s string) (kri, error) {
	parts := strings.Split(s, "_")
	if len(parts) < 7 {
		return kri{}, fmt.Errorf("invalid identifier string: %q", s)
	}
	if parts[0] != "kri" {
		return kri{}, fmt.Errorf("identifier must start with 'kri': %q", s)
	}
	typ, ok := t.byShort[parts[1]]
	if !ok || parts[1] == "" {
		return kri{}, fmt.Errorf("unknown short name of resource type: %q", parts[1])
	}
	return kri{Type: typ.kind, Mesh: parts[2], Zone: parts[3], Namespace: parts[4], Name: parts[5],
		Section: strings.Join(parts[6:], "")}, nil
}

// kriOf is the identifier Kuma derives from a resource's meta (kri.FromResourceMeta):
// its mesh, the zone and namespace labels, and its display name.
func kriOf(m kumarules.Meta, typ string) kri {
	return kri{Type: typ, Mesh: m.Mesh, Zone: m.Labels[api.LabelZone], Namespace: m.Labels[api.LabelNamespace], Name: m.DisplayName()}
}

// ruleKey is the key kumarules gives a resource rule of k.
func ruleKey(k kri) string {
	return kumarules.KRI{Type: k.Type, Mesh: k.Mesh, Zone: k.Zone, Namespace: k.Namespace, Name: k.Name, Section: k.Section}.String()
}
