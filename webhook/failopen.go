package webhook

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/go-logr/logr"
	admissionv1 "k8s.io/api/admission/v1"
	admissionregv1 "k8s.io/api/admissionregistration/v1"
	authnv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Names of the webhooks in the chart's configurations that --fail-open-until-ready
// switches to failurePolicy Fail (the Linkerd annotation webhook keeps its own).
const (
	MutatingWebhook   = "mutate.meshguard.io"
	ValidatingWebhook = "validate.meshguard.io"
)

// failOpen is --fail-open-until-ready: on a first install the chart registers the
// webhooks with failurePolicy Ignore, so that nothing is refused while no replica
// can answer yet (the certificate is not issued, the caBundle not injected, the
// Service has no ready endpoint). Once a self-check reaches meshguard the way the
// API server does — the clientConfig of each configuration (its URL, or the
// Service's DNS name), trusting only its caBundle — and meshguard answers both
// paths correctly, it sets failurePolicy Fail. It never sets Ignore: a later
// restart of meshguard leaves Fail in place.
type failOpen struct {
	reader     client.Reader
	writer     client.Writer
	mutating   string
	validating string
	registered *atomic.Bool
	log        logr.Logger
	// client makes the self-check's HTTP client (tests replace it).
	client func(ca []byte, serverName string) *http.Client
}

func newFailOpen(mgr manager.Manager, o Options, registered *atomic.Bool, log logr.Logger) *failOpen {
	return &failOpen{reader: mgr.GetAPIReader(), writer: mgr.GetClient(), mutating: o.MutatingWebhookName, validating: o.ValidatingWebhookName,
		registered: registered, log: log, client: selfCheckClient}
}

// NeedLeaderElection is false: any replica may switch the policy (the update is idempotent).
func (f *failOpen) NeedLeaderElection() bool { return false }

// Start waits for this replica's webhooks, then self-checks with backoff (1 s to
// 30 s) until it passes and the policy is set to Fail.
func (f *failOpen) Start(ctx context.Context) error {
	wait := time.Second
	for {
		if f.registered.Load() {
			err := f.selfCheck(ctx)
			if err == nil {
				if err = f.setFail(ctx); err == nil {
					f.log.Info("self-check passed: failurePolicy set to Fail", "webhooks", []string{MutatingWebhook, ValidatingWebhook})
					return nil
				}
			}
			f.log.Info("failurePolicy stays Ignore until a self-check passes", "reason", err.Error(), "retryIn", wait)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
		if f.registered.Load() {
			wait = min(2*wait, 30*time.Second)
		}
	}
}

// selfCheck sends a known-good MeshTimeout to the mutating webhook (it must be
// allowed with a patch) and a known-bad one to the validating webhook (it must be
// denied with MG102), each through its configuration's clientConfig and caBundle.
func (f *failOpen) selfCheck(ctx context.Context) error {
	mwc := &admissionregv1.MutatingWebhookConfiguration{}
	if err := f.reader.Get(ctx, types.NamespacedName{Name: f.mutating}, mwc); err != nil {
		return err
	}
	vwc := &admissionregv1.ValidatingWebhookConfiguration{}
	if err := f.reader.Get(ctx, types.NamespacedName{Name: f.validating}, vwc); err != nil {
		return err
	}
	for _, w := range mwc.Webhooks {
		if w.Name == MutatingWebhook {
			resp, err := f.review(ctx, w.ClientConfig, selfCheckPolicy(false))
			if err != nil {
				return fmt.Errorf("%s: %w", MutatingWebhook, err)
			}
			if !resp.Allowed || len(resp.Patch) == 0 {
				return fmt.Errorf("%s: a valid MeshTimeout was not mutated (allowed %t, %d patch bytes)", MutatingWebhook, resp.Allowed, len(resp.Patch))
			}
		}
	}
	for _, w := range vwc.Webhooks {
		if w.Name == ValidatingWebhook {
			resp, err := f.review(ctx, w.ClientConfig, selfCheckPolicy(true))
			if err != nil {
				return fmt.Errorf("%s: %w", ValidatingWebhook, err)
			}
			if resp.Allowed || resp.Result == nil || !strings.Contains(resp.Result.Message, "MG102") {
				return fmt.Errorf("%s: a MeshTimeout with both from and to was not denied with MG102", ValidatingWebhook)
			}
		}
	}
	return nil
}

// endpoint is where the API server sends a clientConfig's requests.
func endpoint(cc admissionregv1.WebhookClientConfig) (string, error) {
	if cc.URL != nil {
		return *cc.URL, nil
	}
	if s := cc.Service; s != nil {
		port, path := int32(443), ""
		if s.Port != nil {
			port = *s.Port
		}
		if s.Path != nil {
			path = *s.Path
		}
		return fmt.Sprintf("https://%s.%s.svc:%d%s", s.Name, s.Namespace, port, path), nil
	}
	return "", errors.New("clientConfig has neither url nor service")
}

// review posts one AdmissionReview to the clientConfig's endpoint.
func (f *failOpen) review(ctx context.Context, cc admissionregv1.WebhookClientConfig, obj map[string]any) (*admissionv1.AdmissionResponse, error) {
	if len(cc.CABundle) == 0 {
		return nil, errors.New("no caBundle injected yet")
	}
	url, err := endpoint(cc)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(obj)
	if err != nil {
		return nil, err
	}
	rev := admissionv1.AdmissionReview{
		TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
		Request: &admissionv1.AdmissionRequest{
			UID:       "00000000-0000-4000-8000-5e1fc4ec0001",
			Kind:      metav1.GroupVersionKind{Group: "kuma.io", Version: "v1alpha1", Kind: "MeshTimeout"},
			Resource:  metav1.GroupVersionResource{Group: "kuma.io", Version: "v1alpha1", Resource: "meshtimeouts"},
			Name:      "meshguard-self-check",
			Namespace: "default",
			Operation: admissionv1.Create,
			UserInfo:  authnv1.UserInfo{Username: "meshguard:self-check"},
			Object:    runtime.RawExtension{Raw: raw},
		},
	}
	body, err := json.Marshal(rev)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := f.client(cc.CABundle, req.URL.Hostname()).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s", url, resp.Status)
	}
	var out admissionv1.AdmissionReview
	if err := json.Unmarshal(b, &out); err != nil || out.Response == nil {
		return nil, fmt.Errorf("%s answered no AdmissionReview: %v", url, err)
	}
	return out.Response, nil
}

// selfCheckClient trusts only the caBundle, as the API server does.
func selfCheckClient(ca []byte, serverName string) *http.Client {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca)
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig:   &tls.Config{RootCAs: pool, ServerName: serverName, MinVersion: tls.VersionTLS12},
		DisableKeepAlives: true,
	}}
}

// selfCheckPolicy is a MeshTimeout meshguard admits, or with bad one it denies
// with MG102 (a namespace-scoped policy with both from and to).
func selfCheckPolicy(bad bool) map[string]any {
	conf := map[string]any{"idleTimeout": "1h"}
	spec := map[string]any{"to": []any{map[string]any{
		"targetRef": map[string]any{"kind": "MeshService", "name": "meshguard-self-check"}, "default": conf}}}
	if bad {
		spec["from"] = []any{map[string]any{"targetRef": map[string]any{"kind": "Mesh"}, "default": conf}}
	}
	return map[string]any{
		"apiVersion": "kuma.io/v1alpha1", "kind": "MeshTimeout",
		"metadata": map[string]any{"name": "meshguard-self-check", "namespace": "default"},
		"spec":     spec,
	}
}

// setFail sets failurePolicy Fail on meshguard's two webhooks, retrying on
// conflicts with the rotator's caBundle updates.
func (f *failOpen) setFail(ctx context.Context) error {
	fail := admissionregv1.Fail
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		c := &admissionregv1.MutatingWebhookConfiguration{}
		if err := f.reader.Get(ctx, types.NamespacedName{Name: f.mutating}, c); err != nil {
			return err
		}
		changed := false
		for i := range c.Webhooks {
			if c.Webhooks[i].Name == MutatingWebhook && (c.Webhooks[i].FailurePolicy == nil || *c.Webhooks[i].FailurePolicy != fail) {
				c.Webhooks[i].FailurePolicy, changed = &fail, true
			}
		}
		if !changed {
			return nil
		}
		return f.writer.Update(ctx, c)
	})
	if err != nil {
		return fmt.Errorf("updating %s: %w", f.mutating, err)
	}
	err = retry.RetryOnConflict(retry.DefaultRetry, func() error {
		c := &admissionregv1.ValidatingWebhookConfiguration{}
		if err := f.reader.Get(ctx, types.NamespacedName{Name: f.validating}, c); err != nil {
			return err
		}
		changed := false
		for i := range c.Webhooks {
			if c.Webhooks[i].Name == ValidatingWebhook && (c.Webhooks[i].FailurePolicy == nil || *c.Webhooks[i].FailurePolicy != fail) {
				c.Webhooks[i].FailurePolicy, changed = &fail, true
			}
		}
		if !changed {
			return nil
		}
		return f.writer.Update(ctx, c)
	})
	if err != nil {
		return fmt.Errorf("updating %s: %w", f.validating, err)
	}
	return nil
}
