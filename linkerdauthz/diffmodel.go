package linkerdauthz

import (
	"net/netip"
	"slices"
	"strings"

	"github.com/meshguard/meshguard/internal/classes"
)

// linkerdModel lays out the grants of both sets (old at bits 0.., new at
// newOff..) over three dimensions: identity, source address, route.
type linkerdModel struct {
	dims    []classes.Dim
	words   int
	newOff  int
	lastDim []int
	start   []uint64
	ids     []idClass
	addrs   []addrClass
	routes  []string // the named routes; class len(routes) is "any other request"
	suffix  string   // the trust domain's service account identity suffix
}

// addrClass is a range of source addresses no grant tells apart: [lo, hi].
type addrClass struct{ lo, hi netip.Addr }

func newLinkerdModel(og, ng []grantCond, suffix string) *linkerdModel {
	m := &linkerdModel{newOff: (len(og) + 63) / 64 * 64, suffix: suffix}
	m.words = max(1, (m.newOff+len(ng)+63)/64)
	m.lastDim = make([]int, m.words*64)
	for i := range m.lastDim {
		m.lastDim[i] = -1
	}
	m.start = make([]uint64, m.words)
	type pos struct {
		p int
		g grantCond
	}
	var conds []pos
	for i, g := range og {
		conds = append(conds, pos{i, g})
	}
	for i, g := range ng {
		conds = append(conds, pos{m.newOff + i, g})
	}
	var preds []classes.StrPred
	var bounds []netip.Addr
	for _, c := range conds {
		if c.g.route != "" {
			m.routes = append(m.routes, c.g.route)
		}
		for _, n := range c.g.nets {
			bounds = appendBounds(bounds, n.cidr)
			for _, e := range n.except {
				bounds = appendBounds(bounds, e)
			}
		}
	}
	for _, c := range conds {
		if c.g.idPred != nil {
			preds = append(preds, *c.g.idPred)
		}
	}
	m.ids = []idClass{{plain: true}, {tlsOnly: true}}
	for _, sc := range classes.StrClasses(preds) {
		m.ids = append(m.ids, idClass{str: sc})
	}
	m.addrs = addrClasses(bounds)
	slices.Sort(m.routes)
	m.routes = slices.Compact(m.routes)
	for _, n := range []int{len(m.ids), len(m.addrs), len(m.routes) + 1} {
		d := classes.Dim{Has: make([]uint64, m.words), Vals: make([][]uint64, n)}
		for v := range d.Vals {
			d.Vals[v] = make([]uint64, m.words)
		}
		m.dims = append(m.dims, d)
	}
	for _, c := range conds {
		if c.g.none {
			continue
		}
		classes.SetBit(m.start, c.p)
		classes.SetBit(m.dims[0].Has, c.p)
		m.lastDim[c.p] = 0
		for v, ic := range m.ids {
			if c.g.id(ic) {
				classes.SetBit(m.dims[0].Vals[v], c.p)
			}
		}
		classes.SetBit(m.dims[1].Has, c.p)
		m.lastDim[c.p] = 1
		for v, ac := range m.addrs {
			for _, n := range c.g.nets {
				if n.holds(ac.lo) {
					classes.SetBit(m.dims[1].Vals[v], c.p)
					break
				}
			}
		}
		if c.g.route != "" {
			classes.SetBit(m.dims[2].Has, c.p)
			m.lastDim[c.p] = 2
			classes.SetBit(m.dims[2].Vals[slices.Index(m.routes, c.g.route)], c.p)
		}
	}
	return m
}

// appendBounds adds where p starts and where the addresses after it start.
func appendBounds(b []netip.Addr, p netip.Prefix) []netip.Addr {
	b = append(b, p.Addr())
	if next := lastAddr(p).Next(); next.IsValid() {
		b = append(b, next)
	}
	return b
}

// lastAddr is the highest address of p.
func lastAddr(p netip.Prefix) netip.Addr {
	a := p.Addr().As16()
	off := 0
	if p.Addr().Is4() {
		off = 96
	}
	for bit := off + p.Bits(); bit < 128; bit++ {
		a[bit/8] |= 1 << (7 - bit%8)
	}
	out := netip.AddrFrom16(a)
	if p.Addr().Is4() {
		return out.Unmap()
	}
	return out
}

// addrClasses cuts IPv4 and IPv6 at bounds: between two consecutive bounds every
// address is in the same networks and exceptions.
func addrClasses(bounds []netip.Addr) []addrClass {
	var out []addrClass
	for _, fam := range []struct{ lo, hi netip.Addr }{
		{netip.IPv4Unspecified(), netip.AddrFrom4([4]byte{255, 255, 255, 255})},
		{netip.IPv6Unspecified(), netip.AddrFrom16([16]byte{255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255, 255})},
	} {
		cut := []netip.Addr{fam.lo}
		for _, b := range bounds {
			if b.Is4() == fam.lo.Is4() {
				cut = append(cut, b)
			}
		}
		slices.SortFunc(cut, func(a, b netip.Addr) int { return a.Compare(b) })
		cut = slices.Compact(cut)
		for i, lo := range cut {
			hi := fam.hi
			if i+1 < len(cut) {
				hi = cut[i+1].Prev()
			}
			out = append(out, addrClass{lo, hi})
		}
	}
	return out
}

// String is the range as a CIDR when it is one, else "lo-hi".
func (a addrClass) String() string {
	for bits := 0; bits <= a.lo.BitLen(); bits++ {
		p := netip.PrefixFrom(a.lo, bits)
		if p.Masked().Addr() == a.lo && lastAddr(p) == a.hi {
			return p.String()
		}
	}
	return a.lo.String() + "-" + a.hi.String()
}

// describe renders a cell's conditions: how the client authenticates, where it
// connects from, the route of its request.
func (m *linkerdModel) describe(choice [][]int) []string {
	out := []string{}
	if ch := choice[0]; ch != nil {
		out = append(out, m.idWords(ch))
	}
	if ch := choice[1]; ch != nil {
		var rs []string
		for _, v := range ch {
			rs = append(rs, m.addrs[v].String())
		}
		out = append(out, "from "+strings.Join(rs, ", "))
	}
	if ch := choice[2]; ch != nil {
		var rs []string
		for _, v := range ch {
			if v == len(m.routes) {
				rs = append(rs, "a request no route named here matches")
			} else {
				rs = append(rs, "a request on "+m.routes[v])
			}
		}
		out = append(out, strings.Join(rs, " or "))
	}
	return out
}

// idWords names chosen identity classes.
func (m *linkerdModel) idWords(ch []int) string {
	allMeshed := true
	for v := 2; v < len(m.ids); v++ {
		allMeshed = allMeshed && slices.Contains(ch, v)
	}
	var out []string
	for _, v := range ch {
		ic := m.ids[v]
		switch {
		case ic.plain:
			out = append(out, "clients without TLS")
		case ic.tlsOnly:
			out = append(out, "TLS clients without identity")
		case allMeshed:
			if !slices.Contains(out, "any meshed identity") {
				out = append(out, "any meshed identity")
			}
		default:
			out = append(out, identityWords(ic.str, m.suffix))
		}
	}
	return strings.Join(out, " or ")
}

// identityWords names one class of mesh identities.
func identityWords(c classes.StrClass, suffix string) string {
	id := reverse(c.Value)
	switch c.Kind {
	case classes.StrOther:
		return "other meshed identities"
	case classes.StrPrefix:
		if ns, ok := strings.CutSuffix(strings.TrimPrefix(id, "."), suffix); ok && !strings.Contains(ns, ".") {
			return "service accounts of namespace " + ns
		}
		return "identities *" + id
	}
	if rest, ok := strings.CutSuffix(id, suffix); ok {
		if name, ns, ok := strings.Cut(rest, "."); ok && !strings.Contains(ns, ".") {
			return "service account " + ns + "/" + name
		}
	}
	return "identity " + id
}
