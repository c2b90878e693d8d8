// Package access is the answer to "may this client call that destination?" in one
// shape for every mesh: Kuma's authorization engine (kumaauthz) and Linkerd's
// (linkerdauthz) each build an Answer from their own decision, and the doors
// render it once (`meshguard check` as text, JSON or YAML; docs/check.md documents
// the JSON). It imports nothing of meshguard's, so both engines can.
package access

import "strings"

// DefaultPolicy is Item.Policy when the mesh's default decides, no policy.
const DefaultPolicy = "default"

// Answer is one call's verdict and why (`meshguard check -o json`; change it
// only compatibly).
type Answer struct {
	// Mesh is "kuma" or "linkerd".
	Mesh string `json:"mesh"`
	// Decision is ALLOW or DENY; ShadowDecision the shadow rules' answer, when
	// the proxy has shadow rules (Kuma).
	Decision       string `json:"decision"`
	ShadowDecision string `json:"shadowDecision,omitempty"`
	// Client is omitted only in a map's cell, whose answer stands for many
	// clients (MapCell); check always names it.
	Client          Peer    `json:"client,omitzero"`
	Destination     Peer    `json:"destination"`
	Request         Request `json:"request"`
	DecidedBy       Item    `json:"decidedBy"`
	ShadowDecidedBy *Item   `json:"shadowDecidedBy,omitempty"`
	// Filter is the Envoy RBAC filter that decided (Kuma): network, http, or none
	// when no policy selects the proxy.
	Filter string `json:"filter,omitempty"`
	// Form is the compiled RBAC's form (Kuma): compact, expanded or matcher.
	Form string `json:"form,omitempty"`
	// Default is true when no policy (Kuma) or Server (Linkerd) applies and the
	// mesh's default decides.
	Default bool `json:"default"`
	// Server and Route are the Linkerd Server taking the port and the route matched.
	Server string `json:"server,omitempty"`
	Route  string `json:"route,omitempty"`
	// MeshIdentity is the Kuma MeshIdentity that gives the destination its
	// identity, when one does: only `rules` policies are programmed then.
	MeshIdentity *Item `json:"meshIdentity,omitempty"`
	// Merged are the policies merged for the Kuma proxy, least specific first.
	Merged []Item `json:"merged,omitempty"`
	// Considered are the Linkerd authorizations tried, in order.
	Considered []string `json:"considered,omitempty"`
	Notes      []string `json:"notes,omitempty"`
}

// Peer describes a client or destination; only the fields that apply are set.
type Peer struct {
	SpiffeID        string            `json:"spiffeId,omitempty"`
	Identity        string            `json:"identity,omitempty"`
	Unauthenticated bool              `json:"unauthenticated,omitempty"`
	IP              string            `json:"ip,omitempty"`
	URISANs         []string          `json:"uriSANs,omitempty"`
	Mesh            string            `json:"mesh,omitempty"`
	Namespace       string            `json:"namespace,omitempty"`
	Name            string            `json:"name,omitempty"`
	Workload        string            `json:"workload,omitempty"`
	Section         string            `json:"section,omitempty"`
	Port            string            `json:"port,omitempty"`
	Tags            map[string]string `json:"tags,omitempty"`
}

// Request is what the call carries that rules may match.
type Request struct {
	SNI    string `json:"sni,omitempty"`
	Method string `json:"method,omitempty"`
	Path   string `json:"path,omitempty"`
}

// Item is a policy (or object) and, when it decides, the item that does.
type Item struct {
	Kind string `json:"kind,omitempty"`
	// Policy is "namespace/name" ("name" for an object without namespace), or
	// DefaultPolicy when the mesh's default decides.
	Policy string `json:"policy"`
	Path   string `json:"path,omitempty"`
	// Action is the item's action (Kuma `from`) or list (Kuma matchers).
	Action string `json:"action,omitempty"`
	// Match says in words what the item matches, or why the default applies.
	Match          string `json:"match,omitempty"`
	File           string `json:"file,omitempty"`
	Line           int    `json:"line,omitempty"`
	Authentication *Item  `json:"authentication,omitempty"`
}

// Locate says where an object's field is written (file and line; "" and 0 when
// the door does not know), so an answer can point at the deciding item. The
// engines build answers without knowing where objects were read from.
type Locate func(kind, namespace, name, path string) (file string, line int)

// Verdict is ALLOW or DENY.
func Verdict(allow bool) string {
	if allow {
		return "ALLOW"
	}
	return "DENY"
}

// SplitRef splits "namespace/name" ("name" alone: no namespace).
func SplitRef(ref string) (ns, name string) {
	if i := strings.IndexByte(ref, '/'); i >= 0 {
		return ref[:i], ref[i+1:]
	}
	return "", ref
}
