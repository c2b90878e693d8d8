package lint

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/validate"
)

func mtpDoc(name, ns, action string) string {
	meta := "metadata:\n  name: " + name + "\n"
	if ns != "" {
		meta += "  namespace: " + ns + "\n"
	}
	return "apiVersion: kuma.io/v1alpha1\nkind: MeshTrafficPermission\n" + meta +
		"spec:\n  targetRef:\n    kind: Mesh\n  from:\n    - targetRef:\n        kind: Mesh\n      default:\n        action: " + action + "\n"
}

func engineOptions() Options {
	s := api.DefaultSettings()
	return Options{Settings: s, Namespace: "kuma-system", Registry: api.DefaultRegistry(), Stages: CrossDocument(s, "kuma-system")}
}

// TestDuplicateObjects: two documents of one object (the namespace default
// applied) are an MG006 error on the earlier copy naming both places, and the
// cross-document stages see only the copy the cluster keeps: no MG201 "shadowed
// by" its own copy. The same file named twice is read once: no finding.
func TestDuplicateObjects(t *testing.T) {
	root := tree(t, map[string]string{
		"a.yaml": mtpDoc("allow-all", "kuma-system", "Allow"),
		// No namespace: kuma-system by -n, so the same object as a.yaml's.
		"b.yaml": "# a comment\n" + mtpDoc("allow-all", "", "Allow"),
		"c.yaml": mtpDoc("allow-all", "other", "Allow"), // another namespace: another object
	})
	a, b, c := filepath.Join(root, "a.yaml"), filepath.Join(root, "b.yaml"), filepath.Join(root, "c.yaml")
	type found struct {
		File, Code string
		Line       int
	}
	tests := []struct {
		name  string
		paths []string
		want  []found
		msg   string
	}{
		{"same object in two files", []string{a, b}, []found{{a, validate.CodeDuplicate, 4}},
			"MeshTrafficPermission.kuma.io kuma-system/allow-all is defined twice, at " + a + ":4 and again at " + b + ":5"},
		{"one file named twice", []string{a, root + "/./a.yaml"}, nil, ""},
		{"same name, other namespace", []string{a, c}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs, _, _ := Run(tt.paths, nil, LoadOptions{}, engineOptions(), nil)
			var got []found
			for _, f := range fs {
				if f.Code == validate.CodeDuplicate || f.Severity == validate.SeverityError || f.Code == kumaauthz.CodeDeadItem {
					got = append(got, found{f.File, f.Code, f.Line})
					if tt.msg != "" && !strings.Contains(f.Message, tt.msg) {
						t.Errorf("message %q does not contain %q", f.Message, tt.msg)
					}
				}
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
		})
	}
}

// TestPreviewKeepsLastCopy: check, diff and preview compile the copy the
// cluster keeps: the last one the webhook admits.
func TestPreviewKeepsLastCopy(t *testing.T) {
	o := engineOptions()
	denied := strings.Replace(mtpDoc("p", "kuma-system", "Deny"), "action: Deny", "action: Nope", 1)
	tests := []struct {
		name   string
		stream string
		want   []string // actions of the policies kept
	}{
		{"later copy wins", mtpDoc("p", "kuma-system", "Allow") + "---\n" + mtpDoc("p", "", "Deny"), []string{"Deny"}},
		{"a later copy the webhook denies replaces nothing", mtpDoc("p", "kuma-system", "Allow") + "---\n" + denied, []string{"Allow"}},
		{"other names both kept", mtpDoc("p", "kuma-system", "Allow") + "---\n" + mtpDoc("q", "", "Deny"), []string{"Allow", "Deny"}},
	}
	actions := func(ps []kumaauthz.Policy) []string {
		var out []string
		for _, p := range ps {
			for _, f := range p.Spec.From {
				out = append(out, string(f.Default.Action))
			}
		}
		return out
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := Preview(LoadBytes("in.yaml", []byte(tt.stream)), o)
			if diff := cmp.Diff(tt.want, actions(in.Policies)); diff != "" {
				t.Errorf("Preview (-want +got):\n%s", diff)
			}
			chk := KumaCheckInput(LoadBytes("in.yaml", []byte(tt.stream)), o, func(kumaauthz.Policy) bool { return true })
			if diff := cmp.Diff(tt.want, actions(chk.Policies)); diff != "" {
				t.Errorf("KumaCheckInput (-want +got):\n%s", diff)
			}
			if len(chk.Docs) != len(chk.Policies) {
				t.Errorf("KumaCheckInput: %d docs for %d policies", len(chk.Docs), len(chk.Policies))
			}
		})
	}
	// A copy keep does not select still replaces an earlier selected one.
	stream := mtpDoc("p", "kuma-system", "Allow") + "---\n" + mtpDoc("p", "", "Deny")
	chk := KumaCheckInput(LoadBytes("in.yaml", []byte(stream)), o, func(p kumaauthz.Policy) bool {
		return len(p.Spec.From) > 0 && p.Spec.From[0].Default.Action == "Allow"
	})
	if len(chk.Policies) != 0 {
		t.Errorf("KumaCheckInput kept a replaced copy: %v", actions(chk.Policies))
	}
}

func TestIdentityOf(t *testing.T) {
	reg := api.DefaultRegistry()
	docs := LoadBytes("x.yaml", []byte("apiVersion: v1\nkind: Namespace\nmetadata: {name: ns-a}\n---\n"+
		"apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n---\napiVersion: kuma.io/v1alpha1\nkind: Mesh\nmetadata: {name: default}\n---\n"+
		"apiVersion: v1\nkind: ConfigMap\nmetadata: {generateName: x-}\n"))
	var got []string
	for _, d := range docs {
		id, ok := IdentityOf(d.Object, reg, "ns1")
		if ok {
			got = append(got, id.String())
		} else {
			got = append(got, "-")
		}
	}
	want := []string{"Namespace ns-a", "Deployment.apps ns1/d", "Mesh.kuma.io default", "-"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
