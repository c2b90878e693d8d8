package kumainspect

import (
	"net/http"
	"testing"
)

// TestHostnamesOfAKubernetesService: a MeshService read from a Kubernetes manifest
// is stored as name.namespace, but a HostnameGenerator's .Name is its Kubernetes
// name (Kuma's K8sNameComponent), .Namespace its namespace, and the label
// function reads its labels; with no zone label the zone is the name's first part.
func TestHostnamesOfAKubernetesService(t *testing.T) {
	s := storeOf(t, `apiVersion: kuma.io/v1alpha1
kind: MeshService
metadata:
  name: backend
  namespace: shop
  labels:
    kuma.io/mesh: default
    team: payments
spec:
  ports:
    - port: 80
      appProtocol: http
---
apiVersion: kuma.io/v1alpha1
kind: HostnameGenerator
metadata:
  name: local
  namespace: kuma-system
spec:
  template: '{{ .Name }}.{{ .Namespace }}.{{ label "team" }}.svc.cluster.local'
  selector:
    meshService:
      matchLabels:
        team: payments
---
apiVersion: kuma.io/v1alpha1
kind: HostnameGenerator
metadata:
  name: for-external
  namespace: kuma-system
spec:
  template: '{{ .Name }}.extsvc.mesh.local'
  selector:
    meshExternalService:
      matchLabels: {}
`)
	status, body := get(t, s, "/meshes/default/meshservices/backend.shop/_hostnames")
	want := `{"items":[{"hostname":"backend.shop.payments.svc.cluster.local","zones":[{"name":"backend"}]}],"total":1}`
	if status != http.StatusOK || jsonOf(body) != want {
		t.Errorf("got %d %s\nwant 200 %s", status, jsonOf(body), want)
	}
}

// TestHostnamesTemplateErrors: a template that does not parse, or that reads a
// label the service lacks, is Kuma's 500 "could not generate hostname".
func TestHostnamesTemplateErrors(t *testing.T) {
	for name, tmpl := range map[string]string{
		"parse":         `'{{ .Name '`,
		"missing label": `'{{ label "nope" }}.mesh.local'`,
		"unknown field": `'{{ .Port }}.mesh.local'`,
	} {
		s := storeOf(t, `type: Mesh
name: default
---
type: MeshService
name: backend
mesh: default
spec:
  ports: [{port: 80}]
---
type: HostnameGenerator
name: broken
spec:
  template: `+tmpl+`
  selector:
    meshService: {}
`)
		status, body := get(t, s, "/meshes/default/meshservices/backend/_hostnames")
		if status != http.StatusInternalServerError || body["title"] != "could not generate hostname" {
			t.Errorf("%s: got %d %s", name, status, jsonOf(body))
		}
	}
}
