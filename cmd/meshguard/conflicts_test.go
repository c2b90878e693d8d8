package main

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/meshguard/meshguard/validate"
)

// TestServerConflictsAcrossFiles: MG350 is found between Servers in different files,
// named ports resolve through a workload in a third file, and each Server involved
// gets its own finding naming the other; the MTP analysis still runs alongside.
func TestServerConflictsAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  selector: {matchLabels: {app: web}}\n" +
			"  template:\n    metadata: {labels: {app: web}}\n    spec:\n      containers: [{name: web, image: web, ports: [{name: http, containerPort: 8080}]}]\n",
		"a.yaml": "apiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata: {name: web-http}\nspec:\n  podSelector: {matchLabels: {app: web}}\n  port: http\n",
		"b.yaml": "apiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata: {name: web-8080}\nspec:\n" +
			"  podSelector: {matchExpressions: [{key: app, operator: In, values: [web, api]}]}\n  port: 8080\n",
		"c.yaml": "apiVersion: policy.linkerd.io/v1beta3\nkind: Server\nmetadata: {name: api-8080}\nspec:\n" +
			"  podSelector: {matchExpressions: [{key: app, operator: NotIn, values: [web]}]}\n  port: 8080\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, _ := lintJSON(t, "", "-n", "web-ns", dir)
	var got []string
	for _, f := range rep.Findings {
		if f.Code != validate.CodeLinkerdServerConflict {
			continue
		}
		if f.Field != "spec.podSelector" || f.Severity != validate.SeverityWarning {
			t.Errorf("finding %+v: want a warning on spec.podSelector", f)
		}
		got = append(got, filepath.Base(f.File)+":"+f.Message[:strings.Index(f.Message, ";")])
	}
	sort.Strings(got)
	want := []string{
		"a.yaml:Server web-http can select the same pods as Server web-8080 on port 8080 (named http in Deployment web)",
		"b.yaml:Server web-8080 can select the same pods as Server api-8080 on port 8080",
		"b.yaml:Server web-8080 can select the same pods as Server web-http on port 8080 (named http in Deployment web)",
		"c.yaml:Server api-8080 can select the same pods as Server web-8080 on port 8080",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("MG350 findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
