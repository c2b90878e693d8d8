package linkerd

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/meshguard/meshguard/api"
)

// Server is what conflict detection needs of a policy.linkerd.io Server (any
// version): where it is, which pods (or external workloads) it selects and its port.
type Server struct {
	Namespace, Name string
	// External is true for a Server with externalWorkloadSelector; it only conflicts
	// with other external-workload Servers.
	External bool
	Selector metav1.LabelSelector
	// Port is either a number (PortName empty) or a container port name.
	PortNumber int64
	PortName   string
}

// PortString is the port as the Server spells it.
func (s Server) PortString() string {
	if s.PortName != "" {
		return s.PortName
	}
	return strconv.FormatInt(s.PortNumber, 10)
}

// ServerFromObject reads a Server; ok is false for other kinds and for Servers whose
// selector or port cannot be read (the validation rules report those).
func ServerFromObject(u *unstructured.Unstructured) (Server, bool) {
	gvk := u.GroupVersionKind()
	if gvk.Group != api.LinkerdGroup || gvk.Kind != api.KindServer {
		return Server{}, false
	}
	s := Server{Namespace: u.GetNamespace(), Name: u.GetName()}
	sel, found, _ := unstructured.NestedMap(u.Object, "spec", "podSelector")
	if !found {
		sel, found, _ = unstructured.NestedMap(u.Object, "spec", "externalWorkloadSelector")
		s.External = true
	}
	if !found || runtime.DefaultUnstructuredConverter.FromUnstructured(sel, &s.Selector) != nil {
		return Server{}, false
	}
	spec, _ := u.Object["spec"].(map[string]any)
	switch p := spec["port"].(type) {
	case string:
		s.PortName = p
	case int64:
		s.PortNumber = p
	case float64:
		s.PortNumber = int64(p)
		if float64(s.PortNumber) != p {
			return Server{}, false
		}
	default:
		return Server{}, false
	}
	if s.PortName == "" && (s.PortNumber < 1 || s.PortNumber > 65535) {
		return Server{}, false
	}
	return s, true
}

// Workload is a pod template (or a Pod) of the linted set: the labels its pods carry
// and its named container ports.
type Workload struct {
	Namespace, Kind, Name string
	Labels                map[string]string
	// Ports maps a container port name to its number.
	Ports map[string]int64
}

// WorkloadFromObject reads the pod template of a workload (or a Pod itself); ok is
// false for other kinds.
func WorkloadFromObject(u *unstructured.Unstructured) (Workload, bool) {
	kind := u.GetKind()
	var tmpl map[string]any
	if path, ok := api.PodTemplatePath(kind); ok && path == nil {
		if u.GroupVersionKind().Group == "" { // only the core Pod is its own template
			tmpl = u.Object
		}
	} else if ok {
		tmpl, _, _ = unstructured.NestedMap(u.Object, path...)
	}
	if tmpl == nil {
		return Workload{}, false
	}
	w := Workload{Namespace: u.GetNamespace(), Kind: kind, Name: u.GetName(), Ports: map[string]int64{}}
	w.Labels, _, _ = unstructured.NestedStringMap(tmpl, "metadata", "labels")
	for _, list := range []string{"initContainers", "containers"} {
		cs, _, _ := unstructured.NestedSlice(tmpl, "spec", list)
		for _, c := range cs {
			cm, _ := c.(map[string]any)
			ports, _, _ := unstructured.NestedSlice(cm, "ports")
			for _, p := range ports {
				pm, _ := p.(map[string]any)
				name, _ := pm["name"].(string)
				n, ok := number(pm["containerPort"])
				if name != "" && ok {
					w.Ports[name] = n
				}
			}
		}
	}
	return w, true
}

func number(v any) (int64, bool) {
	switch n := v.(type) {
	case int64:
		return n, true
	case float64:
		return int64(n), float64(int64(n)) == n
	}
	return 0, false
}

// Conflict is one pair of conflicting Servers, by index into the slice given to
// Conflicts, with the port they share in words.
type Conflict struct {
	A, B int
	Port string
}

// PortsOverlap reports whether two Servers whose selectors overlap can describe the
// same port of one pod, and the port in words. Equal numbers and equal names always
// do. A number and a name do when a workload in the Servers' namespace whose pod
// labels both selectors match names that port with that number; without such a
// workload the name cannot be resolved and no conflict is reported.
func PortsOverlap(a, b Server, workloads []Workload) (string, bool) {
	switch {
	case a.PortName == "" && b.PortName == "":
		return "port " + a.PortString(), a.PortNumber == b.PortNumber
	case a.PortName != "" && b.PortName != "":
		return "port " + a.PortName, a.PortName == b.PortName
	}
	num, name := a, b
	if a.PortName != "" {
		num, name = b, a
	}
	if a.External {
		return "", false // external workloads have no pod templates here
	}
	sa, errA := metav1.LabelSelectorAsSelector(&a.Selector)
	sb, errB := metav1.LabelSelectorAsSelector(&b.Selector)
	if errA != nil || errB != nil {
		return "", false
	}
	for _, w := range workloads {
		if w.Namespace != a.Namespace || w.Ports[name.PortName] != num.PortNumber {
			continue
		}
		if l := labels.Set(w.Labels); sa.Matches(l) && sb.Matches(l) {
			return fmt.Sprintf("port %d (named %s in %s %s)", num.PortNumber, name.PortName, w.Kind, w.Name), true
		}
	}
	return "", false
}

// Conflicts returns every pair of Servers in one namespace whose selectors can select
// the same pod (or external workload) and whose ports can be the same port, in index
// order. Servers with the same namespace and name are one object and never conflict.
// Only pairs that can share a port are compared: Servers are bucketed by namespace
// and port, and a named port meets the numbers the namespace's workloads give that
// name, so a repository of many Servers on different ports is not compared pair by
// pair.
func Conflicts(servers []Server, workloads []Workload) []Conflict {
	type bucket struct {
		ns       string
		external bool
		name     string
		number   int64
	}
	buckets := map[bucket][]int{}
	for i, s := range servers {
		b := bucket{ns: s.Namespace, external: s.External, name: s.PortName}
		if s.PortName == "" {
			b.number = s.PortNumber
		}
		buckets[b] = append(buckets[b], i)
	}
	wByNS := map[string][]Workload{}
	for _, w := range workloads {
		wByNS[w.Namespace] = append(wByNS[w.Namespace], w)
	}
	seen := map[[2]int]bool{}
	var out []Conflict
	try := func(x, y int) {
		if x > y {
			x, y = y, x
		}
		if seen[[2]int{x, y}] {
			return
		}
		seen[[2]int{x, y}] = true
		if c, ok := conflict(servers[x], servers[y], wByNS[servers[x].Namespace]); ok {
			out = append(out, Conflict{A: x, B: y, Port: c})
		}
	}
	for b, idx := range buckets {
		for i := range idx {
			for j := i + 1; j < len(idx); j++ {
				try(idx[i], idx[j])
			}
		}
		if b.name == "" || b.external {
			continue
		}
		// A named port conflicts with the numbers it names in the namespace.
		nums := map[int64]bool{}
		for _, w := range wByNS[b.ns] {
			if n, ok := w.Ports[b.name]; ok {
				nums[n] = true
			}
		}
		for n := range nums {
			for _, y := range buckets[bucket{ns: b.ns, number: n}] {
				for _, x := range idx {
					try(x, y)
				}
			}
		}
	}
	slices.SortFunc(out, func(a, b Conflict) int { return cmp.Or(cmp.Compare(a.A, b.A), cmp.Compare(a.B, b.B)) })
	return out
}

// conflict decides one pair; the port in words when they conflict.
func conflict(a, b Server, workloads []Workload) (string, bool) {
	if a.Namespace != b.Namespace || a.Name == b.Name || a.External != b.External || !Overlap(a.Selector, b.Selector) {
		return "", false
	}
	return PortsOverlap(a, b, workloads)
}

// ConflictsWith returns the Servers among others that conflict with s, each with the
// port in words: the webhook's question on CREATE or UPDATE.
func ConflictsWith(s Server, others []Server, workloads []Workload) (names, ports []string) {
	for _, o := range others {
		if p, ok := conflict(s, o, workloads); ok {
			names = append(names, o.Name)
			ports = append(ports, p)
		}
	}
	return names, ports
}

// Message is the finding text for Server self conflicting with other on port.
func Message(self, other, port string) string {
	return fmt.Sprintf("Server %s can select the same pods as Server %s on %s; Linkerd's behavior is undefined when Servers conflict (Linkerd's policy design): narrow one podSelector or use another port", self, other, port)
}
