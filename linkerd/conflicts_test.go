package linkerd

import (
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"
)

func obj(t *testing.T, doc string) *unstructured.Unstructured {
	t.Helper()
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(doc), &m); err != nil {
		t.Fatal(err)
	}
	return &unstructured.Unstructured{Object: m}
}

func server(t *testing.T, name, ns, selector, port string) Server {
	t.Helper()
	s, ok := ServerFromObject(obj(t, "apiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata:\n  name: "+name+
		"\n  namespace: "+ns+"\nspec:\n  podSelector: "+selector+"\n  port: "+port+"\n"))
	if !ok {
		t.Fatalf("server %s does not read", name)
	}
	return s
}

const deploy = `apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: ns}
spec:
  template:
    metadata: {labels: {app: web, tier: front}}
    spec:
      containers:
        - name: web
          ports: [{name: http, containerPort: 8080}, {name: admin, containerPort: 9990}]
`

const cron = `apiVersion: batch/v1
kind: CronJob
metadata: {name: report, namespace: ns}
spec:
  jobTemplate:
    spec:
      template:
        metadata: {labels: {app: report}}
        spec:
          containers: [{name: r, ports: [{name: metrics, containerPort: 9100}]}]
`

func TestConflicts(t *testing.T) {
	var ws []Workload
	for _, d := range []string{deploy, cron} {
		w, ok := WorkloadFromObject(obj(t, d))
		if !ok {
			t.Fatal("workload does not read")
		}
		ws = append(ws, w)
	}
	cases := []struct {
		name  string
		a, b  Server
		want  bool
		words string
	}{
		{"same number", server(t, "a", "ns", "{matchLabels: {app: web}}", "8080"), server(t, "b", "ns", "{}", "8080"), true, "port 8080"},
		{"other number", server(t, "a", "ns", "{matchLabels: {app: web}}", "8080"), server(t, "b", "ns", "{}", "8081"), false, ""},
		{"same name", server(t, "a", "ns", "{matchLabels: {app: web}}", "http"), server(t, "b", "ns", "{matchLabels: {tier: front}}", "http"), true, "port http"},
		{"disjoint selectors", server(t, "a", "ns", "{matchLabels: {app: web}}", "8080"), server(t, "b", "ns", "{matchLabels: {app: api}}", "8080"), false, ""},
		{"other namespace", server(t, "a", "ns", "{}", "8080"), server(t, "b", "other", "{}", "8080"), false, ""},
		{"number vs name resolved", server(t, "a", "ns", "{matchLabels: {app: web}}", "8080"), server(t, "b", "ns", "{}", "http"), true, "port 8080 (named http in Deployment web)"},
		{"name vs number resolved", server(t, "a", "ns", "{}", "http"), server(t, "b", "ns", "{matchLabels: {app: web}}", "8080"), true, "port 8080 (named http in Deployment web)"},
		{"cronjob template", server(t, "a", "ns", "{}", "9100"), server(t, "b", "ns", "{matchLabels: {app: report}}", "metrics"), true, "port 9100 (named metrics in CronJob report)"},
		{"name resolves to another number", server(t, "a", "ns", "{}", "9990"), server(t, "b", "ns", "{}", "http"), false, ""},
		{"workload matches one selector only", server(t, "a", "ns", "{matchLabels: {app: web}}", "8080"),
			server(t, "b", "ns", "{matchExpressions: [{key: app, operator: NotIn, values: [web]}]}", "http"), false, ""},
		{"name unresolvable", server(t, "a", "ns", "{}", "8080"), server(t, "b", "ns", "{}", "grpc"), false, ""},
	}
	for _, c := range cases {
		got := Conflicts([]Server{c.a, c.b}, ws)
		if (len(got) == 1) != c.want {
			t.Errorf("%s: conflicts %+v, want conflict=%v", c.name, got, c.want)
			continue
		}
		if c.want && got[0].Port != c.words {
			t.Errorf("%s: port %q, want %q", c.name, got[0].Port, c.words)
		}
	}
	names, _ := ConflictsWith(server(t, "a", "ns", "{}", "8080"), []Server{server(t, "a", "ns", "{}", "8080"), server(t, "b", "ns", "{}", "8080")}, nil)
	if strings.Join(names, ",") != "b" {
		t.Errorf("ConflictsWith skips the Server itself: got %v", names)
	}
}

func TestServerFromObject(t *testing.T) {
	ext := obj(t, "apiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata: {name: e, namespace: ns}\nspec:\n  externalWorkloadSelector: {matchLabels: {app: vm}}\n  port: 80\n")
	s, ok := ServerFromObject(ext)
	if !ok || !s.External || s.PortNumber != 80 {
		t.Errorf("external Server: %+v %v", s, ok)
	}
	pod := server(t, "p", "ns", "{matchLabels: {app: vm}}", "80")
	if len(Conflicts([]Server{s, pod}, nil)) != 0 {
		t.Error("a pod Server and an external-workload Server never conflict")
	}
	for _, bad := range []string{"port: 0", "port: 1.5", "port: [1]", "port: 80\n  podSelector: 3"} {
		u := obj(t, "apiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata: {name: b, namespace: ns}\nspec:\n  podSelector: {}\n  "+bad+"\n")
		if _, ok := ServerFromObject(u); ok {
			t.Errorf("%q read as a Server", bad)
		}
	}
}

// refConflicts is Conflicts written plainly: every pair of Servers, decided with
// every workload.
func refConflicts(servers []Server, workloads []Workload) []Conflict {
	var out []Conflict
	for x := range servers {
		for y := x + 1; y < len(servers); y++ {
			if c, ok := conflict(servers[x], servers[y], workloads); ok {
				out = append(out, Conflict{A: x, B: y, Port: c})
			}
		}
	}
	return out
}

// TestConflictsMatchesAllPairs checks the bucketed Conflicts against every pair on
// random Servers and workloads sharing namespaces, labels, port names and numbers.
func TestConflictsMatchesAllPairs(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	pick := func(xs ...string) string { return xs[r.Intn(len(xs))] }
	total := 0
	for iter := 0; iter < 300; iter++ {
		var ws []Workload
		for i := r.Intn(6); i > 0; i-- {
			ws = append(ws, Workload{Namespace: pick("a", "b"), Kind: "Deployment", Name: fmt.Sprint("w", i),
				Labels: map[string]string{"app": pick("web", "api")}, Ports: map[string]int64{pick("http", "admin"): int64(8080 + r.Intn(2))}})
		}
		var ss []Server
		for i := r.Intn(30); i > 0; i-- {
			s := Server{Namespace: pick("a", "b"), Name: fmt.Sprint("s", r.Intn(20)), External: r.Intn(6) == 0}
			if r.Intn(3) > 0 {
				s.Selector.MatchLabels = map[string]string{"app": pick("web", "api")}
			}
			if r.Intn(2) == 0 {
				s.PortName = pick("http", "admin", "grpc")
			} else {
				s.PortNumber = int64(8080 + r.Intn(3))
			}
			ss = append(ss, s)
		}
		want, got := refConflicts(ss, ws), Conflicts(ss, ws)
		if !reflect.DeepEqual(want, got) {
			t.Fatalf("iter %d:\nwant %+v\ngot  %+v", iter, want, got)
		}
		total += len(got)
	}
	if total < 100 {
		t.Fatalf("only %d conflicts in the random sets", total)
	}
}
