package validate

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/api"
)

// conformanceDir holds Kuma 2.14's own webhook verdicts (see its README and ../NOTICE.md).
const conformanceDir = "testdata/conformance/kuma-webhook-2.14"

// deliberate lists every case where meshguard's verdict differs from Kuma's
// validating webhook, with the reason (also in docs/conformance.md).
var deliberate = map[string]string{
	"cli-user_create_mtp.federated":   "we validate the object after our mutating stage, which sets kuma.io/origin: zone (Kuma's test runs its validator on the raw object)",
	"cli-user_create_mtlbs.federated": "same: mutation sets kuma.io/origin: zone before validation",
	"cli-user_delete_zone-mtp.global": "meshguard checks DELETE on a zone only; on global Kuma's own webhook keeps the zones' objects (docs/conformance.md)",
}

// deliberateIn are the deliberate differences of Kuma release version's goldens:
// deliberate, and for the 3.0 preview's goldens (docs/conformance.md) less two cases
// whose verdicts now agree for another reason (the policies have only 'from', which
// 3.0 drops, so meshguard refuses them too) and plus four verdicts of the cases the
// commit adds: a MeshTimeout UPDATE refused for the origin label meshguard's
// mutating stage sets, and the storage version migrator's three writes.
func deliberateIn(version string) map[string]string {
	if version != "3.0-preview" {
		return deliberate
	}
	out := map[string]string{}
	for k, v := range deliberate {
		out[k] = v
	}
	delete(out, "cli-user_create_mtp.federated")
	delete(out, "cli-user_create_mtlbs.federated")
	out["cli-user_update_mt-mesh-owner-ref.federated"] = "mutation sets kuma.io/origin: zone before validation, as for cli-user_create_mtp in 2.14"
	for _, mode := range []string{"federated", "global", "non-federated"} {
		out["migrator-user_update_mt-mesh-owner-ref-mismatch."+mode] = "Kuma exempts the storage version migrator's service account from the Mesh ownerReference rule; meshguard trusts only the control plane's"
	}
	return out
}

// TestKumaConformance holds meshguard's verdicts to Kuma's webhook verdicts of each
// release (2.14's goldens and 2.13's, the same cases at tag v2.13.10), under that
// release's --kuma-version, in the three control-plane modes; the deliberate
// differences are the same in both.
func TestKumaConformance(t *testing.T) {
	for _, r := range []struct{ version, dir string }{
		{"2.14", conformanceDir},
		{"2.13", "testdata/conformance/kuma-webhook-2.13"},
		{"3.0-preview", "testdata/conformance/kuma-webhook-3.0-preview"},
	} {
		t.Run(r.version, func(t *testing.T) { runWebhookConformance(t, r.version, r.dir) })
	}
}

// runWebhookConformance runs the webhook goldens in dir under Kuma release version.
func runWebhookConformance(t *testing.T, version, dir string) {
	inputs, _ := filepath.Glob(filepath.Join(dir, "*.input.yaml"))
	if len(inputs) == 0 {
		t.Fatalf("no conformance inputs under %s (the data is part of the repository: is the checkout complete?)", dir)
	}
	modes := map[string]api.Settings{
		"global":        settings(api.ModeGlobal, ""),
		"federated":     settings(api.ModeZone, "zone-1"),
		"non-federated": settings(api.ModeStandalone, ""),
	}
	for mode, s := range modes {
		s.KumaVersion = version
		modes[mode] = s
	}
	cases, agree := 0, 0
	defer func() { holdWebhookFigures(t, version, cases, agree) }()
	for _, in := range inputs {
		base := strings.TrimSuffix(filepath.Base(in), ".input.yaml")
		raw, err := os.ReadFile(in)
		if err != nil {
			t.Fatal(err)
		}
		header, doc, _ := strings.Cut(string(raw), "\n")
		user, op, ns := parseHeader(header)
		for mode, s := range modes {
			golden, err := os.ReadFile(filepath.Join(dir, base+"."+mode+".golden.yaml"))
			if err != nil {
				t.Fatal(err)
			}
			var resp struct {
				Allowed bool `json:"allowed"`
			}
			if err := yaml.Unmarshal(golden, &resp); err != nil {
				t.Fatal(err)
			}
			t.Run(base+"/"+mode, func(t *testing.T) {
				o := mustObj(t, doc)
				if o.GetNamespace() == "" {
					o.SetNamespace(ns)
				}
				req := api.Request{Operation: api.Operation(op), Privileged: user == "system:serviceaccount:kuma-system:kuma-control-plane"}
				if req.Operation == api.OpDelete {
					req.Old = o
				}
				kind := api.DefaultRegistry().Lookup(o.GroupVersionKind())
				res := pipeline(o, kind, s, req)
				if req.Operation == api.OpDelete {
					// The stored object, as the webhook reads it from oldObject.
					res = Result{Errors: Delete(o, kind, s, req)}
				}
				allowed := len(res.Errors) == 0
				cases++
				if allowed == resp.Allowed {
					agree++
				}
				reason, isDeliberate := deliberateIn(version)[base+"."+mode]
				switch {
				case isDeliberate && allowed == resp.Allowed:
					t.Errorf("listed as a deliberate difference (%s) but verdicts agree: allowed=%v", reason, allowed)
				case !isDeliberate && allowed != resp.Allowed:
					t.Errorf("kuma allowed=%v, meshguard allowed=%v; errors: %v", resp.Allowed, allowed, res.Errors)
				}
			})
		}
	}
}

func parseHeader(h string) (user, op, ns string) {
	h = strings.TrimPrefix(strings.TrimSpace(h), "#")
	for _, kv := range strings.Split(strings.TrimSpace(h), ",") {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "user":
			user = v
		case "operation":
			op = v
		case "namespace":
			ns = v
		}
	}
	return user, op, ns
}

// holdWebhookFigures fails t unless the releases × suites table of
// docs/conformance.md (release-suites markers) has Kuma release version's webhook
// row with these figures (lint's holdFigures does the same for the validator
// suites).
func holdWebhookFigures(t *testing.T, version string, cases, agree int) {
	t.Helper()
	raw, err := os.ReadFile("../docs/conformance.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(raw), "<!-- release-suites:begin -->")
	table, _, ok := strings.Cut(rest, "<!-- release-suites:end -->")
	if !ok {
		t.Fatal("docs/conformance.md has no release-suites markers")
	}
	want := fmt.Sprintf("%d | %d | %.2f%%", cases, agree, 100*float64(agree)/float64(cases))
	for _, line := range strings.Split(table, "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 7 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "Kuma "+version+" ") || strings.TrimSpace(cells[2]) != "webhook verdicts" {
			continue
		}
		if got := strings.TrimSpace(cells[3]) + " | " + strings.TrimSpace(cells[4]) + " | " + strings.TrimSpace(cells[5]); got != want {
			t.Errorf("docs/conformance.md (release-suites): Kuma %s webhook verdicts is %s, the suite measures %s", version, got, want)
		}
		return
	}
	t.Errorf("docs/conformance.md (release-suites) has no row for Kuma %s webhook verdicts (%s)", version, want)
}
