package webhook

import (
	"fmt"
	"net/http"
	"strings"

	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// The cert rotator (open-policy-agent/cert-controller) keeps its own informer
// cache of Secrets in the certificate's namespace and of the webhook
// configurations, which lists and watches whole collections. RBAC cannot restrict
// an unfiltered list or watch by resourceNames, so the pod would need to read every
// Secret of its namespace and every webhook configuration of the cluster (issue 17).
// The API server does authorize a list or watch by name when it carries the field
// selector metadata.name=<name>, so the rotator's requests for those collections are
// narrowed to the one object each it manages, and the chart grants get, list,
// watch and update on exactly those names.

// rotatorManager is the manager handed to cert-controller: the same manager, but
// GetConfig (which cert-controller uses only to build its cache) returns a config
// whose list and watch requests are narrowed by nameScope.
type rotatorManager struct {
	manager.Manager
	cfg *rest.Config
}

// GetConfig returns the narrowed config.
func (m rotatorManager) GetConfig() *rest.Config { return m.cfg }

// scopedRotatorManager wraps mgr for cert-controller. names maps a collection path
// (as in the request URL, after any host path prefix) to the one object name its
// lists and watches are narrowed to.
func scopedRotatorManager(mgr manager.Manager, names map[string]string) manager.Manager {
	cfg := rest.CopyConfig(mgr.GetConfig())
	prev := cfg.WrapTransport
	cfg.WrapTransport = func(rt http.RoundTripper) http.RoundTripper {
		if prev != nil {
			rt = prev(rt)
		}
		return nameScope{next: rt, names: names}
	}
	return rotatorManager{Manager: mgr, cfg: cfg}
}

// rotatorCollections are the collections cert-controller lists and watches, and the
// object of each that meshguard's rotator manages.
func rotatorCollections(o Options) map[string]string {
	return map[string]string{
		fmt.Sprintf("/api/v1/namespaces/%s/secrets", o.SecretNamespace):         o.SecretName,
		"/apis/admissionregistration.k8s.io/v1/mutatingwebhookconfigurations":   o.MutatingWebhookName,
		"/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations": o.ValidatingWebhookName,
	}
}

// nameScope adds fieldSelector=metadata.name=<name> to GET requests on the
// collections it knows that carry no field selector (lists and watches); every
// other request passes unchanged.
type nameScope struct {
	next  http.RoundTripper
	names map[string]string
}

// RoundTrip narrows the request when it is a list or watch of a known collection.
func (s nameScope) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Method != http.MethodGet {
		return s.next.RoundTrip(req)
	}
	for coll, name := range s.names {
		if name == "" || !strings.HasSuffix(req.URL.Path, coll) {
			continue
		}
		q := req.URL.Query()
		if q.Get("fieldSelector") != "" {
			break
		}
		// A RoundTripper must not modify the caller's request.
		req = req.Clone(req.Context())
		q.Set("fieldSelector", "metadata.name="+name)
		req.URL.RawQuery = q.Encode()
		break
	}
	return s.next.RoundTrip(req)
}
