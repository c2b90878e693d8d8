package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/linkerd"
)

// TestPodsOfKeepsWhatChecksRead: what a Source keeps of a workload reads, as a
// workload, exactly as the workload does (labels, named ports), and drops the rest.
func TestPodsOfKeepsWhatChecksRead(t *testing.T) {
	for _, doc := range []string{`apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: shop, labels: {team: a}}
spec:
  replicas: 3
  template:
    metadata: {labels: {app: web}}
    spec:
      initContainers: [{name: init, image: busybox, ports: [{name: warm, containerPort: 9000}]}]
      containers:
        - {name: web, image: nginx, env: [{name: A, value: b}], ports: [{name: http, containerPort: 8080}, {containerPort: 9090}]}
        - {name: side, image: envoy}
`, `apiVersion: v1
kind: Pod
metadata: {name: p, namespace: shop, labels: {app: web}}
spec:
  containers: [{name: web, image: nginx, ports: [{name: http, containerPort: 8080}]}]
`, `apiVersion: batch/v1
kind: CronJob
metadata: {name: c, namespace: shop}
spec:
  schedule: "* * * * *"
  jobTemplate:
    spec:
      template:
        metadata: {labels: {app: cron}}
        spec: {containers: [{name: c, image: x, ports: [{name: metrics, containerPort: 9100}]}]}
`} {
		u := obj(t, doc)
		want, ok := linkerd.WorkloadFromObject(u)
		if !ok {
			t.Fatalf("%s: not a workload", u.GetKind())
		}
		kept, ok := PodsOf(u)
		if !ok {
			t.Fatalf("%s: PodsOf refused it", u.GetKind())
		}
		got, ok := linkerd.WorkloadFromObject(kept)
		if !ok {
			t.Fatalf("%s: what PodsOf keeps is not a workload: %v", u.GetKind(), kept.Object)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-workload +kept):\n%s", u.GetKind(), diff)
		}
		if _, found, _ := unstructured.NestedFieldNoCopy(kept.Object, "spec", "replicas"); found {
			t.Errorf("%s: PodsOf kept spec.replicas", u.GetKind())
		}
	}
	if _, ok := PodsOf(obj(t, "apiVersion: v1\nkind: Service\nmetadata: {name: s}\n")); ok {
		t.Error("a Service carries no pods")
	}
}
