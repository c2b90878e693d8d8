package charts_test

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"

	"github.com/meshguard/meshguard/schema"
)

// TestKumaVersionEnumIsTheEmbeddedCRDs: the chart offers exactly the Kuma versions
// whose CRDs the binary embeds, so a value the schema admits never fails start-up.
func TestKumaVersionEnumIsTheEmbeddedCRDs(t *testing.T) {
	raw, err := os.ReadFile("meshguard/values.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties struct {
			KumaVersion struct {
				Enum []string `json:"enum"`
			} `json:"kumaVersion"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if got := s.Properties.KumaVersion.Enum; !slices.Equal(got, schema.KumaVersions()) {
		t.Errorf("values.schema.json kumaVersion enum %v; the binary embeds %v", got, schema.KumaVersions())
	}
}

// TestKumaVersionPreview: kumaVersion "3.0-preview" (Kuma's main branch at the
// pinned commit) passes the schema and reaches the webhook's arguments.
func TestKumaVersionPreview(t *testing.T) {
	m, err := renderChart(t, map[string]any{"kumaVersion": "3.0-preview"}, namespace)
	if err != nil {
		t.Fatal(err)
	}
	if args := deployment(t, m).Spec.Template.Spec.Containers[0].Args; !slices.Contains(args, "--kuma-version=3.0-preview") {
		t.Errorf("args lack --kuma-version=3.0-preview: %q", args)
	}
}

// TestLinkerdVersionEnumIsTheEmbeddedCRDs: likewise for the Linkerd releases.
func TestLinkerdVersionEnumIsTheEmbeddedCRDs(t *testing.T) {
	raw, err := os.ReadFile("meshguard/values.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	var s struct {
		Properties struct {
			LinkerdVersion struct {
				Enum []string `json:"enum"`
			} `json:"linkerdVersion"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(raw, &s); err != nil {
		t.Fatal(err)
	}
	if got := s.Properties.LinkerdVersion.Enum; !slices.Equal(got, schema.LinkerdVersions()) {
		t.Errorf("values.schema.json linkerdVersion enum %v; the binary embeds %v", got, schema.LinkerdVersions())
	}
}

// TestSchemaRejects: values.schema.json (and the template guards behind it) turn
// away values that `meshguard serve` would refuse at start-up, or worse, accept.
func TestSchemaRejects(t *testing.T) {
	for _, c := range []struct {
		name string
		vals map[string]any
		ns   string
		want string // substring of the error
	}{
		{"unknown mode", map[string]any{"mode": "mars"}, "", "mode"},
		{"zone mode without zone", map[string]any{"mode": "zone"}, "", "zone"},
		{"zone outside zone mode", map[string]any{"mode": "global", "zone": "z1"}, "", "zone"},
		{"sugar", map[string]any{"sugar": "sprinkle"}, "", "sugar"},
		{"kumaVersion meshguard has no CRDs of", map[string]any{"kumaVersion": "1.0"}, "", "kumaVersion"},
		{"linkerdVersion meshguard has no CRDs of", map[string]any{"linkerdVersion": "stable-2.14.10"}, "", "linkerdVersion"},
		{"failurePolicy", map[string]any{"failurePolicy": map[string]any{"mutating": "Maybe"}}, "", "mutating"},
		{"logLevel", map[string]any{"logLevel": "trace"}, "", "logLevel"},
		{"previewForm", map[string]any{"previewForm": "pretty"}, "", "previewForm"},
		{"negative previewMaxItems", map[string]any{"previewMaxItems": -1}, "", "previewMaxItems"},
		{"previewMaxItems as string", map[string]any{"previewMaxItems": "2000"}, "", "previewMaxItems"},
		{"memoryLimitRatio over 1", map[string]any{"memoryLimitRatio": 1.5}, "", "memoryLimitRatio"},
		{"linkerd.serverConflicts", map[string]any{"linkerd": map[string]any{"serverConflicts": "block"}}, "", "serverConflicts"},
		{"linkerd.defaultInboundPolicy", map[string]any{"linkerd": map[string]any{"defaultInboundPolicy": "allow"}}, "", "defaultInboundPolicy"},
		{"linkerd.clusterNetworks as a list", map[string]any{"linkerd": map[string]any{"clusterNetworks": []any{"10.0.0.0/8"}}}, "", "clusterNetworks"},
		{"linkerd.clusterNetworks with spaces", map[string]any{"linkerd": map[string]any{"clusterNetworks": "10.0.0.0/8, 192.168.0.0/16"}}, "", "clusterNetworks"},
		{"linkerd.identityTrustDomain", map[string]any{"linkerd": map[string]any{"identityTrustDomain": "Cluster.Local"}}, "", "identityTrustDomain"},
		{"linkerd.annotationCheck.failurePolicy", map[string]any{"linkerd": map[string]any{"annotationCheck": map[string]any{"failurePolicy": "Maybe"}}}, "", "failurePolicy"},
		{"linkerd.annotationCheck.enabled", map[string]any{"linkerd": map[string]any{"annotationCheck": map[string]any{"enabled": "yes"}}}, "", "enabled"},
		{"linkerd.annotationCheck misspelt", map[string]any{"linkerd": map[string]any{"annotationCheck": map[string]any{"enable": false}}}, "", "enable"},
		{"timeout too long", map[string]any{"timeoutSeconds": 6}, "", "timeoutSeconds"},
		{"nodeSpread", map[string]any{"nodeSpread": "always"}, "", "nodeSpread"},
		{"networkPolicy CIDR", map[string]any{"networkPolicy": map[string]any{"enabled": true, "apiServerCIDRs": []any{"10.0.0.1"}}}, "", "apiServerCIDRs"},
		{"metrics on the webhook port", map[string]any{"metrics": map[string]any{"port": 9443}}, "", "port"},
		{"negative preStop sleep", map[string]any{"shutdown": map[string]any{"preStopSleepSeconds": -1, "timeoutSeconds": 15}}, "", "preStopSleepSeconds"},
		{"timeout as string", map[string]any{"timeoutSeconds": "5"}, "", "timeoutSeconds"},
		{"zero replicas", map[string]any{"replicaCount": 0}, "", "replicaCount"},
		{"misspelt key", map[string]any{"replicas": 3}, "", "replicas"},
		{"plain http url", map[string]any{"webhook": map[string]any{"url": "http://127.0.0.1:9443"}}, "", "url"},
		{"no deployment, no url", map[string]any{"deployment": map[string]any{"enabled": false}}, "", "url"},
		{"no rotation, no secret", map[string]any{"certRotation": map[string]any{"enabled": false}}, "", "certSecretName"},
		{"bad inject-ca-from", map[string]any{"certRotation": map[string]any{"enabled": false, "certSecretName": "s",
			"certManager": map[string]any{"injectCAFrom": "just-a-name"}}}, "", "injectCAFrom"},
		{"selector operator", map[string]any{"objectSelector": map[string]any{"matchExpressions": []any{
			map[string]any{"key": "a", "operator": "Like"}}}}, "", "operator"},
		{"installed in the system namespace", nil, "kuma-system", "own namespace"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ns := c.ns
			if ns == "" {
				ns = namespace
			}
			_, err := renderChart(t, c.vals, ns)
			if err == nil {
				t.Fatalf("values %v rendered; want an error mentioning %q", c.vals, c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error does not mention %q:\n%v", c.want, err)
			}
		})
	}
}

func TestSchemaAccepts(t *testing.T) {
	for name, vals := range map[string]map[string]any{
		"zone":   {"mode": "zone", "zone": "zone-1"},
		"global": {"mode": "global"},
		"https url with prefix": {"webhook": map[string]any{"url": "https://host.docker.internal:9443/meshguard"},
			"deployment": map[string]any{"enabled": false}},
		"no rotation": {"certRotation": map[string]any{"enabled": false, "certSecretName": "tls"}},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := renderChart(t, vals, namespace); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// TestHelmLint runs `helm lint --strict` through the SDK, so `make test` covers
// it without a helm binary (`make chart-lint` runs the binary).
func TestHelmLint(t *testing.T) {
	kv, err := chartutil.ParseKubeVersion("v1.33.0")
	if err != nil {
		t.Fatal(err)
	}
	for name, vals := range map[string]map[string]any{
		"defaults": nil,
		"url mode": {"webhook": map[string]any{"url": "https://127.0.0.1:9443"}, "deployment": map[string]any{"enabled": false}},
		"zone":     {"mode": "zone", "zone": "zone-1", "privilegedGroups": []any{"mesh-admins"}, "nodeSpread": "preferred"},
		"cert-manager": {"certRotation": map[string]any{"enabled": false, "certSecretName": "tls",
			"certManager": map[string]any{"injectCAFrom": "meshguard-system/serving"}}},
	} {
		t.Run(name, func(t *testing.T) {
			l := lint.AllWithKubeVersion(chartDir, vals, namespace, kv)
			for _, msg := range l.Messages {
				// --strict fails on warnings; INFO (e.g. "icon is recommended") passes.
				if msg.Severity >= support.WarningSev {
					t.Errorf("helm lint: %s", msg)
				} else {
					t.Logf("helm lint: %s", msg)
				}
			}
		})
	}
}
