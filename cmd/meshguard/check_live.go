package main

import (
	"context"
	"fmt"
	"time"

	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/live"
	"github.com/meshguard/meshguard/schema"
)

// liveTimeout bounds reading a cluster for one check.
const liveTimeout = 2 * time.Minute

// readLive reads check's input from a cluster, read-only, with the live package's
// reader: every registry kind the cluster serves, plus the inventory (Namespaces,
// Services, workloads) that destinations by workload and Linkerd's default
// policies are read from.
func readLive(kubeconfig, kubeContext string) (lint.Loaded, error) {
	ctx, cancel := context.WithTimeout(context.Background(), liveTimeout)
	defer cancel()
	res, err := live.ReadCluster(ctx, kubeconfig, kubeContext, live.Options{Inventory: true})
	if err != nil {
		return lint.Loaded{}, fmt.Errorf("--kubeconfig/--context: %w", err)
	}
	return lint.Loaded{Docs: append(res.Docs, res.Inventory...)}, nil
}

// detect settles the releases from the cluster of --kubeconfig/--context, before
// the engine loads their CRDs.
func (o *checkOptions) detect(s streams) error {
	if o.kubeconfig == "" && o.kubeContext == "" {
		return nil
	}
	if err := schema.CheckSettings(o.settings); err != nil {
		return err
	}
	cfg, err := live.Config(o.kubeconfig, o.kubeContext)
	if err != nil {
		return fmt.Errorf("--kubeconfig/--context: %w", err)
	}
	sayReleases(s, "check", settleReleases(context.Background(), cfg, &o.settings, o.flags))
	return nil
}
