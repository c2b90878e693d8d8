//go:build e2e

package e2e

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestLinkerdAnnotationThroughAPIServer sends Namespaces and workloads through the
// chart's annotations.meshguard.io webhook: the invalid example is denied with its
// expected field paths and MG341, a valid annotation is admitted, and a Deployment
// without the annotation is admitted without meshguard being called (the API server's
// matchConditions filter it out; checked on meshguard's request counter when local).
func TestLinkerdAnnotationThroughAPIServer(t *testing.T) {
	f := repo("examples/linkerd/invalid/linkerd-inbound-annotation.yaml")
	namespaces(t, load(t, f))
	raw, _ := os.ReadFile(f)
	_, stderr, err := kubectl(t, "", "apply", "-f", f)
	if err == nil {
		t.Fatal("kubectl apply succeeded; want MG341 denials")
	}
	expect := regexp.MustCompile(`(?m)^# expect: (MG\d+) (\S+)$`).FindAllStringSubmatch(string(raw), -1)
	if len(expect) != 2 {
		t.Fatalf("want 2 expectations in %s, got %d", f, len(expect))
	}
	for _, m := range expect {
		if !strings.Contains(stderr, m[2]) || !strings.Contains(stderr, m[1]) {
			t.Errorf("kubectl output lacks %s at %s", m[1], m[2])
		}
	}
	if !strings.Contains(stderr, `admission webhook "annotations.meshguard.io" denied the request`) {
		t.Errorf("denial does not come from annotations.meshguard.io:\n%s", stderr)
	}

	const cronjob = `apiVersion: batch/v1
kind: CronJob
metadata: {name: e2e-annotated-cron, namespace: web}
spec:
  schedule: "@daily"
  jobTemplate:
    spec:
      template:
        metadata:
          annotations: {config.linkerd.io/default-inbound-policy: %s}
        spec:
          restartPolicy: Never
          containers: [{name: c, image: busybox}]
`
	_, stderr, err = kubectl(t, fmt.Sprintf(cronjob, "everyone"), "apply", "-f", "-")
	if err == nil || !strings.Contains(stderr, "spec.jobTemplate.spec.template.metadata.annotations[config.linkerd.io/default-inbound-policy]") ||
		!strings.Contains(stderr, "MG341") {
		t.Errorf("CronJob with a bad template annotation: err=%v\n%s", err, stderr)
	}
	if _, _, err := kubectl(t, fmt.Sprintf(cronjob, "all-authenticated"), "apply", "-f", "-"); err != nil {
		t.Errorf("CronJob with a valid annotation refused: %v", err)
	}

	before := validateRequests(t)
	const plain = `apiVersion: apps/v1
kind: Deployment
metadata: {name: e2e-plain, namespace: web}
spec:
  selector: {matchLabels: {app: plain}}
  template:
    metadata: {labels: {app: plain}}
    spec: {containers: [{name: c, image: nginx}]}
`
	if _, _, err := kubectl(t, plain, "apply", "-f", "-"); err != nil {
		t.Fatalf("Deployment without the annotation refused: %v", err)
	}
	if after := validateRequests(t); before >= 0 && after != before {
		t.Errorf("meshguard saw %d /validate requests for a Deployment without the annotation; matchConditions should skip it", after-before)
	}
	if after := validateRequests(t); before >= 0 {
		// The counter does move for an annotated object (the check above is not vacuous).
		if _, _, err := kubectl(t, fmt.Sprintf(cronjob, "deny"), "apply", "-f", "-"); err != nil {
			t.Errorf("CronJob with a valid annotation refused: %v", err)
		}
		if now := validateRequests(t); now <= after {
			t.Errorf("/validate requests %d -> %d for an annotated CronJob; want more", after, now)
		}
	}
}

// validateRequests sums meshguard's controller_runtime_webhook_requests_total for
// /validate from its metrics endpoint; -1 when not local (no endpoint to read).
func validateRequests(t *testing.T) int {
	t.Helper()
	if env.stack == nil {
		return -1
	}
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", env.stack.Meshguard.MetricsPort))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	total := 0
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, "controller_runtime_webhook_requests_total{") || !strings.Contains(line, `webhook="/validate"`) {
			continue
		}
		fields := strings.Fields(line)
		n, err := strconv.ParseFloat(fields[len(fields)-1], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		total += int(n)
	}
	return total
}
