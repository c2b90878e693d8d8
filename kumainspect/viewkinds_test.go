package kumainspect

import (
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
)

// TestViewKinds: a view of some policy kinds is the whole view with only those
// kinds' entries (and the routes', which say which routes an outbound lists), on
// meshes with routes, a builtin gateway and several kinds, for every kind.
func TestViewKinds(t *testing.T) {
	reg := api.DefaultRegistry()
	for _, files := range [][]string{
		{"testdata/effects/mesh.yaml"},
		{"../examples/inspect/shop/mesh.yaml", "../examples/inspect/shop/policies.yaml"},
		{"../examples/inspect/gateway/gateway.yaml"},
	} {
		var text []string
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			text = append(text, string(b))
		}
		objs, err := Decode(strings.NewReader(strings.Join(text, "\n---\n")), files[0], reg)
		if err != nil {
			t.Fatal(err)
		}
		s, err := NewStore(objs, reg, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, dp := range s.Dataplanes() {
			whole, err := s.View(dp.Mesh, dp.Name)
			if err != nil {
				t.Fatal(err)
			}
			for _, kind := range s.types.policies {
				only := map[string]bool{kind: true}
				got, err := s.ViewKinds(dp.Mesh, dp.Name, only)
				if err != nil {
					t.Fatal(err)
				}
				want := viewOfKinds(whole, func(k string) bool { return only[k] || isRouteKind(k) })
				if diff := cmp.Diff(want, got); diff != "" {
					t.Errorf("%s, %s, %s: ViewKinds differs from View's entries of the kind (-View +ViewKinds):\n%s", files[0], dp.Name, kind, diff)
				}
			}
		}
	}
}

// viewOfKinds is v with the entries and selecting policies of the kinds keep
// keeps; a route left with no entries is not listed, as View lists none such.
func viewOfKinds(v View, keep func(string) bool) View {
	entries := func(es []Entry) []Entry {
		var out []Entry
		for _, e := range es {
			if keep(e.Kind) {
				out = append(out, e)
			}
		}
		return out
	}
	out := v
	out.Proxy = entries(v.Proxy)
	out.Selecting = nil
	for _, m := range v.Selecting {
		if keep(m.Type) {
			out.Selecting = append(out.Selecting, m)
		}
	}
	ports := func(ps []Port) []Port {
		var res []Port
		for _, p := range ps {
			p.Entries = entries(p.Entries)
			var routes []Route
			for _, r := range p.Routes {
				if r.Entries = entries(r.Entries); len(r.Entries) > 0 {
					routes = append(routes, r)
				}
			}
			p.Routes = routes
			res = append(res, p)
		}
		return res
	}
	out.Inbounds, out.Outbounds = ports(v.Inbounds), ports(v.Outbounds)
	out.Listeners = nil
	for _, l := range v.Listeners {
		l.Inbound, l.To = entries(l.Inbound), entries(l.To)
		out.Listeners = append(out.Listeners, l)
	}
	return out
}
