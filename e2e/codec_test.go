//go:build e2e

package e2e

import (
	"bufio"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
)

// TestAPIServerReviewsUseMeshguardCodec checks that what the real API server
// sends to both webhooks — creates, a server dry run, an update, a delete — is
// read by meshguard's AdmissionReview codec (webhook.Admission), not handed to
// controller-runtime's: the fast codec accepts only the form it was written for,
// and this is where that form comes from.
func TestAPIServerReviewsUseMeshguardCodec(t *testing.T) {
	st := local(t)
	if err := ensureNS("kuma-system"); err != nil {
		t.Fatal(err)
	}
	const mtp = `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata:
  name: e2e-codec
  namespace: kuma-system
spec:
  targetRef:
    kind: Mesh
  from:
    - targetRef:
        kind: MeshSubset
        tags:
          kuma.io/service: codec-web
      default:
        action: Allow
`
	t.Cleanup(func() {
		kubectl(t, "", "delete", "--ignore-not-found", "-n", "kuma-system", "meshtrafficpermission", "e2e-codec")
	})
	count := func(path, codec string) int {
		return metricValue(t, st.Meshguard.MetricsPort, fmt.Sprintf(`meshguard_admission_reviews_total{codec=%q,webhook=%q} `, codec, path))
	}
	type counts struct{ fastV, slowV, fastM, slowM int }
	read := func() counts {
		return counts{count("/validate", "meshguard"), count("/validate", "controller-runtime"),
			count("/mutate", "meshguard"), count("/mutate", "controller-runtime")}
	}
	before := read()
	for _, args := range [][]string{
		{"create", "--dry-run=server", "-f", "-"},
		{"apply", "--server-side", "--field-manager", "e2e-codec", "-f", "-"},
	} {
		if _, _, err := kubectl(t, mtp, args...); err != nil {
			t.Fatal(err)
		}
	}
	if _, _, err := kubectl(t, "", "label", "-n", "kuma-system", "meshtrafficpermission", "e2e-codec", "team=codec"); err != nil {
		t.Fatal(err)
	}
	_, stderr, err := kubectl(t, mtp, "apply", "--server-side", "--field-manager", "e2e-codec", "-f", "-")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr, "e2e-codec") {
		t.Errorf("re-apply: the RBAC preview warnings do not name the policy:\n%s", stderr)
	}
	if _, _, err := kubectl(t, "", "delete", "-n", "kuma-system", "meshtrafficpermission", "e2e-codec"); err != nil {
		t.Fatal(err)
	}
	after := read()
	t.Logf("AdmissionReviews read by meshguard's codec: /validate +%d, /mutate +%d; by controller-runtime's: /validate +%d, /mutate +%d",
		after.fastV-before.fastV, after.fastM-before.fastM, after.slowV-before.slowV, after.slowM-before.slowM)
	if after.fastV-before.fastV < 4 || after.fastM-before.fastM < 4 {
		t.Errorf("a dry run, a create and two updates reached meshguard's codec %d times on /validate and %d on /mutate, want at least 4 each",
			after.fastV-before.fastV, after.fastM-before.fastM)
	}
	if after.slowV != before.slowV || after.slowM != before.slowM {
		t.Errorf("the API server's reviews were handed to controller-runtime's codec: /validate +%d, /mutate +%d",
			after.slowV-before.slowV, after.slowM-before.slowM)
	}
}

// metricValue reads the sample of the metrics line starting with prefix (name
// and labels in the order the endpoint writes them, then a space) from
// meshguard's metrics endpoint; 0 when there is none yet.
func metricValue(t *testing.T, port int, prefix string) int {
	t.Helper()
	resp, err := http.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), prefix); ok {
			n, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
			if err != nil {
				t.Fatalf("metrics line %q: %v", sc.Text(), err)
			}
			return int(n)
		}
	}
	return 0
}
