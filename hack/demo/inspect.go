package main

import (
	"context"
	"strings"
)

// inspectShows are the lines the tour's inspect must print for web's proxy: the
// request timeout web's own MeshTimeout sets over the mesh default, and the
// retries of the MeshRetry, each with the policy it comes from.
var inspectShows = []string{
	"outbound kri_msvc_default__shop_backend_http port 80 http",
	"http.requestTimeout: 2s  ← web-to-backend.shop spec.to[0], over mesh-defaults.kuma-system spec.to[0]",
	"http.numRetries: 3  ← retry-backend.shop spec.to[0]",
}

// inspect runs meshguard inspect on examples/inspect/k8s-shop: the proxy Kuma
// gives the web Deployment, derived from the Deployment and the Services that
// select it, and every field of its merged MeshTimeout and MeshRetry with the
// policy that sets it.
func (d *demo) inspect(ctx context.Context) error {
	d.p.heading("6. meshguard inspect: what a Kuma proxy gets from the policies, field by field")
	d.p.note("  offline: the proxy of the web Deployment (one inbound per port of the Services that select it),")
	d.p.note("  each outbound's merged MeshTimeout and MeshRetry, and the policy item every field comes from")
	out, code, err := d.meshguard(ctx, "inspect", "--proxy", "Deployment/web", "-n", "shop", "examples/inspect/k8s-shop")
	if err != nil {
		return err
	} else if code != 0 {
		d.failf("meshguard inspect exited %d", code)
		return nil
	}
	for _, want := range inspectShows {
		if !strings.Contains(out, want) {
			d.failf("meshguard inspect did not show %q", want)
		}
	}
	return d.configDiff(ctx)
}

// configDiffShows is the change the tour's config diff must report: the
// MeshTimeout edit of examples/diff/kuma-timeout, grouped over the proxies it
// alters, with the policy item that sets it now and before.
const configDiffShows = "~ MeshTimeout connectionTimeout: 5s → 2s on the outbound to MeshService shop/backend port http of 5 proxies"

// configDiff runs meshguard diff on a MeshTimeout and MeshRetry change: what it
// does to every proxy's merged configuration, before it is applied.
func (d *demo) configDiff(ctx context.Context) error {
	d.p.sub("what a MeshTimeout and MeshRetry change does to every proxy")
	out, code, err := d.meshguard(ctx, "diff", "examples/diff/kuma-timeout/old", "examples/diff/kuma-timeout/new")
	if err != nil {
		return err
	} else if code != 0 {
		d.failf("meshguard diff exited %d", code)
		return nil
	}
	if !strings.Contains(out, configDiffShows) {
		d.failf("meshguard diff did not show %q", configDiffShows)
	}
	return nil
}
