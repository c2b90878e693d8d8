package kumaauthz

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/api"
)

// randomMapObjects draws a few workloads (some labelled with a service, mesh,
// env or version of the property domains, some given a ServiceAccount), the
// Services selecting them on one or two ports, and Dataplanes with one or two
// inbounds, in two namespaces.
func randomMapObjects(r *rand.Rand) string {
	pick := func(l []string) string { return l[r.Intn(len(l))] }
	var docs []string
	for i, n := 0, 1+r.Intn(6); i < n; i++ {
		ns := pick([]string{"ns1", "ns2"})
		lbl := fmt.Sprintf("app: w%d", r.Intn(4))
		if r.Intn(2) == 0 {
			lbl += ", kuma.io/service: " + pick(propValues())
		}
		if r.Intn(4) == 0 {
			lbl += ", kuma.io/mesh: " + pick(propMeshes())
		}
		for _, k := range []string{"env", "version"} {
			if r.Intn(2) == 0 {
				lbl += ", " + k + ": " + pick(propValues())
			}
		}
		sa := pick([]string{"", "serviceAccountName: x", "serviceAccountName: y"})
		docs = append(docs, fmt.Sprintf("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d%d, namespace: %s}\nspec:\n  template:\n    metadata: {labels: {%s}}\n    spec: {%s}", i, ns, lbl, sa))
		if r.Intn(3) > 0 {
			ports := "[{port: 80}]"
			if r.Intn(3) == 0 {
				ports = "[{port: 80}, {port: 81}]"
			}
			docs = append(docs, fmt.Sprintf("apiVersion: v1\nkind: Service\nmetadata: {name: s%d, namespace: %s}\nspec: {selector: {app: w%d}, ports: %s}", i, ns, r.Intn(4), ports))
		}
	}
	for i, n := 0, r.Intn(3); i < n; i++ {
		in := fmt.Sprintf("{port: 8080, tags: {kuma.io/service: %s, env: %s}}", pick(propValues()), pick(propValues()))
		if r.Intn(2) == 0 {
			in += fmt.Sprintf(", {name: admin, port: 9090, tags: {kuma.io/service: %s}}", pick(propValues()))
		}
		docs = append(docs, fmt.Sprintf("apiVersion: kuma.io/v1alpha1\nkind: Dataplane\nmetadata: {name: dp%d, namespace: %s, labels: {kuma.io/mesh: %s}}\nspec: {networking: {address: 10.0.0.%d, inbound: [%s]}}",
			i, pick([]string{"ns1", "ns2"}), pick(propMeshes()), i+1, in))
	}
	return strings.Join(docs, "\n---\n")
}

// randomMapMatcherPolicy draws a `rules` policy over the SPIFFE IDs the map's
// clients present (a mesh CA's, a MeshIdentity's, another mesh's).
func randomMapMatcherPolicy(r *rand.Rand, i int) Policy {
	ids := []string{"spiffe://default/a", "spiffe://default.mesh.local/ns/ns1/sa/x", "spiffe://default.mesh.local/ns/ns2/sa/default"}
	prefixes := []string{"spiffe://default.mesh.local/", "spiffe://default.mesh.local/ns/ns1/", "spiffe://"}
	m := api.MTPMatches{}
	for k, n := 0, 1+r.Intn(3); k < n; k++ {
		sm := api.SpiffeMatch{SpiffeID: &api.StringMatch{Type: "Exact", Value: ids[r.Intn(len(ids))]}}
		if r.Intn(2) == 0 {
			sm.SpiffeID = &api.StringMatch{Type: "Prefix", Value: prefixes[r.Intn(len(prefixes))]}
		}
		l := []*(*[]api.SpiffeMatch){&m.Deny, &m.Allow, &m.AllowWithShadowDeny}[r.Intn(3)]
		if *l == nil {
			*l = &[]api.SpiffeMatch{}
		}
		**l = append(**l, sm)
	}
	return Policy{Name: fmt.Sprintf("rules%d", i), Namespace: "kuma-system", Mesh: "default", Spec: api.MeshTrafficPermissionSpec{Default: &m}}
}

// mapLocate places every policy at a line of its own, so that a deciding item
// taken from the wrong policy shows in File and Line.
func mapLocate(kind, ns, name, path string) (string, int) {
	return kind + "/" + ns + "/" + name + ".yaml", len(name) + len(path)
}

// TestMapCellsAreCheckAnswers holds every cell of random maps to what check
// answers for that destination and client, judged alone: the decision, the
// shadow decision, the deciding items with file and line, the policies merged
// and the MeshIdentity. Destinations are rebuilt as check builds them
// (ProxyFromObjects over all objects), clients as check parses --from.
func TestMapCellsAreCheckAnswers(t *testing.T) {
	r := rand.New(rand.NewSource(31))
	pairs, rowsShared, colsShared := 0, 0, 0
	for s := 0; s < 300; s++ {
		all := objs(t, randomMapObjects(r))
		ck := Checker{Policies: randomTopPolicies(r, r.Intn(8))}
		if r.Intn(4) == 0 {
			for i, n := 0, 1+r.Intn(2); i < n; i++ {
				ck.Policies = append(ck.Policies, randomMapMatcherPolicy(r, i))
			}
		}
		if r.Intn(3) == 0 {
			ck.Identities = []Identity{{Name: "id", Namespace: "kuma-system", Mesh: "default", Selects: true,
				MatchLabels: map[string]string{"app": fmt.Sprintf("w%d", r.Intn(4))}, TrustDomain: "{{ .Mesh }}.mesh.local"}}
		}
		m, err := BuildMap(all, ck, MapOptions{}, mapLocate)
		if err != nil {
			t.Fatal(err)
		}
		ix := m.CellsByClass()
		for _, d := range m.Destinations {
			if d.Class > 0 && d.Class < len(m.Destinations)-1 {
				rowsShared++
			}
			q := ProxyQuery{Name: d.Peer.Workload, Namespace: d.Peer.Namespace, Port: d.Peer.Port, Section: d.Peer.Section, DefaultMesh: "default"}
			px, err := ProxyFromObjects(all, q)
			if err != nil {
				t.Fatalf("set %d %s: %v", s, d.ID, err)
			}
			for _, c := range m.Clients {
				cl := Client{}
				if c.Kind != access.ClientUnauthenticated {
					from := c.Peer.SpiffeID
					if from == "" {
						from = tagString(c.Peer.Tags)
					}
					if cl, err = ParseClient(from, c.Peer.Mesh); err != nil {
						t.Fatalf("set %d client %s: %v", s, c.ID, err)
					}
				}
				want, err := ck.Answer(px, ck.Select(px), d.Peer.Workload, cl, access.Request{}, mapLocate)
				if err != nil {
					t.Fatal(err)
				}
				cell := ix.At(d.Class, c.Class)
				if cell == nil {
					t.Fatalf("set %d: no cell for %s × %s", s, d.ID, c.ID)
				}
				got := m.PairAnswer(cell, c)
				if diff := cmp.Diff(verdictOf(want), verdictOf(got)); diff != "" {
					t.Fatalf("set %d: %s × %s (-check +map):\n%s\nobjects:\n%s", s, d.ID, c.ID, diff, randomMapObjectsString(all))
				}
				if !cmp.Equal(want.Client.URISANs, got.Client.URISANs) || !cmp.Equal(want.Client.Tags, got.Client.Tags) {
					t.Fatalf("set %d: %s × %s: the pair's client %+v, check's %+v", s, d.ID, c.ID, got.Client, want.Client)
				}
				pairs++
			}
		}
		colsShared += len(m.Clients) - len(classReps(clientClasses(m)))
	}
	if pairs < 3000 || colsShared == 0 {
		t.Errorf("only %d pairs compared, %d clients sharing a column class", pairs, colsShared)
	}
}

// verdictOf is what a cell must share with check's answer.
func verdictOf(a access.Answer) map[string]any {
	return map[string]any{"decision": a.Decision, "shadow": a.ShadowDecision, "by": a.DecidedBy, "shadowBy": a.ShadowDecidedBy,
		"merged": a.Merged, "identity": a.MeshIdentity, "default": a.Default, "form": a.Form, "filter": a.Filter}
}

func clientClasses(m *access.Map) []int {
	out := make([]int, len(m.Clients))
	for i, c := range m.Clients {
		out[i] = c.Class
	}
	return out
}

func randomMapObjectsString(all []*unstructured.Unstructured) string {
	var b strings.Builder
	for _, o := range all {
		fmt.Fprintf(&b, "  %s %s/%s %v\n", o.GetKind(), o.GetNamespace(), o.GetName(), o.Object["spec"])
	}
	return b.String()
}

// TestMapBound: past MaxCells (counted as answers judged and client classes
// listed) the remaining destination classes get no cells, and the notes say
// from which class on; within the bound nothing is said.
func TestMapBound(t *testing.T) {
	for seed := int64(1); seed < 100; seed++ {
		all := objs(t, randomMapObjects(rand.New(rand.NewSource(seed))))
		ck := Checker{Policies: randomTopPolicies(rand.New(rand.NewSource(seed)), 6)}
		full, err := BuildMap(all, ck, MapOptions{}, mapLocate)
		if err != nil {
			t.Fatal(err)
		}
		if hasBoundNote(full.Notes) {
			t.Fatalf("seed %d: a small map reached the bound: %q", seed, full.Notes)
		}
		if maxClass(full) < 1 {
			continue // one destination class: nothing to bound
		}
		m, err := BuildMap(all, ck, MapOptions{MaxCells: 1}, mapLocate)
		if err != nil {
			t.Fatal(err)
		}
		if maxClass(m) > 0 || len(m.Cells) >= len(full.Cells) || !hasBoundNote(m.Notes) {
			t.Errorf("seed %d: full map %d cells, bounded %d, notes %q", seed, len(full.Cells), len(m.Cells), m.Notes)
		}
		return
	}
	t.Fatal("no random map with two destination classes")
}

func hasBoundNote(notes []string) bool {
	return len(notes) > 0 && strings.Contains(notes[len(notes)-1], "the bound of")
}

// maxClass is the largest destination class with a cell (-1: none).
func maxClass(m *access.Map) int {
	out := -1
	for _, c := range m.Cells {
		out = max(out, c.DestinationClass)
	}
	return out
}

// TestMapCellsGroupAnswers: a row's cells are its distinct answers: no two
// cells of a destination class hold the same answer, every client class is
// answered exactly once per judged row (listed by one cell or the row's one
// default), no cell's answer names a client, and the map written cell by cell
// is json.MarshalIndent's.
func TestMapCellsGroupAnswers(t *testing.T) {
	r := rand.New(rand.NewSource(131))
	cells, pairs := 0, 0
	for s := 0; s < 200; s++ {
		ck := Checker{Policies: randomTopPolicies(r, r.Intn(8))}
		m, err := BuildMap(objs(t, randomMapObjects(r)), ck, MapOptions{}, mapLocate)
		if err != nil {
			t.Fatal(err)
		}
		ncc := len(classReps(clientClasses(m)))
		byContent := map[[2]string]bool{}
		listed := map[[2]int]bool{}
		others := map[int]bool{}
		rows := map[int]int{}
		for _, c := range m.Cells {
			k := [2]string{fmt.Sprint(c.DestinationClass), string(must(json.Marshal(c.Answer)))}
			if byContent[k] {
				t.Fatalf("set %d: destination class %d has two cells of one answer", s, c.DestinationClass)
			}
			byContent[k] = true
			if c.Others {
				if others[c.DestinationClass] || len(c.ClientClasses) > 0 {
					t.Fatalf("set %d: destination class %d: a second default, or a default that lists classes", s, c.DestinationClass)
				}
				others[c.DestinationClass] = true
			}
			for _, cc := range c.ClientClasses {
				if listed[[2]int{c.DestinationClass, cc}] {
					t.Fatalf("set %d: destination class %d lists client class %d twice", s, c.DestinationClass, cc)
				}
				listed[[2]int{c.DestinationClass, cc}] = true
				rows[c.DestinationClass]++
			}
			if c.Answer.Client.Mesh != "" || c.Answer.Client.SpiffeID != "" || len(c.Answer.Client.URISANs) > 0 || c.Answer.Client.Unauthenticated {
				t.Fatalf("set %d: a cell's answer names a client: %+v", s, c.Answer.Client)
			}
		}
		for d, n := range rows {
			if n < ncc && !others[d] || n > ncc {
				t.Fatalf("set %d: destination class %d lists %d of %d client classes, default %v", s, d, n, ncc, others[d])
			}
		}
		cells += len(m.Cells)
		pairs += (maxClass(m) + 1) * ncc
		want, err := json.MarshalIndent(m, "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		var got strings.Builder
		if err := m.WriteJSON(&got); err != nil {
			t.Fatal(err)
		}
		if got.String() != string(want)+"\n" {
			t.Fatalf("set %d: WriteJSON differs:\n%s", s, cmp.Diff(string(want)+"\n", got.String()))
		}
	}
	if cells*3 > pairs*2 {
		t.Errorf("%d cells for %d class pairs: rows are not grouped by answer", cells, pairs)
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
