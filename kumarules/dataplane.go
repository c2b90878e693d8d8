package kumarules

import (
	"fmt"
	"strconv"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
)

// Dataplane is one proxy as the matchers read it: its inbounds (and embedded zone
// proxy listeners), gateway role and labels. Policies select a Dataplane by its
// inbounds' tags, its labels or its name.
type Dataplane struct {
	Meta
	// Namespace is the Kubernetes namespace (k8s.kuma.io/namespace label), if any.
	Namespace string
	// Address is networking.address, the default address of inbounds and listeners.
	Address   string
	Inbounds  []Inbound
	Listeners []Inbound
	// Gateway is "" for a sidecar, else the gateway type (BUILTIN or DELEGATED).
	Gateway     string
	GatewayTags map[string]string
}

// Inbound is an inbound (or embedded listener) of a Dataplane.
type Inbound struct {
	Name    string
	Address string
	Port    int
	Tags    map[string]string
}

// SectionName is how a targetRef's sectionName names the inbound: its name, else
// its port.
func (i Inbound) SectionName() string {
	if i.Name != "" {
		return i.Name
	}
	return strconv.Itoa(i.Port)
}

// Listener is the address:port an inbound listens on: rules are computed per
// Listener.
type Listener string

// DataplaneFromObject reads a Dataplane from its unstructured form (Kubernetes
// manifest or api.FromUniversal).
func DataplaneFromObject(u *unstructured.Unstructured) (Dataplane, error) {
	if u.GetKind() != api.KindDataplane {
		return Dataplane{}, fmt.Errorf("%s %s: not a Dataplane", u.GetKind(), u.GetName())
	}
	labels := u.GetLabels()
	mesh := api.MeshOf(u)
	if mesh == "" {
		mesh = defaultMesh
	}
	spec, _ := u.Object["spec"].(map[string]any)
	nw, _ := spec["networking"].(map[string]any)
	dp := Dataplane{Meta: Meta{Type: api.KindDataplane, Name: u.GetName(), Mesh: mesh, Labels: labels},
		Namespace: labels[api.LabelNamespace], Address: str(nw["address"])}
	for _, section := range []string{"inbound", "listeners"} {
		list, _ := nw[section].([]any)
		for _, e := range list {
			m, _ := e.(map[string]any)
			in := Inbound{Name: str(m["name"]), Address: str(m["address"]), Port: toInt(m["port"]), Tags: strMap(m["tags"])}
			if in.Address == "" {
				in.Address = dp.Address
			}
			if section == "inbound" {
				dp.Inbounds = append(dp.Inbounds, in)
			} else {
				dp.Listeners = append(dp.Listeners, in)
			}
		}
	}
	if gw, ok := nw["gateway"].(map[string]any); ok {
		dp.Gateway = str(gw["type"])
		if dp.Gateway == "" {
			dp.Gateway = gatewayDelegated
		}
		dp.GatewayTags = strMap(gw["tags"])
	}
	return dp, nil
}

const (
	gatewayDelegated = "DELEGATED"
	gatewayBuiltin   = "BUILTIN"
)

func (i Inbound) listener() Listener { return Listener(i.Address + ":" + strconv.Itoa(i.Port)) }

func toInt(v any) int {
	switch x := v.(type) {
	case int:
		return x
	case int64:
		return int(x)
	case float64:
		return int(x)
	case string:
		n, _ := strconv.Atoi(x)
		return n
	}
	return 0
}
