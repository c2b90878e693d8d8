package main

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/linkerdauthz"
)

// checkResult is the answer of `meshguard check`, and its -o json shape
// (docs/check.md documents every field; change it only compatibly).
type checkResult struct {
	// Mesh is "kuma" or "linkerd".
	Mesh string `json:"mesh"`
	// Decision is ALLOW or DENY; ShadowDecision the shadow rules' answer, when
	// the proxy has shadow rules (Kuma).
	Decision        string     `json:"decision"`
	ShadowDecision  string     `json:"shadowDecision,omitempty"`
	Client          checkPeer  `json:"client"`
	Destination     checkPeer  `json:"destination"`
	Request         checkReq   `json:"request"`
	DecidedBy       checkItem  `json:"decidedBy"`
	ShadowDecidedBy *checkItem `json:"shadowDecidedBy,omitempty"`
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
	MeshIdentity *checkItem `json:"meshIdentity,omitempty"`
	// Merged are the policies merged for the Kuma proxy, least specific first.
	Merged []checkItem `json:"merged,omitempty"`
	// Considered are the Linkerd authorizations tried, in order.
	Considered []string `json:"considered,omitempty"`
	Notes      []string `json:"notes,omitempty"`
}

// checkPeer describes a client or destination; only the fields that apply are set.
type checkPeer struct {
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

type checkReq struct {
	SNI    string `json:"sni,omitempty"`
	Method string `json:"method,omitempty"`
	Path   string `json:"path,omitempty"`
}

// checkItem is a policy (or object) and, when it decides, the item that does.
type checkItem struct {
	Kind string `json:"kind,omitempty"`
	// Policy is "namespace/name" ("name" for an object without namespace), or
	// "default" when the mesh's default decides.
	Policy string `json:"policy"`
	Path   string `json:"path,omitempty"`
	// Action is the item's action (Kuma `from`) or list (Kuma matchers).
	Action string `json:"action,omitempty"`
	// Match says in words what the item matches, or why the default applies.
	Match          string     `json:"match,omitempty"`
	File           string     `json:"file,omitempty"`
	Line           int        `json:"line,omitempty"`
	Authentication *checkItem `json:"authentication,omitempty"`
}

func verdictWord(allow bool) string {
	if allow {
		return "ALLOW"
	}
	return "DENY"
}

func splitRef(ref string) (ns, name string) {
	if i := strings.IndexByte(ref, '/'); i >= 0 {
		return ref[:i], ref[i+1:]
	}
	return "", ref
}

// kumaItem is a decider with the place of its item.
func kumaItem(dec kumaauthz.Decider, loc locator) checkItem {
	it := checkItem{Policy: dec.Policy, Path: dec.Path, Action: dec.Action, Match: dec.Match}
	if dec.Policy != kumaauthz.DefaultActionName {
		it.Kind = api.KindMeshTrafficPermission
		ns, name := splitRef(dec.Policy)
		it.File, it.Line = loc.at(api.KindMeshTrafficPermission, ns, name, dec.Path)
	}
	return it
}

func kumaResult(o *checkOptions, cl kumaauthz.Client, px kumaauthz.Proxy, merged []kumaauthz.Policy, d kumaauthz.Decision, loc locator) checkResult {
	r := checkResult{Mesh: "kuma", Decision: verdictWord(d.Enforced.Allow), Default: d.Default, Form: string(d.Form), Filter: d.Enforced.Filter,
		Request: checkReq{SNI: o.sni, Method: o.method, Path: o.path}, Notes: d.Notes}
	r.Client = checkPeer{SpiffeID: cl.SpiffeID, Mesh: cl.Mesh, Tags: cl.Tags, URISANs: cl.SANs}
	r.Destination = checkPeer{Mesh: px.Mesh, Namespace: px.Namespace, Name: px.Name, Section: px.Section, Tags: px.Tags}
	if !strings.Contains(o.to, "=") {
		r.Destination.Workload = o.to
	}
	r.DecidedBy = kumaItem(d.Enforced.Decider, loc)
	if d.Shadow != nil {
		r.ShadowDecision = verdictWord(d.Shadow.Allow)
		it := kumaItem(d.Shadow.Decider, loc)
		r.ShadowDecidedBy = &it
	}
	if d.Identity != "" {
		ns, name := splitRef(d.Identity)
		it := checkItem{Kind: api.KindMeshIdentity, Policy: d.Identity}
		it.File, it.Line = loc.at(api.KindMeshIdentity, ns, name, "")
		r.MeshIdentity = &it
	}
	r.Merged = []checkItem{}
	for _, p := range merged {
		it := checkItem{Kind: api.KindMeshTrafficPermission, Policy: p.Ref()}
		it.File, it.Line = loc.at(api.KindMeshTrafficPermission, p.Namespace, p.Name, "")
		r.Merged = append(r.Merged, it)
	}
	return r
}

// linkerdItem is an authz decider with the place of its field.
func linkerdItem(dec linkerdauthz.Decider, loc locator) checkItem {
	it := checkItem{Kind: dec.Kind, Policy: dec.Name, Path: dec.Path, Match: dec.Words}
	if dec.Namespace != "" {
		it.Policy = dec.Namespace + "/" + dec.Name
	}
	if dec.Kind == "" {
		it.Policy = kumaauthz.DefaultActionName
	}
	it.File, it.Line = loc.at(dec.Kind, dec.Namespace, dec.Name, dec.Path)
	if a := dec.Authentication; a != nil {
		sub := linkerdItem(*a, loc)
		sub.Match = a.Words
		it.Authentication = &sub
	}
	return it
}

func linkerdResult(o *checkOptions, c linkerdauthz.Caller, dst linkerdauthz.Destination, d linkerdauthz.Decision, loc locator) checkResult {
	r := checkResult{Mesh: "linkerd", Decision: verdictWord(d.Allow), Default: d.Default, Server: d.Server, Route: d.Route,
		Request: checkReq{Method: o.method, Path: o.path}, Considered: d.Considered, Notes: d.Notes}
	if d.Audit {
		r.Notes = append(r.Notes, "audit mode: the call goes through, and Linkerd logs it as unauthorized")
	}
	r.Client = checkPeer{Identity: c.Identity, Unauthenticated: c.Unauthenticated}
	if c.IP.IsValid() {
		r.Client.IP = c.IP.String()
	}
	port := o.port
	if port == "" && dst.Port != 0 {
		port = fmt.Sprint(dst.Port)
	}
	r.Destination = checkPeer{Namespace: dst.Namespace, Workload: dst.Workload, Port: port, Tags: dst.Labels}
	r.DecidedBy = linkerdItem(d.Decider, loc)
	return r
}

// writeCheck prints the answer as text, JSON or YAML (the JSON as YAML).
func writeCheck(w io.Writer, output string, r checkResult) error {
	if output == string(formatYAML) {
		b, err := yaml.Marshal(r)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	if output == string(formatJSON) {
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s  %s -> %s\n", r.Decision, clientWords(r), destWords(r))
	fmt.Fprintf(&b, "  decided by: %s\n", itemWords(r.DecidedBy))
	if a := r.DecidedBy.Authentication; a != nil {
		fmt.Fprintf(&b, "    authentication: %s\n", itemWords(*a))
	}
	if r.ShadowDecision != "" {
		by := "decided by " + itemWords(*r.ShadowDecidedBy)
		if *r.ShadowDecidedBy == r.DecidedBy {
			by = "by the same item"
		}
		fmt.Fprintf(&b, "  shadow: %s, %s\n", r.ShadowDecision, by)
	}
	if r.Filter != "" && r.Filter != "none" {
		fmt.Fprintf(&b, "  filter: Envoy %s RBAC (%s form)\n", r.Filter, r.Form)
	}
	if r.Server != "" {
		fmt.Fprintf(&b, "  server: %s\n", r.Server)
	}
	if r.Route != "" {
		fmt.Fprintf(&b, "  route: %s\n", r.Route)
	}
	if r.MeshIdentity != nil {
		fmt.Fprintf(&b, "  identity: %s (only `rules` policies are programmed)\n", itemWords(*r.MeshIdentity))
	}
	if r.Mesh == "kuma" {
		fmt.Fprintf(&b, "  merged policies (least specific first): %d\n", len(r.Merged))
		for i, p := range r.Merged {
			fmt.Fprintf(&b, "    %d. %s%s\n", i+1, p.Policy, place(p))
		}
	}
	if len(r.Considered) > 0 {
		b.WriteString("  authorizations considered:\n")
		for i, c := range r.Considered {
			fmt.Fprintf(&b, "    %d. %s\n", i+1, c)
		}
	}
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "  note: %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func place(it checkItem) string {
	switch {
	case it.File == "":
		return ""
	case it.Line == 0:
		return "  (" + it.File + ")"
	}
	return fmt.Sprintf("  (%s:%d)", it.File, it.Line)
}

func itemWords(it checkItem) string {
	if it.Policy == kumaauthz.DefaultActionName && it.Kind == "" {
		return "default: " + it.Match
	}
	s := it.Policy
	if it.Kind != "" {
		s = it.Kind + " " + s
	}
	if it.Path != "" {
		s += " " + it.Path
	}
	switch {
	case it.Action != "" && it.Match != "":
		s += " (" + it.Action + " " + it.Match + ")"
	case it.Match != "":
		s += ": " + it.Match
	}
	return s + place(it)
}

func clientWords(r checkResult) string {
	c := r.Client
	switch {
	case c.SpiffeID != "":
		return c.SpiffeID
	case len(c.Tags) > 0:
		return tagWords(c.Tags) + " of mesh " + c.Mesh
	case c.Identity != "":
		s := c.Identity
		if c.IP != "" {
			s += " from " + c.IP
		}
		return s
	case c.Unauthenticated && c.IP != "":
		return "unauthenticated client from " + c.IP
	}
	return "unauthenticated client"
}

func destWords(r checkResult) string {
	d := r.Destination
	var s string
	switch {
	case d.Workload != "":
		s = d.Workload
	case d.Name != "":
		s = "Dataplane " + d.Name
	case r.Mesh == "kuma":
		s = "proxy with tags " + tagWords(d.Tags)
	default:
		s = "pods with labels " + tagWords(d.Tags)
	}
	if d.Section != "" {
		s += " inbound " + d.Section
	}
	if d.Port != "" {
		s += " port " + d.Port
	}
	if d.Namespace != "" {
		s += " in namespace " + d.Namespace
	}
	if d.Mesh != "" {
		s += " of mesh " + d.Mesh
	}
	return s
}

func tagWords(m map[string]string) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		keys[i] = k + "=" + m[k]
	}
	return strings.Join(keys, ",")
}
