package linkerdauthz

import (
	"cmp"
	"fmt"
	"net/netip"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/internal/classes"
)

// Diff answers "what does this change open up?" for Linkerd: for every Server
// (and default-policy view) of either set, which clients the new set decides
// differently. A client is what Linkerd's inbound policy can tell apart: how it
// authenticates (no TLS, TLS without identity, a mesh identity), its source
// address and, for route-level grants, the route of the request. Clients are
// enumerated as the classes the grants of both sets tell apart, so the diff is
// complete. The decision is the preview's: a client is let in when some grant of
// the Server admits it (authorizations are a union), else denied.

// The kinds of change, as every mesh's (access).
const (
	ChangeWidened  = access.ChangeWidened
	ChangeNarrowed = access.ChangeNarrowed
)

// DefaultMaxClasses bounds the client classes of one Server.
const DefaultMaxClasses = 20000

// ClassDecision is what one set decides for a class of clients.
type ClassDecision struct {
	Allow bool `json:"allow"`
	// By is the grant that admits the class (its Via), or, when denied, why: the
	// Server's policy.
	By string `json:"by"`
}

// Change is one class of clients decided differently.
type Change struct {
	Kind    string        `json:"change"`
	Clients []string      `json:"clients"`
	Old     ClassDecision `json:"old"`
	New     ClassDecision `json:"new"`
	// choice is the cell's classes per dimension (tests check membership).
	choice [][]int
}

// ServerDiff is the difference for one Server or default-policy view.
type ServerDiff struct {
	Namespace  string   `json:"namespace"`
	Name       string   `json:"name,omitempty"`
	Default    bool     `json:"default,omitempty"`
	Port       string   `json:"port"`
	Pods       string   `json:"pods"`
	OldPolicy  string   `json:"oldPolicy"`
	NewPolicy  string   `json:"newPolicy"`
	Classes    int      `json:"classes"`
	Incomplete string   `json:"incomplete,omitempty"`
	Changes    []Change `json:"changes"`
}

// Ref is the Server's "namespace/name", as Preview.Ref.
func (d ServerDiff) Ref() string {
	return Preview{Namespace: d.Namespace, Name: d.Name}.Ref()
}

// Widens reports whether some class gains access.
func (d ServerDiff) Widens() bool {
	for _, c := range d.Changes {
		if c.Kind == ChangeWidened {
			return true
		}
	}
	return false
}

type viewKey struct {
	def      bool
	ns, name string
}

// Diff compares the previews of two object sets; maxClasses ≤ 0 means
// DefaultMaxClasses. A Server only one set has is compared with what its pods
// get without it in the other set: the default policy of its namespace.
func Diff(oldObjs, newObjs []unstructured.Unstructured, o Options, maxClasses int) []ServerDiff {
	if maxClasses <= 0 {
		maxClasses = DefaultMaxClasses
	}
	index := func(ps []Preview) (map[viewKey]Preview, []viewKey) {
		m := map[viewKey]Preview{}
		var keys []viewKey
		for _, p := range ps {
			if p.Policy == "not applied" {
				continue
			}
			k := viewKey{p.Default, p.Namespace, p.Name}
			if _, ok := m[k]; !ok {
				keys = append(keys, k)
			}
			m[k] = p
		}
		return m, keys
	}
	oldIx, newIx := newIndex(oldObjs), newIndex(newObjs)
	oldM, oldKeys := index(oldIx.build(o))
	newM, newKeys := index(newIx.build(o))
	keys := append(slices.Clip(oldKeys), newKeys...)
	slices.SortStableFunc(keys, func(a, b viewKey) int {
		return cmp.Or(cmpBool(a.def, b.def), cmp.Compare(a.ns, b.ns), cmp.Compare(a.name, b.name))
	})
	keys = slices.Compact(keys)
	var out []ServerDiff
	for _, k := range keys {
		op, ok1 := oldM[k]
		np, ok2 := newM[k]
		pairs := [][2]Preview{{op, np}}
		switch {
		case !ok1:
			pairs = pairsWith(oldIx.fallbacks(newIx, k, o, oldM), np, false)
		case !ok2:
			pairs = pairsWith(newIx.fallbacks(oldIx, k, o, newM), op, true)
		}
		for _, pr := range pairs {
			d := diffViews(pr[0], pr[1], maxClasses, o.identitySuffix())
			show := pr[1]
			if !ok2 {
				show = pr[0]
			}
			d.Namespace, d.Name, d.Default, d.Port, d.Pods = k.ns, k.name, k.def, show.Port, show.Pods
			if len(pairs) > 1 {
				d.Pods = pr[0].Pods
				if !ok1 {
					d.Pods = pr[1].Pods
				}
			}
			if d.Incomplete != "" || len(d.Changes) > 0 {
				out = append(out, d)
			}
		}
	}
	return out
}

// pairsWith pairs each fallback view with the view one set has: (fallback,
// have) when the old set lacks the view, (have, fallback) when the new one does.
func pairsWith(fbs []Preview, have Preview, haveOld bool) [][2]Preview {
	out := make([][2]Preview, 0, len(fbs))
	for _, fb := range fbs {
		if haveOld {
			out = append(out, [2]Preview{have, fb})
		} else {
			out = append(out, [2]Preview{fb, have})
		}
	}
	return out
}

func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case !a:
		return -1
	}
	return 1
}

// grantCond is one grant as conditions on the three dimensions.
type grantCond struct {
	via string
	id  func(idClass) bool
	// idPred is the identity condition of identity, service account and
	// namespace grants.
	idPred *classes.StrPred
	nets   []netRange
	route  string
	none   bool
}

// netRange is a network with its exceptions.
type netRange struct {
	cidr   netip.Prefix
	except []netip.Prefix
}

func (n netRange) holds(a netip.Addr) bool {
	if !n.cidr.Contains(a) {
		return false
	}
	for _, e := range n.except {
		if e.Contains(a) {
			return false
		}
	}
	return true
}

// idClass is a class of how a client authenticates: no TLS, TLS without
// identity, or a mesh identity of a string class (over reversed identities, so
// that Linkerd's "*." suffix globs are prefixes).
type idClass struct {
	plain, tlsOnly bool
	str            classes.StrClass
}

func reverse(s string) string {
	r := []rune(s)
	slices.Reverse(r)
	return string(r)
}

// grantOf reads a preview grant back into conditions; suffix is the identity
// suffix of the trust domain, which service account and namespace grants end in.
func grantOf(c Client, suffix string) grantCond {
	g := grantCond{via: c.Via, route: c.Route}
	for _, n := range c.Networks {
		if r, ok := parseNetwork(n); ok {
			g.nets = append(g.nets, r)
		}
	}
	meshed := func(ic idClass) bool { return !ic.plain && !ic.tlsOnly }
	switch c.Kind {
	case ClientUnauthenticated:
		g.id = func(idClass) bool { return true }
	case ClientUnauthenticatedTLS:
		g.id = func(ic idClass) bool { return !ic.plain }
	case ClientAuthenticated:
		g.id = meshed
	case ClientIdentity, ClientServiceAccount, ClientNamespace:
		p := identityPred(c, suffix)
		g.idPred = &p
		g.id = func(ic idClass) bool { return meshed(ic) && p.Holds(ic.str.Witness) }
	default:
		g.none = true
	}
	return g
}

// identityPred is the (reversed) identity condition of an identity, service
// account or namespace grant.
func identityPred(c Client, suffix string) classes.StrPred {
	switch c.Kind {
	case ClientServiceAccount:
		ns, name, _ := strings.Cut(c.Name, "/")
		return classes.StrPred{Value: reverse(name + "." + ns + suffix)}
	case ClientNamespace:
		return classes.StrPred{Prefix: true, Value: reverse("." + c.Name + suffix)}
	}
	if rest, ok := strings.CutPrefix(c.Name, "*"); ok {
		return classes.StrPred{Prefix: true, Value: reverse(rest)}
	}
	return classes.StrPred{Value: reverse(c.Name)}
}

// parseNetwork reads "cidr" or "cidr minus a, b" (networkWords).
func parseNetwork(s string) (netRange, bool) {
	head, excepts, _ := strings.Cut(s, " minus ")
	p, err := parsePrefix(head)
	if err != nil {
		return netRange{}, false
	}
	r := netRange{cidr: p}
	if excepts != "" {
		for _, e := range strings.Split(excepts, ", ") {
			if ep, err := parsePrefix(e); err == nil {
				r.except = append(r.except, ep)
			}
		}
	}
	return r, true
}

// parsePrefix reads a CIDR or a bare address (a /32 or /128).
func parsePrefix(s string) (netip.Prefix, error) {
	s = strings.TrimSpace(s)
	if !strings.Contains(s, "/") {
		a, err := netip.ParseAddr(s)
		if err != nil {
			return netip.Prefix{}, err
		}
		return netip.PrefixFrom(a, a.BitLen()), nil
	}
	p, err := netip.ParsePrefix(s)
	return p.Masked(), err
}

// diffViews compares the grants of one view in the two sets; suffix is the
// identity suffix of the trust domain (Options.identitySuffix).
func diffViews(op, np Preview, limit int, suffix string) ServerDiff {
	d := ServerDiff{OldPolicy: op.Policy, NewPolicy: np.Policy}
	var og, ng []grantCond
	for _, c := range op.Clients {
		og = append(og, grantOf(c, suffix))
	}
	for _, c := range np.Clients {
		ng = append(ng, grantOf(c, suffix))
	}
	m := newLinkerdModel(og, ng, suffix)
	e := classes.NewEnum(m.dims, m.words, m.lastDim, nil, limit)
	cells, ok := e.Run(m.start)
	if !ok {
		d.Incomplete = fmt.Sprintf("more than %d client classes to compare (the bound); this Server was not compared", limit)
		return d
	}
	d.Classes = len(cells)
	decide := func(c classes.Cell, gs []grantCond, base int, policy string) ClassDecision {
		for i, g := range gs {
			if classes.HasBit(c.Met, base+i) {
				return ClassDecision{Allow: true, By: g.via}
			}
		}
		return ClassDecision{By: "no grant admits it (" + policy + ")"}
	}
	for _, c := range cells {
		od, nd := decide(c, og, 0, op.Policy), decide(c, ng, m.newOff, np.Policy)
		kind := ""
		switch {
		case !od.Allow && nd.Allow:
			kind = ChangeWidened
		case od.Allow && !nd.Allow:
			kind = ChangeNarrowed
		default:
			continue
		}
		d.Changes = append(d.Changes, Change{Kind: kind, Clients: m.describe(c.Choice), Old: od, New: nd, choice: c.Choice})
	}
	slices.SortStableFunc(d.Changes, func(a, b Change) int {
		return cmp.Or(cmpBool(a.Kind == ChangeNarrowed, b.Kind == ChangeNarrowed), cmp.Compare(strings.Join(a.Clients, ","), strings.Join(b.Clients, ",")))
	})
	return d
}
