package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/compile"
	"github.com/meshguard/meshguard/lint"
	"github.com/meshguard/meshguard/validate"
)

const mtpKind = "MeshTrafficPermission"

// analysisRules are the RBAC analysis codes of compile, in the validate catalogue's
// shape so `meshguard rules` and docs/rules.md list both.
func analysisRules() []validate.RuleDoc {
	var out []validate.RuleDoc
	for _, r := range compile.Catalogue() {
		out = append(out, validate.RuleDoc{Code: r.Code, Severity: r.Severity, Summary: r.Summary, Bad: r.Bad, Good: r.Good})
	}
	return out
}

// rbacAnalysis returns lint's cross-document stage: the MeshTrafficPermissions of the
// linted set are compiled together and the compiler's findings (dead items, deny-all,
// mesh-wide allow-all) are reported on the policy they concern.
func rbacAnalysis(s api.Settings) func([]lint.Checked) []lint.Finding {
	return func(objs []lint.Checked) []lint.Finding {
		byRef := map[string]*lint.Document{}
		var ps []compile.Policy
		for _, c := range objs {
			if c.Kind == nil || c.Kind.Kind != mtpKind {
				continue
			}
			if res := validate.Validate(c.Object, c.Kind, s, api.Request{Operation: api.OpCreate}); len(res.Errors) > 0 {
				continue // denied policies never reach a proxy
			}
			p, err := compile.PolicyFromObject(c.Object)
			if err != nil {
				continue
			}
			byRef[p.Ref()] = c.Doc
			ps = append(ps, p)
		}
		if len(ps) == 0 {
			return nil
		}
		var out []lint.Finding
		for _, e := range compile.AnalyzePolicies(ps, s.SystemNamespace) {
			ref, _ := e.BadValue.(string)
			d := byRef[ref]
			if d == nil {
				continue
			}
			out = append(out, lint.FindingFor(d, validate.SeverityWarning, e.Origin, e.Field, e.Detail))
		}
		return out
	}
}

// previewOptions are the flags of `meshguard preview`.
type previewOptions struct {
	lintOptions
	form string
}

func newPreviewCmd(s streams) *cobra.Command {
	o := &previewOptions{}
	cmd := &cobra.Command{
		Use:   "preview [PATH|-]...",
		Short: "Show the Envoy RBAC that MeshTrafficPermissions compile to",
		Long: `Preview compiles the MeshTrafficPermissions in the given manifests into the Envoy RBAC
configuration the mesh programs, after defaulting them as the webhook would.

For each group of proxies the policies select it prints the scope in words, the
policies in merge order (least specific first: targetRef kind, origin, namespace role,
name), the merged list with the policy each item came from, and the Envoy network RBAC
filter config: rules/shadow_rules for 'from' policies, the matcher tree for SPIFFE
matcher policies. Policies the validating webhook would deny are skipped with a note on
standard error.

Forms (for 'from' policies): expanded is the full rule view with negations (seed 000);
past --max-expanded rules it falls back to compact, an exactly equivalent form of
polynomial size, and says so.`,
		Example: `  meshguard preview examples/valid
  meshguard preview --form compact -o json policies/ | jq '.previews[].policies'`,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := o.engine()
			if err != nil {
				return err
			}
			if len(args) == 0 {
				return usageErr("preview needs at least one PATH, or - for standard input")
			}
			form := compile.Form(o.form)
			if form != compile.FormExpanded && form != compile.FormCompact {
				return usageErr("--form must be expanded or compact (got %q)", o.form)
			}
			if o.output != "yaml" && o.output != "json" {
				return usageErr("--output must be yaml or json (got %q)", o.output)
			}
			docs := lint.Load(args, s.in)
			ps, bad := previewPolicies(docs, eng, s)
			previews, err := compile.BuildPreviews(ps, compile.Options{Form: form, SystemNamespace: o.settings.SystemNamespace})
			if err != nil {
				return err
			}
			if o.output == "json" {
				err = compile.RenderJSON(s.out, previews)
			} else {
				err = compile.RenderYAML(s.out, previews)
			}
			if err != nil {
				return err
			}
			if bad {
				return exitError{exitUsage}
			}
			return nil
		},
	}
	o.bind(cmd)
	cmd.Flags().StringVar(&o.form, "form", string(compile.FormExpanded), "RBAC form for 'from' policies: expanded or compact")
	cmd.Flags().StringVarP(&o.output, "output", "o", "yaml", "output format: yaml or json")
	return cmd
}

// previewPolicies defaults and validates the documents and returns the admissible
// MeshTrafficPermissions; bad is true when a document could not be parsed.
func previewPolicies(docs []lint.Document, eng lint.Options, s streams) ([]compile.Policy, bool) {
	var ps []compile.Policy
	bad := false
	for i := range docs {
		d := &docs[i]
		if d.Err != nil {
			bad = true
			printParseError(s, d)
			continue
		}
		kind := lint.Prepare(d, eng)
		if kind == nil || kind.Kind != mtpKind {
			continue
		}
		if res := validate.Validate(d.Object, kind, eng.Settings, api.Request{Operation: api.OpCreate}); len(res.Errors) > 0 {
			fmt.Fprintf(s.err, "%s:%d: skipped %s/%s: the webhook would deny it (%s %s: %s)\n", d.File, d.Line,
				d.Object.GetNamespace(), d.Object.GetName(), res.Errors[0].Origin, res.Errors[0].Field, res.Errors[0].Detail)
			continue
		}
		p, err := compile.PolicyFromObject(d.Object)
		if err != nil {
			fmt.Fprintf(s.err, "%s:%d: skipped: %v\n", d.File, d.Line, err)
			continue
		}
		ps = append(ps, p)
	}
	return ps, bad
}
