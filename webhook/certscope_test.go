package webhook

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// fakeManager is a manager whose only method in use is GetConfig.
type fakeManager struct {
	manager.Manager
	cfg *rest.Config
}

func (f fakeManager) GetConfig() *rest.Config { return f.cfg }

// TestRotatorRequestsNamed: the rotator's lists and watches of its Secret's
// namespace and of the webhook configurations carry metadata.name field selectors
// (so RBAC resourceNames can cover them); gets, updates, other collections and
// requests that already select keep their query.
func TestRotatorRequestsNamed(t *testing.T) {
	var mu sync.Mutex
	seen := map[string]string{} // method path -> raw query
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen[r.Method+" "+r.URL.Path] = r.URL.RawQuery
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{}`))
	}))
	defer srv.Close()

	o := Options{SecretNamespace: "mg", SecretName: "cert", MutatingWebhookName: "mut", ValidatingWebhookName: "val"}
	for _, host := range []string{srv.URL, srv.URL + "/prefix"} {
		base := &rest.Config{Host: host}
		mgr := scopedRotatorManager(fakeManager{cfg: base}, rotatorCollections(o))
		if mgr.GetConfig() == base || base.WrapTransport != nil {
			t.Fatal("the manager's own config was changed; only the rotator's copy may be")
		}
		hc, err := rest.HTTPClientFor(mgr.GetConfig())
		if err != nil {
			t.Fatal(err)
		}
		prefix := host[len(srv.URL):]
		for _, c := range []struct {
			method, path, query, want string
		}{
			{"GET", "/api/v1/namespaces/mg/secrets", "limit=500", "fieldSelector=metadata.name%3Dcert&limit=500"},
			{"GET", "/api/v1/namespaces/mg/secrets", "watch=true&resourceVersion=7", "fieldSelector=metadata.name%3Dcert&resourceVersion=7&watch=true"},
			{"GET", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", "", "fieldSelector=metadata.name%3Dmut"},
			{"GET", "/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations", "watch=1", "fieldSelector=metadata.name%3Dval&watch=1"},
			// Not lists of the managed collections: unchanged.
			{"GET", "/api/v1/namespaces/mg/secrets/cert", "", ""},
			{"PUT", "/api/v1/namespaces/mg/secrets", "", ""},
			{"GET", "/api/v1/namespaces/other/secrets", "limit=1", "limit=1"},
			{"GET", "/api/v1/namespaces/mg/configmaps", "", ""},
			{"GET", "/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations", "fieldSelector=metadata.name%3Dx", "fieldSelector=metadata.name%3Dx"},
		} {
			req, _ := http.NewRequestWithContext(context.Background(), c.method, host+c.path+"?"+c.query, nil)
			orig := req.URL.RawQuery
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if req.URL.RawQuery != orig {
				t.Errorf("%s %s: the caller's request was modified", c.method, c.path)
			}
			mu.Lock()
			got := seen[c.method+" "+prefix+c.path]
			mu.Unlock()
			if got != c.want {
				t.Errorf("%s %s%s?%s reached the server with query %q, want %q", c.method, prefix, c.path, c.query, got, c.want)
			}
		}
	}
}
