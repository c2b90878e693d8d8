package authz

import (
	"fmt"
	"sort"
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
	// mode is the annotation on the pod (template), else on the workload itself.
	mode string
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
	if w.mode = ann[AnnotationDefaultPolicy]; w.mode == "" {
		w.mode = o.GetAnnotations()[AnnotationDefaultPolicy]
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
	if s.ns != w.ns || s.spec.PodSelector == nil || !matches(s.spec.PodSelector, w.labels) {
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
// each workload with a declared port no Server covers, and the cluster default.
func (ix *index) defaults(o Options, cluster []string) []Preview {
	clusterMode := o.DefaultPolicy
	if clusterMode == "" {
		clusterMode = DefaultMode
	}
	resolve := func(ns, own, ownSource string) (string, string) {
		if own != "" {
			return own, ownSource
		}
		if m := ix.nsModes[ns]; m != "" {
			return m, "annotation on Namespace " + ns
		}
		return clusterMode, "cluster default"
	}
	view := func(ns, name, ports, pods, mode, source string) Preview {
		cs, notes := modeClients(mode, "default "+mode+" ("+source+")", cluster)
		notes = append(notes, "kubelet: HTTP probe paths are authorized for unauthenticated clients whatever the mode")
		return Preview{Default: true, Namespace: ns, Name: name, Port: ports, Pods: pods,
			Policy: mode + " (" + source + ")", Clients: cs, Notes: notes}
	}
	var out []Preview
	nss := make([]string, 0, len(ix.nsModes))
	for ns := range ix.nsModes {
		nss = append(nss, ns)
	}
	sort.Strings(nss)
	for _, ns := range nss {
		mode, src := resolve(ns, "", "")
		out = append(out, view(ns, "", "ports no Server covers", "pods of namespace "+ns+" without their own annotation", mode, src))
	}
	loads := append([]workload(nil), ix.loads...)
	sort.SliceStable(loads, func(a, b int) bool { return loads[a].ns+"/"+loads[a].ref < loads[b].ns+"/"+loads[b].ref })
	for _, w := range loads {
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
			continue // every declared port has a Server; the namespace view covers the rest
		}
		ports := strings.Join(open, ", ")
		if ports == "" {
			ports = "ports no Server covers"
		}
		mode, src := resolve(w.ns, w.mode, "annotation on "+w.ref)
		out = append(out, view(w.ns, w.ref, ports, "pods of "+w.ref, mode, src))
	}
	return append(out, view("", "", "ports no Server covers", "pods of namespaces outside the linted set", clusterMode, "cluster default"))
}

func portWords(p port) string {
	if p.name != "" {
		return fmt.Sprintf("%d (%s)", p.number, p.name)
	}
	return fmt.Sprint(p.number)
}
