package webhook

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/kumaauthz"
)

const meshIdentityAll = `apiVersion: kuma.io/v1alpha1
kind: MeshIdentity
metadata: {name: identity, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec:
  selector: {dataplane: {matchLabels: {}}}
  provider: {type: Bundled, bundled: {autogenerate: {enabled: true}}}`

const allowWeb = `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata: {name: allow-web, namespace: kuma-system, labels: {kuma.io/mesh: default}}
spec:
  targetRef: {kind: Mesh}
  from:
    - {targetRef: {kind: MeshService, name: web}, default: {action: Allow}}`

// TestAdmissionFollowsMeshIdentity: with a stored MeshIdentity selecting every
// proxy, the admission preview of a `from` policy compiles the deny-all matcher
// Kuma 2.14 programs (and names the MeshIdentity), and the widening check does
// not claim that the `from` Allow lets anyone in; without it, both answer as
// before.
func TestAdmissionFollowsMeshIdentity(t *testing.T) {
	obj := mustObj(t, allowWeb)
	index, err := IndexedPolicies(nil, "")
	if err != nil {
		t.Fatal(err)
	}
	cached := []unstructured.Unstructured{*mustObj(t, meshIdentityAll)}
	list := func(context.Context) ([]unstructured.Unstructured, bool) { return cached, true }
	for _, tt := range []struct {
		name       string
		identities IdentitySource
		matcher    bool
	}{
		{"no MeshIdentity", nil, false},
		{"a MeshIdentity for every proxy", StoredIdentities(list), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			preview, widening := NewPreviewAndWideningWithIdentities(index, LinkerdSource{}, kumaauthz.Options{Form: kumaauthz.FormCompact}, tt.identities)
			ctx := WithRequestScope(context.Background())
			_, annotation := preview(ctx, obj, nil)
			hasIdentity := strings.Contains(annotation, `"meshIdentity":"kuma-system/identity"`) && strings.Contains(annotation, `"form":"matcher"`)
			if hasIdentity != tt.matcher {
				t.Errorf("preview names the MeshIdentity and a matcher: %v, want %v\n%s", hasIdentity, tt.matcher, annotation)
			}
			lines := widenings(widening(ctx, obj, nil, nil))
			if widens := len(lines) > 0; widens == tt.matcher {
				t.Errorf("widening lines %q: want some only without the MeshIdentity", lines)
			}
		})
	}
}
