package charts_test

import (
	"slices"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/refs"
)

func deployment(t *testing.T, m *manifests) *appsv1.Deployment {
	t.Helper()
	return get[*appsv1.Deployment](t, m, "Deployment/meshguard")
}

func TestDeploymentDefaults(t *testing.T) {
	m := mustRender(t, nil)
	d := deployment(t, m)
	if *d.Spec.Replicas != 2 {
		t.Errorf("replicas = %d, want 2", *d.Spec.Replicas)
	}
	ps := d.Spec.Template.Spec
	if len(ps.Containers) != 1 {
		t.Fatalf("containers = %d", len(ps.Containers))
	}
	c := ps.Containers[0]

	// Pod and container security: non-root, read-only, no privileges, seccomp.
	psc := ps.SecurityContext
	if psc == nil || !*psc.RunAsNonRoot || *psc.RunAsUser != 65532 || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("pod securityContext = %+v", psc)
	}
	sc := c.SecurityContext
	if sc == nil || !*sc.RunAsNonRoot || *sc.RunAsUser != 65532 || !*sc.ReadOnlyRootFilesystem || *sc.AllowPrivilegeEscalation ||
		!slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) != 0 ||
		sc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault || (sc.Privileged != nil && *sc.Privileged) {
		t.Errorf("container securityContext = %+v", sc)
	}

	// Probes on the health port, ports as documented.
	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if ports["webhook"] != 9443 || ports["metrics"] != 8080 || ports["health"] != 8081 {
		t.Errorf("ports = %v", ports)
	}
	for name, p := range map[string]*corev1.Probe{"liveness": c.LivenessProbe, "readiness": c.ReadinessProbe} {
		want := map[string]string{"liveness": "/healthz", "readiness": "/readyz"}[name]
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != want || p.HTTPGet.Port.String() != "health" {
			t.Errorf("%s probe = %+v", name, p)
		}
	}

	// POD_NAMESPACE from the downward API: the rotator's Secret namespace.
	if len(c.Env) != 1 || c.Env[0].Name != "POD_NAMESPACE" || c.Env[0].ValueFrom.FieldRef.FieldPath != "metadata.namespace" {
		t.Errorf("env = %+v", c.Env)
	}

	// Args: the serve flags, with names matching the rendered objects.
	args := c.Args
	for _, want := range []string{"serve", "--mode=standalone", "--system-namespace=kuma-system", "--default-mesh=default",
		"--sugar=expand", "--log-level=info", "--cert-dir=/certs", "--secret-name=meshguard-webhook-cert",
		"--service-name=meshguard-webhook", "--mutating-webhook-name=meshguard-mutating",
		"--validating-webhook-name=meshguard-validating",
		"--preview-max-items=2000", "--memory-limit-ratio=0.9"} {
		if !slices.Contains(args, want) {
			t.Errorf("args lack %q: %v", want, args)
		}
	}
	// The built-in trusted users follow --system-namespace; no list by default.
	if slices.Contains(args, "--disable-cert-rotation") || slices.ContainsFunc(args, func(a string) bool {
		return strings.HasPrefix(a, "--zone") || strings.HasPrefix(a, "--privileged-users")
	}) {
		t.Errorf("unexpected args: %v", args)
	}
	for _, k := range []string{"Service/meshguard-webhook", "Secret/meshguard-webhook-cert"} {
		if !m.has(k) {
			t.Errorf("args name %s, which is not rendered", k)
		}
	}

	// The cert Secret mounted read-only at --cert-dir.
	if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/certs" || !c.VolumeMounts[0].ReadOnly {
		t.Errorf("volumeMounts = %+v", c.VolumeMounts)
	}
	if v := ps.Volumes[0]; v.Secret == nil || v.Secret.SecretName != "meshguard-webhook-cert" {
		t.Errorf("volume = %+v", v)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("resources = %+v", c.Resources)
	}

	// Spread, shutdown, NetworkPolicy and resources: hardening_test.go.

	svc := get[*corev1.Service](t, m, "Service/meshguard-webhook")
	if p := svc.Spec.Ports[0]; p.Port != 443 || p.TargetPort.String() != "webhook" {
		t.Errorf("service port = %+v", p)
	}
	if !slices.Equal(mapKeys(svc.Spec.Selector), mapKeys(d.Spec.Selector.MatchLabels)) {
		t.Errorf("service selector %v != deployment selector %v", svc.Spec.Selector, d.Spec.Selector.MatchLabels)
	}

	pdb := get[*policyv1.PodDisruptionBudget](t, m, "PodDisruptionBudget/meshguard")
	if pdb.Spec.MinAvailable == nil || pdb.Spec.MinAvailable.IntValue() != 1 {
		t.Errorf("pdb minAvailable = %v", pdb.Spec.MinAvailable)
	}

	sec := get[*corev1.Secret](t, m, "Secret/meshguard-webhook-cert")
	if sec.Type != corev1.SecretTypeTLS || sec.Annotations["helm.sh/resource-policy"] != "keep" {
		t.Errorf("secret type %s annotations %v", sec.Type, sec.Annotations)
	}
	for _, k := range []string{"tls.crt", "tls.key", "ca.crt"} {
		if v, ok := sec.Data[k]; !ok || len(v) != 0 {
			t.Errorf("secret %s = %q, want present and empty", k, v)
		}
	}
}

func mapKeys(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

func TestDeploymentValues(t *testing.T) {
	m := mustRender(t, map[string]any{
		"replicaCount": 3, "mode": "zone", "zone": "zone-1", "sugar": "keep", "logLevel": "debug",
		"systemNamespace": "mesh-system", "defaultMesh": "prod", "privilegedUsers": []any{"system:serviceaccount:mesh-system:kong-mesh-control-plane"},
		"privilegedGroups": []any{"system:masters", "mesh-admins"},
		"image":            map[string]any{"repository": "example.com/meshguard", "tag": "v9", "pullPolicy": "Always"},
		"nodeSelector":     map[string]any{"kubernetes.io/os": "linux"},
		"tolerations":      []any{map[string]any{"key": "dedicated", "operator": "Exists"}},
	})
	d := deployment(t, m)
	c := d.Spec.Template.Spec.Containers[0]
	for _, want := range []string{"--mode=zone", "--zone=zone-1", "--sugar=keep", "--log-level=debug",
		"--system-namespace=mesh-system", "--default-mesh=prod", "--privileged-users=system:serviceaccount:mesh-system:kong-mesh-control-plane",
		"--privileged-groups=system:masters,mesh-admins"} {
		if !slices.Contains(c.Args, want) {
			t.Errorf("args lack %q: %v", want, c.Args)
		}
	}
	if *d.Spec.Replicas != 3 || c.Image != "example.com/meshguard:v9" || c.ImagePullPolicy != corev1.PullAlways {
		t.Errorf("replicas %d image %s policy %s", *d.Spec.Replicas, c.Image, c.ImagePullPolicy)
	}
	if d.Spec.Template.Spec.NodeSelector["kubernetes.io/os"] != "linux" || len(d.Spec.Template.Spec.Tolerations) != 1 {
		t.Errorf("scheduling values not applied: %+v", d.Spec.Template.Spec)
	}

	// One replica: no PDB, which would block every drain.
	if m := mustRender(t, map[string]any{"replicaCount": 1}); m.has("PodDisruptionBudget/meshguard") {
		t.Error("PDB rendered for a single replica")
	}
}

// TestRBACLeastPrivilege: no wildcards, Secrets only in the release namespace and
// only the cert Secret by name, webhook configurations only the chart's own by name,
// for every verb including list and watch.
func TestRBACLeastPrivilege(t *testing.T) {
	m := mustRender(t, nil)
	cr := get[*rbacv1.ClusterRole](t, m, "ClusterRole/meshguard")
	role := get[*rbacv1.Role](t, m, "Role/meshguard")
	if role.Namespace != namespace {
		t.Errorf("role namespace = %q", role.Namespace)
	}
	check := func(scope string, rules []rbacv1.PolicyRule) map[string][]string {
		granted := map[string][]string{} // "group/resource:verb" -> names ("" = any)
		for _, r := range rules {
			for _, s := range slices.Concat(r.APIGroups, r.Resources, r.Verbs, r.ResourceNames) {
				if strings.Contains(s, "*") {
					t.Errorf("%s: wildcard in %+v", scope, r)
				}
			}
			if len(r.NonResourceURLs) != 0 {
				t.Errorf("%s: nonResourceURLs %v", scope, r.NonResourceURLs)
			}
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					for _, v := range r.Verbs {
						k := g + "/" + res + ":" + v
						if len(r.ResourceNames) == 0 {
							granted[k] = append(granted[k], "")
						}
						granted[k] = append(granted[k], r.ResourceNames...)
					}
				}
			}
		}
		return granted
	}
	cg, rg := check("ClusterRole", cr.Rules), check("Role", role.Rules)

	// The informer caches: read-only access to exactly the kinds the registry marks
	// Watched (api.TestWatched pins that list), generated into _rules.tpl.
	wantCluster := map[string][]string{
		"admissionregistration.k8s.io/mutatingwebhookconfigurations:get":      {"meshguard-mutating"},
		"admissionregistration.k8s.io/mutatingwebhookconfigurations:update":   {"meshguard-mutating"},
		"admissionregistration.k8s.io/mutatingwebhookconfigurations:list":     {"meshguard-mutating"},
		"admissionregistration.k8s.io/mutatingwebhookconfigurations:watch":    {"meshguard-mutating"},
		"admissionregistration.k8s.io/validatingwebhookconfigurations:get":    {"meshguard-validating"},
		"admissionregistration.k8s.io/validatingwebhookconfigurations:update": {"meshguard-validating"},
		"admissionregistration.k8s.io/validatingwebhookconfigurations:list":   {"meshguard-validating"},
		"admissionregistration.k8s.io/validatingwebhookconfigurations:watch":  {"meshguard-validating"},
		// Metrics over HTTPS: every scrape's token reviewed, its GET authorized.
		"authentication.k8s.io/tokenreviews:create":        {""},
		"authorization.k8s.io/subjectaccessreviews:create": {""},
		// --schema-check auto: CRDs read, never written.
		"apiextensions.k8s.io/customresourcedefinitions:get":   {""},
		"apiextensions.k8s.io/customresourcedefinitions:list":  {""},
		"apiextensions.k8s.io/customresourcedefinitions:watch": {""},
	}
	for _, k := range api.DefaultRegistry().Watched() {
		for _, verb := range []string{"get", "list", "watch"} {
			wantCluster[k.Group+"/"+k.Plural+":"+verb] = []string{""}
		}
	}
	// And the kinds references name, which the webhook caches for MG401-MG449.
	for _, w := range refs.WatchedKinds(api.DefaultRegistry()) {
		for _, verb := range []string{"get", "list", "watch"} {
			wantCluster[w.GVK.Group+"/"+w.Plural+":"+verb] = []string{""}
		}
	}
	equalGrants(t, "ClusterRole", cg, wantCluster)
	for k := range cg {
		if strings.HasPrefix(k, "/secrets") {
			t.Errorf("ClusterRole grants %s: no cluster-wide Secret access", k)
		}
	}
	wantRole := map[string][]string{
		"/secrets:get": {"meshguard-webhook-cert"}, "/secrets:update": {"meshguard-webhook-cert"},
		"/secrets:list": {"meshguard-webhook-cert"}, "/secrets:watch": {"meshguard-webhook-cert"},
		"/events:create": {""}, "/events:patch": {""},
		"events.k8s.io/events:create": {""}, "events.k8s.io/events:patch": {""},
	}
	equalGrants(t, "Role", rg, wantRole)
	// Every verb on a Secret or a webhook configuration names the chart's own: the
	// rotator lists and watches them with metadata.name field selectors.
	for scope, g := range map[string]map[string][]string{"Role": rg, "ClusterRole": cg} {
		for k, names := range g {
			if (strings.Contains(k, "secrets") || strings.Contains(k, "webhookconfigurations")) && (len(names) == 0 || slices.Contains(names, "")) {
				t.Errorf("%s: %s not restricted by resourceNames", scope, k)
			}
		}
	}

	for _, k := range []string{"ClusterRoleBinding/meshguard", "RoleBinding/meshguard"} {
		if !m.has(k) {
			t.Errorf("%s missing", k)
		}
	}
	crb := get[*rbacv1.ClusterRoleBinding](t, m, "ClusterRoleBinding/meshguard")
	if s := crb.Subjects[0]; s.Kind != "ServiceAccount" || s.Name != "meshguard" || s.Namespace != namespace {
		t.Errorf("subject = %+v", s)
	}
}

func equalGrants(t *testing.T, scope string, got, want map[string][]string) {
	t.Helper()
	for k, w := range want {
		if !slices.Equal(got[k], w) {
			t.Errorf("%s %s: names %q, want %q", scope, k, got[k], w)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s grants %s (names %q), which meshguard does not need", scope, k, got[k])
		}
	}
}

// assertNoRotatorRBAC: without cert rotation meshguard writes nothing.
func assertNoRotatorRBAC(t *testing.T, m *manifests) {
	t.Helper()
	for _, key := range []string{"ClusterRole/meshguard", "Role/meshguard"} {
		var rules []rbacv1.PolicyRule
		if o, ok := m.objs[key].(*rbacv1.ClusterRole); ok {
			rules = o.Rules
		} else {
			rules = get[*rbacv1.Role](t, m, key).Rules
		}
		for _, r := range rules {
			if slices.Contains(r.Verbs, "update") || slices.Contains(r.Resources, "secrets") {
				t.Errorf("%s keeps rotator rule %+v", key, r)
			}
		}
	}
}
