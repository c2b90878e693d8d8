package charts_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	rbacv1 "k8s.io/api/rbac/v1"
)

// TestReleaseDetectionRoles: serve reads each mesh's control-plane version at start
// (docs/config.md); the chart lets it, and nothing more: a Role per mesh in that
// mesh's control-plane namespace with `get` on exactly the objects read, by name
// (Kuma: Deployment kuma-control-plane in systemNamespace; Linkerd: ConfigMap
// linkerd-config and Deployment linkerd-destination in namespace linkerd), bound to
// the webhook's ServiceAccount and, with the audit on, the audit's. A Role needs its
// namespace to exist, so both are auto by default: rendered when Helm's lookup finds
// the namespace, which `helm template` (as here, no cluster) never does; e2e renders
// the chart against the real API server, where kuma-system exists. true renders it
// always, enabled false none.
func TestReleaseDetectionRoles(t *testing.T) {
	rule := func(group, resource, name string) rbacv1.PolicyRule {
		return rbacv1.PolicyRule{APIGroups: []string{group}, Resources: []string{resource}, ResourceNames: []string{name}, Verbs: []string{"get"}}
	}
	kuma := []rbacv1.PolicyRule{rule("apps", "deployments", "kuma-control-plane")}
	linkerd := []rbacv1.PolicyRule{rule("", "configmaps", "linkerd-config"), rule("apps", "deployments", "linkerd-destination")}
	for _, c := range []struct {
		name  string
		vals  map[string]any
		roles map[string][]rbacv1.PolicyRule // Role name → rules
		ns    map[string]string              // Role name → namespace
		audit bool
	}{
		{"default: auto, and no cluster to look in", nil, nil, nil, false},
		{"kuma on", map[string]any{"releaseDetection": map[string]any{"kuma": true}},
			map[string][]rbacv1.PolicyRule{"meshguard-detect-kuma": kuma}, map[string]string{"meshguard-detect-kuma": "kuma-system"}, false},
		{"systemNamespace followed", map[string]any{"systemNamespace": "mesh-system", "releaseDetection": map[string]any{"kuma": true}},
			map[string][]rbacv1.PolicyRule{"meshguard-detect-kuma": kuma}, map[string]string{"meshguard-detect-kuma": "mesh-system"}, false},
		{"linkerd on, kuma off", map[string]any{"releaseDetection": map[string]any{"kuma": false, "linkerd": true}},
			map[string][]rbacv1.PolicyRule{"meshguard-detect-linkerd": linkerd}, map[string]string{"meshguard-detect-linkerd": "linkerd"}, false},
		{"both, with the audit", map[string]any{"releaseDetection": map[string]any{"kuma": true, "linkerd": true}, "audit": map[string]any{"enabled": true}},
			map[string][]rbacv1.PolicyRule{"meshguard-detect-kuma": kuma, "meshguard-detect-linkerd": linkerd},
			map[string]string{"meshguard-detect-kuma": "kuma-system", "meshguard-detect-linkerd": "linkerd"}, true},
		{"off", map[string]any{"releaseDetection": map[string]any{"enabled": false, "kuma": true, "linkerd": true}}, nil, nil, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			m := mustRender(t, c.vals)
			got := map[string][]rbacv1.PolicyRule{}
			for _, k := range m.keys() {
				name, ok := strings.CutPrefix(k, "Role/meshguard-detect-")
				if !ok {
					continue
				}
				r := m.objs[k].(*rbacv1.Role)
				got[r.Name] = r.Rules
				if r.Namespace != c.ns[r.Name] {
					t.Errorf("Role %s in namespace %q, want %q", r.Name, r.Namespace, c.ns[r.Name])
				}
				b := get[*rbacv1.RoleBinding](t, m, "RoleBinding/meshguard-detect-"+name)
				if b.Namespace != r.Namespace || b.RoleRef.Kind != "Role" || b.RoleRef.Name != r.Name {
					t.Errorf("RoleBinding %s/%s binds %+v, want Role %s/%s", b.Namespace, b.Name, b.RoleRef, r.Namespace, r.Name)
				}
				var sas []string
				for _, s := range b.Subjects {
					if s.Kind != "ServiceAccount" || s.Namespace != namespace {
						t.Errorf("RoleBinding %s: subject %+v, want a ServiceAccount of %s", b.Name, s, namespace)
					}
					sas = append(sas, s.Name)
				}
				want := []string{"meshguard"}
				if c.audit {
					want = append(want, "meshguard-audit")
				}
				if !slices.Equal(sas, want) {
					t.Errorf("RoleBinding %s binds %v, want %v", b.Name, sas, want)
				}
			}
			if len(c.roles) == 0 {
				c.roles = map[string][]rbacv1.PolicyRule{}
			}
			if diff := cmp.Diff(c.roles, got); diff != "" {
				t.Errorf("detection Roles (-want +got):\n%s", diff)
			}
		})
	}
}

// TestReleaseDetectionSchema: values.schema.json knows releaseDetection and
// refuses what the template would misread.
func TestReleaseDetectionSchema(t *testing.T) {
	for _, bad := range []map[string]any{
		{"releaseDetection": map[string]any{"linkerd": "yes"}},
		{"releaseDetection": map[string]any{"linkerdNamespace": "mesh"}},
		{"releaseDetection": true},
	} {
		if _, err := renderChart(t, bad, namespace); err == nil {
			t.Errorf("values %v accepted", bad)
		}
	}
	for _, good := range []any{"auto", true, false} {
		vals := map[string]any{"releaseDetection": map[string]any{"kuma": good, "linkerd": good}}
		if _, err := renderChart(t, vals, namespace); err != nil {
			t.Errorf("values %v refused: %v", vals, err)
		}
	}
}
