package compile

import "github.com/meshguard/meshguard/validate"

const catHead = `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata:
  name: backend-permissions
  namespace: kuma-system
  labels:
    kuma.io/mesh: default
spec:
  targetRef:
    kind: MeshService
    name: backend
  from:
`

// Catalogue lists the compile findings in code order, in validate's RuleDoc so
// every door lists both catalogues as one. The examples are executable: a test
// compiles each and expects exactly this verdict.
func Catalogue() []validate.RuleDoc {
	return []validate.RuleDoc{deadItemRule(), denyAllRule(), allowAllRule()}
}

// deadItemRule documents MG201: an item or matcher that never decides.
func deadItemRule() validate.RuleDoc {
	return validate.RuleDoc{
		Code: CodeDeadItem, Severity: validate.SeverityWarning,
		Summary: "a from item or allow matcher never decides: a later item (or a deny matcher) covers every client it matches",
		Bad: catHead + `    - targetRef:
        kind: MeshService
        name: web
      default:
        action: Deny
    - targetRef:
        kind: Mesh
      default:
        action: Allow
`,
		Good: catHead + `    - targetRef:
        kind: Mesh
      default:
        action: Allow
    - targetRef:
        kind: MeshService
        name: web
      default:
        action: Deny
`,
	}
}

// denyAllRule documents MG202: policies that deny every client.
func denyAllRule() validate.RuleDoc {
	return validate.RuleDoc{
		Code: CodeDenyAll, Severity: validate.SeverityWarning,
		Summary: "the merged policies deny every client of a group of proxies (no allow survives later denies), unless policies outside the linted set open them; a mesh- or namespace-wide deny that more specific policies of the set open is a deny-by-default baseline and not reported",
		Bad: catHead + `    - targetRef:
        kind: Mesh
      default:
        action: Deny
`,
		Good: catHead + `    - targetRef:
        kind: Mesh
      default:
        action: Deny
    - targetRef:
        kind: MeshService
        name: web
      default:
        action: Allow
`,
	}
}

// allowAllRule documents MG203: policies that allow every client.
func allowAllRule() validate.RuleDoc {
	return validate.RuleDoc{
		Code: CodeAllowAll, Severity: validate.SeverityWarning,
		Summary: "a mesh-wide policy allows every client of the mesh to reach every proxy",
		Bad: `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata:
  name: allow-all
  namespace: kuma-system
  labels:
    kuma.io/mesh: default
spec:
  targetRef:
    kind: Mesh
  from:
    - targetRef:
        kind: Mesh
      default:
        action: Allow
`,
		Good: `apiVersion: kuma.io/v1alpha1
kind: MeshTrafficPermission
metadata:
  name: allow-web
  namespace: kuma-system
  labels:
    kuma.io/mesh: default
spec:
  targetRef:
    kind: Mesh
  from:
    - targetRef:
        kind: MeshSubset
        tags:
          kuma.io/service: web
      default:
        action: Allow
`,
	}
}
