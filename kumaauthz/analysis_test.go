package kumaauthz

import (
	"bytes"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/rules"
)

func codes(t *testing.T, yamlDocs string) []string {
	t.Helper()
	var out []string
	for _, f := range AnalyzePolicies(policiesFromYAML(t, yamlDocs), "kuma-system") {
		out = append(out, f.Origin+" "+f.BadValue.(string)+" "+f.Field)
	}
	sort.Strings(out)
	return out
}

// The catalogue examples of the analysis codes are executable: each bad example
// gives exactly its code, each good example gives nothing.
func TestCatalogueExamples(t *testing.T) {
	for _, code := range []string{CodeDeadItem, CodeDenyAll, CodeAllowAll} {
		r, ok := rules.Lookup(code)
		if !ok {
			t.Errorf("%s is not in rules/catalogue.yaml", code)
			continue
		}
		t.Run(r.Code, func(t *testing.T) {
			if r.Severity != rules.SeverityWarning {
				t.Errorf("%s is a %s in the catalogue; the analysis reports warnings", r.Code, r.Severity)
			}
			bad := codes(t, r.Bad)
			if len(bad) != 1 || !strings.HasPrefix(bad[0], r.Code+" ") {
				t.Errorf("bad example gives %v, want exactly %s", bad, r.Code)
			}
			if good := codes(t, r.Good); len(good) != 0 {
				t.Errorf("good example gives %v", good)
			}
		})
	}
}

// analyzeCase is policies and the findings Analyze should report for them.
type analyzeCase struct {
	name string
	yaml string
	want []string
}

// analyzeCases lists TestAnalyze's cases; the JSON equality tests render them too.
func analyzeCases() []analyzeCase {
	return []analyzeCase{
		{"dead item shadowed across policies", seed000YAML + `---
kind: MeshTrafficPermission
metadata: {name: late, namespace: kuma-system}
spec:
  targetRef: {kind: MeshService, name: backend}
  from:
    - targetRef: {kind: MeshSubset, tags: {env: dev}}
      default: {action: Deny}
`, []string{
			// Sorted by the later seeds, global-2 comes before global, whose Mesh DENY
			// then covers it; "late" sorts before "backend" (a smaller name is more
			// specific), so backend's env=dev ALLOW covers late's DENY. The
			// mesh-wide group denies every client, but backend's policy opens its
			// proxies: a deny-by-default baseline, not MG202.
			"MG201 kuma-system/global-2 spec.from[0]",
			"MG201 kuma-system/late spec.from[0]",
		}},
		{"dead item in the same policy", `kind: MeshTrafficPermission
metadata: {name: p, namespace: kuma-system}
spec:
  targetRef: {kind: MeshService, name: backend}
  from:
    - targetRef: {kind: MeshServiceSubset, name: web, tags: {version: v1}}
      default: {action: Allow}
    - targetRef: {kind: MeshService, name: web}
      default: {action: Deny}
    - targetRef: {kind: MeshSubset, tags: {env: dev}}
      default: {action: Allow}
`, []string{"MG201 kuma-system/p spec.from[0]"}},
		{"deny all via later policy", `kind: MeshTrafficPermission
metadata: {name: z-wide, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from:
    - targetRef: {kind: MeshService, name: web}
      default: {action: Allow}
---
kind: MeshTrafficPermission
metadata: {name: a-lockdown, namespace: kuma-system}
spec:
  targetRef: {kind: Mesh}
  from:
    - targetRef: {kind: Mesh}
      default: {action: Deny}
`, []string{"MG201 kuma-system/z-wide spec.from[0]", "MG202 kuma-system/a-lockdown spec.from"}},
		{"allow-all in namespace is not mesh level", `kind: MeshTrafficPermission
metadata: {name: p, namespace: team-a}
spec:
  targetRef: {kind: Mesh}
  from:
    - targetRef: {kind: Mesh}
      default: {action: Allow}
`, nil},
		{"allow-all with shadow deny is still allow-all", `kind: MeshTrafficPermission
metadata: {name: p, namespace: kuma-system}
spec:
  from:
    - targetRef: {kind: Mesh}
      default: {action: AllowWithShadowDeny}
`, []string{"MG203 kuma-system/p spec.from[0]"}},
		{"matcher: allow covered by deny", `kind: MeshTrafficPermission
metadata: {name: p, namespace: kuma-system}
spec:
  default:
    deny:
      - spiffeId: {type: Prefix, value: "spiffe://td/ns/a"}
    allow:
      - spiffeId: {type: Exact, value: "spiffe://td/ns/a/sa/x"}
`, []string{"MG201 kuma-system/p spec.default.allow[0]", "MG202 kuma-system/p spec"}},
		{"matcher: allow without condition matches nothing (Kuma skips it)", `kind: MeshTrafficPermission
metadata: {name: p, namespace: kuma-system}
spec:
  default:
    allow:
      - {}
`, []string{"MG201 kuma-system/p spec.default.allow[0]", "MG202 kuma-system/p spec"}},
		{"matcher: a deny by spiffeID covers an allow with that spiffeID and an sni", `kind: MeshTrafficPermission
metadata: {name: p, namespace: kuma-system}
spec:
  rules:
    - default:
        deny:
          - spiffeID: {type: Prefix, value: "spiffe://td/ns/a"}
        allow:
          - spiffeID: {type: Exact, value: "spiffe://td/ns/a/sa/x"}
            sni: {type: Exact, value: a.svc}
          - sni: {type: Exact, value: a.svc}
`, []string{"MG201 kuma-system/p spec.rules[0].default.allow[0]"}},
		{"matcher: a deny by sni covers only that sni", `kind: MeshTrafficPermission
metadata: {name: p, namespace: kuma-system}
spec:
  rules:
    - default:
        deny:
          - sni: {type: Exact, value: a.svc}
        allow:
          - spiffeID: {type: Exact, value: "spiffe://td/ns/a/sa/x"}
            sni: {type: Exact, value: a.svc}
          - spiffeID: {type: Exact, value: "spiffe://td/ns/a/sa/x"}
            sni: {type: Exact, value: b.svc}
          - spiffeID: {type: Exact, value: "spiffe://td/ns/a/sa/x"}
`, []string{"MG201 kuma-system/p spec.rules[0].default.allow[0]"}},
	}
}

func TestAnalyze(t *testing.T) {
	for _, tt := range analyzeCases() {
		t.Run(tt.name, func(t *testing.T) {
			got := codes(t, tt.yaml)
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("findings (-want +got):\n%s", d)
			}
		})
	}
}

// seed001StoriesYAML is the the SPIFFE-matches MADR example of the preview golden files: an
// operator's deny/shadow/allow matchers and an owner's HTTP conditions.
const seed001StoriesYAML = operator + `spec:
  default:
    deny:
      - spiffeId: {type: Exact, value: "spiffe://trust-domain.mesh/ns/default/sa/api-gateway"}
    allowWithShadowDeny:
      - spiffeId: {type: Prefix, value: "spiffe://trust-domain.mesh/ns/legacy"}
    allow:
      - spiffeId: {type: Prefix, value: "spiffe://trust-domain.mesh/ns/observability"}
---
` + owner + "spec:\n" + backendDP + `  default:
    allow:
      - method: GET
      - method: POST
        spiffeId: {type: Exact, value: "spiffe://trust-domain.mesh/ns/default/sa/writer-1"}
`

// kuma214SNIYAML is Kuma 2.14's rules form with sni matchers: an operator's mesh-wide
// deny by SPIFFE ID, and an owner who admits clients by SNI alone and by SPIFFE ID
// and SNI together (Kuma's validator test entries "sni-only allow" and "spiffeID and
// sni combined in the same match").
const kuma214SNIYAML = operator + `spec:
  targetRef: {kind: Mesh}
  rules:
    - default:
        deny:
          - spiffeID: {type: Exact, value: "spiffe://trust-domain.mesh/ns/default/sa/legacy"}
---
` + owner + "spec:\n" + backendDP + `  rules:
    - default:
        allow:
          - sni: {type: Exact, value: sni.extsvc.default.zone-1.aws-aurora.8443}
          - spiffeID: {type: Exact, value: "spiffe://trust-domain.mesh/ns/backend-ns/sa/backend"}
            sni: {type: Exact, value: backend.backend-ns.svc.cluster.local}
`

func TestPreviewGolden(t *testing.T) {
	cases := map[string]string{"seed000_policies": seed000YAML, "seed001_stories": seed001StoriesYAML, "kuma214_sni": kuma214SNIYAML}
	for name, docs := range cases {
		for _, form := range []Form{FormCompact, FormExpanded} {
			t.Run(name+"_"+string(form), func(t *testing.T) {
				pvs, err := BuildPreviews(policiesFromYAML(t, docs), Options{Form: form})
				if err != nil {
					t.Fatal(err)
				}
				var j, y bytes.Buffer
				if err := RenderJSON(&j, pvs); err != nil {
					t.Fatal(err)
				}
				if err := RenderYAML(&y, pvs); err != nil {
					t.Fatal(err)
				}
				golden(t, "preview_"+name+"_"+string(form)+".json", j.Bytes())
				golden(t, "preview_"+name+"_"+string(form)+".yaml", y.Bytes())
				var sum []string
				for _, pv := range pvs {
					lines := Summary(pv)
					if len(lines) > 5 {
						t.Errorf("summary has %d lines", len(lines))
					}
					for _, l := range lines {
						if len(l) > 120 || strings.ContainsAny(l, "\r\n") {
							t.Errorf("summary line too long or multi-line: %q", l)
						}
					}
					sum = append(sum, lines...)
				}
				golden(t, "summary_"+name+"_"+string(form)+".txt", []byte(strings.Join(sum, "\n")+"\n"))
			})
		}
	}
}

func TestRenderJSONShape(t *testing.T) {
	pvs, err := BuildPreviews(policiesFromYAML(t, seed000YAML), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := RenderJSON(&b, pvs); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, key := range []string{`"previews": [`, `"target": {`, `"scope": "`, `"policies": [`, `"items": [`, `"form": "compact"`, `"rbac": {`, `"statPrefix"`} {
		if !strings.Contains(s, key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
	var empty bytes.Buffer
	if err := RenderJSON(&empty, nil); err != nil || strings.TrimSpace(empty.String()) != `{
  "previews": []
}` {
		t.Errorf("empty previews: %q %v", empty.String(), err)
	}
}
