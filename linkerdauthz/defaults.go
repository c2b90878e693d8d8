package linkerdauthz

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/meshguard/meshguard/api"
)

// workload is a pod-producing object: its pod labels, ports and annotation.
type workload struct {
	ns, ref string
	labels  map[string]string
	ports   []port
	// mode is the default-inbound-policy annotation of the pod (template).
	mode string
	// requireIDPorts is the pod's proxy-require-identity-inbound-ports.
	requireIDPorts string
	// sa is the pod's ServiceAccount, whose identity its proxy presents.
	sa string
}

type port struct {
	number int64
	name   string
}

func workloadOf(o *unstructured.Unstructured) (workload, bool) {
	path, ok := api.PodTemplatePath(o.GetKind())
	if !ok {
		return workload{}, false
	}
	tmpl := o.Object
	if path != nil {
		m, found, _ := unstructured.NestedMap(o.Object, path...)
		if !found {
			return workload{}, false
		}
		tmpl = m
	}
	w := workload{ns: o.GetNamespace(), ref: o.GetKind() + "/" + o.GetName()}
	w.labels, _, _ = unstructured.NestedStringMap(tmpl, "metadata", "labels")
	ann, _, _ := unstructured.NestedStringMap(tmpl, "metadata", "annotations")
	w.requireIDPorts = ann[AnnotationRequireIdentityPorts]
	// Linkerd reads the pod's annotations (the proxy injector copies the
	// Namespace's onto the pod when the pod has none); the workload's own
	// metadata annotations never reach the pod.
	w.mode = ann[AnnotationDefaultPolicy]
	w.sa, _, _ = unstructured.NestedString(tmpl, "spec", "serviceAccountName")
	if w.sa == "" {
		w.sa = "default"
	}
	containers, _, _ := unstructured.NestedSlice(tmpl, "spec", "containers")
	for _, c := range containers {
		cm, _ := c.(map[string]any)
		ports, _, _ := unstructured.NestedSlice(cm, "ports")
		for _, p := range ports {
			pm, _ := p.(map[string]any)
			n, _, _ := unstructured.NestedFieldNoCopy(pm, "containerPort")
			name, _ := pm["name"].(string)
			w.ports = append(w.ports, port{number: toInt(n), name: name})
		}
	}
	return w, true
}

func toInt(v any) int64 {
	switch n := v.(type) {
	case int64:
		return n
	case int:
		return int64(n)
	case float64:
		return int64(n)
	}
	return 0
}

// selector converts Linkerd's selector to a labels.Selector; nil selects nothing,
// an empty one everything (Kubernetes' rules).
func selector(s *api.LabelSelector) labels.Selector {
	if s == nil {
		return labels.Nothing()
	}
	ls := &metav1.LabelSelector{MatchLabels: s.MatchLabels}
	for _, e := range s.MatchExpressions {
		ls.MatchExpressions = append(ls.MatchExpressions, metav1.LabelSelectorRequirement{
			Key: e.Key, Operator: metav1.LabelSelectorOperator(e.Operator), Values: e.Values})
	}
	sel, err := metav1.LabelSelectorAsSelector(ls)
	if err != nil {
		return labels.Nothing()
	}
	return sel
}

func matches(s *api.LabelSelector, l map[string]string) bool {
	return selector(s).Matches(labels.Set(l))
}

// selectorWords is a selector as kubectl writes it, or a phrase for the edge cases.
func selectorWords(s *api.LabelSelector) string {
	if s == nil {
		return "no selector"
	}
	sel := selector(s)
	switch {
	case sel.Empty():
		return "any labels"
	case sel.String() == "":
		return "an invalid selector (matches nothing)"
	}
	return sel.String()
}

// covers reports whether a Server takes a workload's port: its pod selector
// matches the pod template and its port is that number or that name.
func covers(s *server, w workload, p port) bool {
	if s.ns != w.ns || !s.selects(w.labels) {
		return false
	}
	switch v := s.spec.Port.(type) {
	case string:
		return v != "" && v == p.name
	default:
		return toInt(v) == p.number
	}
}

// defaults are the views for traffic no Server takes: each namespace of the set,
// each workload with a declared port no Server covers (one view per default
// policy its ports get), and the cluster default.
func (ix *index) defaults(o Options, cluster []string) []Preview {
	var out []Preview
	nss := make([]string, 0, len(ix.nsModes))
	for ns := range ix.nsModes {
		nss = append(nss, ns)
	}
	sort.Strings(nss)
	for _, ns := range nss {
		mode, src := ix.resolveMode(o, ns, nil, nil)
		out = append(out, defaultView(ns, "", "ports no Server covers", "pods of namespace "+ns+" without their own annotation", mode, src, cluster))
	}
	loads := append([]workload(nil), ix.loads...)
	sort.SliceStable(loads, func(a, b int) bool { return loads[a].ns+"/"+loads[a].ref < loads[b].ns+"/"+loads[b].ref })
	for _, w := range loads {
		out = append(out, ix.workloadViews(o, w, cluster)...)
	}
	clusterMode, src := ix.resolveMode(o, "", nil, nil)
	return append(out, defaultView("", "", "ports no Server covers", "pods of namespaces outside the linted set", clusterMode, src, cluster))
}

// workloadViews are the default-policy view of a workload's declared ports no
// Server covers, or, when it has its own annotation, of all ports no Server
// covers. (Ports in proxy-require-identity-inbound-ports get the authenticated
// form of the default; the view names the workload's default, and `check` and
// the Server comparisons of `diff` apply the port's.)
func (ix *index) workloadViews(o Options, w workload, cluster []string) []Preview {
	var open []string
	for _, p := range w.ports {
		taken := false
		for _, s := range ix.servers {
			taken = taken || covers(s, w, p)
		}
		if !taken {
			open = append(open, portWords(p))
		}
	}
	if len(open) == 0 && len(w.ports) > 0 && w.mode == "" {
		return nil // every declared port has a Server; the namespace view covers the rest
	}
	ports := strings.Join(open, ", ")
	if ports == "" {
		ports = "ports no Server covers"
	}
	mode, src := ix.resolveMode(o, w.ns, &w, nil)
	return []Preview{defaultView(w.ns, w.ref, ports, "pods of "+w.ref, mode, src, cluster)}
}

// defaultView is the preview of what a default inbound policy admits.
func defaultView(ns, name, ports, pods, mode, source string, cluster []string) Preview {
	cs, notes := modeClients(mode, "default "+mode+" ("+source+")", cluster)
	notes = append(notes, "kubelet: HTTP probe paths are authorized for unauthenticated clients whatever the mode")
	return Preview{Default: true, Namespace: ns, Name: name, Port: ports, Pods: pods,
		Policy: mode + " (" + source + ")", Clients: cs, Notes: notes}
}

// resolveMode is the default inbound policy Linkerd gives a pod's port, with
// where it comes from, in Linkerd's precedence: the pod's (template's)
// config.linkerd.io/default-inbound-policy, else its Namespace's (which the
// proxy injector copies onto the pod), else the cluster default. w nil is a pod
// of namespace ns whose workload is not known; ns "" a pod of a namespace outside
// the set. A port listed in the pod's proxy-require-identity-inbound-ports turns
// an allowing default into its authenticated form, as the policy controller does
// (all-unauthenticated: all-authenticated; cluster-unauthenticated:
// cluster-authenticated); deny and audit stay.
func (ix *index) resolveMode(o Options, ns string, w *workload, p *port) (mode, source string) {
	mode, source = o.DefaultPolicy, "cluster default"
	if mode == "" {
		mode = DefaultMode
	}
	if m := ix.nsModes[ns]; m != "" {
		mode, source = m, "annotation on Namespace "+ns
	}
	if w != nil && w.mode != "" {
		mode, source = w.mode, "annotation on "+w.ref
	}
	if w != nil && p != nil && w.requireID(*p) {
		switch mode {
		case "all-unauthenticated", "cluster-unauthenticated":
			mode = strings.Replace(mode, "unauthenticated", "authenticated", 1)
			source += ", port " + portWords(*p) + " in " + AnnotationRequireIdentityPorts + " on " + w.ref
		}
	}
	return mode, source
}

// AnnotationRequireIdentityPorts lists the ports of a pod on which Linkerd's
// default policy admits only clients with a mesh identity.
const AnnotationRequireIdentityPorts = "config.linkerd.io/proxy-require-identity-inbound-ports"

// requireID reports whether the pod's proxy-require-identity-inbound-ports
// annotation lists port p (numbers and ranges "a-b", comma-separated).
func (w workload) requireID(p port) bool {
	for _, part := range strings.Split(w.requireIDPorts, ",") {
		lo, hi, isRange := strings.Cut(strings.TrimSpace(part), "-")
		a, err1 := strconv.ParseInt(strings.TrimSpace(lo), 10, 32)
		b, err2 := a, error(nil)
		if isRange {
			b, err2 = strconv.ParseInt(strings.TrimSpace(hi), 10, 32)
		}
		if err1 == nil && err2 == nil && p.number >= a && p.number <= b {
			return true
		}
	}
	return false
}

func portWords(p port) string {
	if p.name != "" {
		return fmt.Sprintf("%d (%s)", p.number, p.name)
	}
	return fmt.Sprint(p.number)
}
