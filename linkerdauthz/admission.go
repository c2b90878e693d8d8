package linkerdauthz

import (
	"sort"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/internal/warnline"
)

// AdmissionSummary returns the warning lines (at most four, each ≤ 120 bytes) the
// webhook can attach when a Linkerd object is admitted, computed over stored (the
// informer cache's Linkerd objects, plus Namespaces and workloads if it has them)
// with obj in place of its stored version. It answers from memory only, so the
// request path makes no API call.
//
//   - Server: who may connect to it now.
//   - ServerAuthorization, AuthorizationPolicy: the first Server it grants on (or
//     that its target is not there), and how many other Servers it touches.
//   - MeshTLSAuthentication, NetworkAuthentication: the first Server a policy using
//     it grants on.
//
// Other objects, and authentications no policy uses, give nil. The cluster default
// is taken as DefaultMode: callers that know better can use Build with Options.
func AdmissionSummary(obj *unstructured.Unstructured, stored []unstructured.Unstructured) []string {
	return AdmissionSummaryFor(obj, stored, nil, Options{})
}

// AdmissionSummaryFor is AdmissionSummary for a reader shown only the objects of
// the namespaces visible accepts (nil: all), as the webhook answers a user who may
// only read their own namespace. Servers elsewhere that the object touches (a
// MeshTLSAuthentication or NetworkAuthentication that policies of other namespaces
// use) are counted, not named. A shown Server's grants and notes come from objects
// of its own namespace (Linkerd authorizes a Server only from there), which that
// reader may read. Who may connect is unchanged: the Servers are computed from
// every stored object, read with the installation's facts in o.
func AdmissionSummaryFor(obj *unstructured.Unstructured, stored []unstructured.Unstructured, visible func(namespace string) bool, o Options) []string {
	if obj == nil || obj.GroupVersionKind().Group != api.LinkerdGroup {
		return nil
	}
	kind, ns, name := obj.GetKind(), obj.GetNamespace(), obj.GetName()
	set := make([]unstructured.Unstructured, 0, len(stored)+1)
	for _, s := range stored {
		if s.GetKind() == kind && s.GetNamespace() == ns && s.GetName() == name && s.GroupVersionKind().Group == api.LinkerdGroup {
			continue
		}
		set = append(set, s)
	}
	set = append(set, *obj)
	var hits []Preview
	hidden := 0
	for _, p := range Build(set, o) {
		if p.Default || !concerns(p, kind, ns+"/"+name) {
			continue
		}
		if visible != nil && !visible(p.Namespace) {
			hidden++
			continue
		}
		hits = append(hits, p)
	}
	self := kind + " " + ns + "/" + name
	if len(hits) == 0 {
		if hidden == 0 {
			return nil
		}
		return []string{warnline.Text(self+" applies to "+plural(hidden, api.KindServer)+" in other namespaces (not named here)", warnline.Width)}
	}
	first := hits[0]
	if kind != api.KindServer {
		// Its own grants first, so the warning talks about the object admitted.
		first.Clients = append([]Client(nil), first.Clients...)
		sort.SliceStable(first.Clients, func(a, b int) bool {
			return concerns(Preview{Clients: first.Clients[a : a+1]}, kind, ns+"/"+name) &&
				!concerns(Preview{Clients: first.Clients[b : b+1]}, kind, ns+"/"+name)
		})
	}
	lines := Summary(first)
	if len(hits) > 1 || hidden > 0 {
		refs := make([]string, 0, len(hits)-1)
		for _, h := range hits[1:] {
			refs = append(refs, h.Ref())
		}
		more := warnline.Line{Lead: self + " also applies to ", Items: refs}
		switch {
		case hidden > 0 && len(refs) == 0:
			more = warnline.Line{Lead: self + " also applies to " + plural(hidden, api.KindServer) + " in other namespaces"}
		case hidden > 0:
			more.Tail = " and " + plural(hidden, api.KindServer) + " in other namespaces"
		}
		if len(lines) == 4 {
			lines = lines[:3]
		}
		lines = append(lines, more.Fit(warnline.Width, Where))
	}
	return lines
}

// plural is "1 Server" or "n Servers".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return strconv.Itoa(n) + " " + what + "s"
}

// concerns reports whether preview p is about the object kind/ref: the Server
// itself, or a Server one of whose grants the object is (or is referenced by).
func concerns(p Preview, kind, ref string) bool {
	if kind == api.KindServer {
		return p.Ref() == ref && p.Policy != "not applied"
	}
	want := kind + " " + ref
	for _, c := range p.Clients {
		head, refs, _ := strings.Cut(c.Via, " (")
		if head == want {
			return true
		}
		for _, r := range strings.Split(strings.TrimSuffix(refs, ")"), ", ") {
			if r == want {
				return true
			}
		}
	}
	return false
}
