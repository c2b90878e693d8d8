package main

import (
	"testing"

	"github.com/spf13/pflag"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/lint"
)

// TestChartArgsAreServeFlags renders the chart with its default values (as
// `meshguard lint` renders charts, through the Helm SDK) and parses the
// meshguard container's arguments with serve's own flags: every argument the
// chart passes is a flag serve has, and the values pass serve's checks. A value
// added to the chart without its flag, or a default serve refuses, fails here
// rather than in a crash-looping pod.
func TestChartArgsAreServeFlags(t *testing.T) {
	docs := lint.LoadAll([]string{"../../charts/meshguard/Chart.yaml"}, nil, lint.LoadOptions{Helm: true, Namespace: "meshguard-system"}).Docs
	var args []string
	found := false
	for _, d := range docs {
		if d.Err != nil {
			t.Fatalf("%s:%d: %v", d.File, d.Line, d.Err)
		}
		if d.Object == nil || d.Object.GetKind() != api.KindDeployment {
			continue
		}
		containers, _, _ := unstructured.NestedSlice(d.Object.Object, "spec", "template", "spec", "containers")
		for _, c := range containers {
			c, _ := c.(map[string]any)
			if c["name"] != "meshguard" {
				continue
			}
			cmd, _ := c["args"].([]any)
			if len(cmd) == 0 || cmd[0] != "serve" {
				continue // the audit Deployment runs `audit`
			}
			found = true
			for _, a := range cmd[1:] {
				args = append(args, a.(string))
			}
		}
	}
	if !found {
		t.Fatal("no meshguard container running serve in the rendered chart")
	}
	o := &serveOptions{}
	f := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	serveFlags(f, o)
	if err := f.Parse(args); err != nil {
		t.Fatalf("the chart passes %q; serve says: %v", args, err)
	}
	if err := o.Check(); err != nil {
		t.Errorf("the chart's default values fail serve's checks: %v\nargs: %q", err, args)
	}
	if o.Linkerd.DefaultPolicy == "" || o.Linkerd.TrustDomain == "" || len(o.Linkerd.ClusterNetworks) == 0 {
		t.Errorf("the chart does not pass the Linkerd installation's facts: %+v", o.Linkerd)
	}
}
