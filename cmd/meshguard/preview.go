package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/spf13/cobra"

	"github.com/meshguard/meshguard/kumaauthz"
	"github.com/meshguard/meshguard/linkerdauthz"
	"github.com/meshguard/meshguard/lint"
)

// previewOptions are the flags of `meshguard preview`.
type previewOptions struct {
	lintOptions
	form    string
	linkerd linkerdauthz.Options
}

func newPreviewCmd(s streams) *cobra.Command {
	o := &previewOptions{}
	cmd := &cobra.Command{
		Use:   "preview [PATH|-]...",
		Short: "Show the Envoy RBAC that MeshTrafficPermissions compile to, and who may reach Linkerd Servers",
		Long: `Preview compiles the MeshTrafficPermissions in the given manifests into the Envoy RBAC
configuration the mesh programs, after defaulting them as the webhook would.

For each group of proxies the policies select it prints the scope in words, the
policies in merge order (least specific first: targetRef kind, origin, namespace role,
name), the merged list with the policy each item came from, and the Envoy network RBAC
filter config: rules/shadow_rules for 'from' policies, the matcher tree for SPIFFE
matcher policies. Policies the validating webhook would deny are skipped with a note on
standard error. Kustomizations and Helm charts are rendered as lint renders them (see
docs/lint.md); every object read is taken to be in one cluster, so give preview one
overlay or chart at a time, not a tree of alternatives such as prod and staging.

Forms (for 'from' policies): expanded is the full rule view with negations, as in
Kuma's MeshTrafficPermission MADR; when it would need more than ` + strconv.Itoa(kumaauthz.DefaultExpandBound) + ` rules
(tag combinations) it falls back to compact, an exactly equivalent form of
polynomial size, and says so.

When the manifests hold Linkerd (policy.linkerd.io) objects, preview also shows for
each Server the clients that may connect (identities, service accounts, networks,
unauthenticated) and the object that grants each, plus the default inbound policy for
pods and ports no Server covers: under "linkerd" in JSON and YAML, as a table with
-o table (or -o text, its name in every other command). See docs/linkerd.md, "Authorization preview".`,
		Example: `  meshguard preview examples/valid
  meshguard preview --form compact -o json policies/ | jq '.previews[].policies'
  meshguard preview -o table examples/linkerd/valid`,
		RunE: func(cmd *cobra.Command, args []string) error {
			eng, err := o.engine()
			if err != nil {
				return err
			}
			if len(args) == 0 {
				return usageErr("preview needs at least one PATH, or - for standard input")
			}
			if err := checkPaths(args); err != nil {
				return err
			}
			form := kumaauthz.Form(o.form)
			if err := checkEnum("form", o.form, formValues()); err != nil {
				return err
			}
			if err := checkOutput(o.output, previewFormats()); err != nil {
				return err
			}
			if o.output == string(formatText) {
				o.output = string(formatTable)
			}
			if err := checkLinkerd(o.linkerd); err != nil {
				return err
			}
			loaded := o.load(s, args)
			docs := loaded.Docs
			if err := lint.WriteNotes(s.err, loaded.Skipped); err != nil {
				return err
			}
			in := lint.Preview(docs, eng)
			printNotes(s, in.Notes)
			previews, err := kumaauthz.BuildPreviews(in.Policies, kumaauthz.Options{Form: form, SystemNamespace: o.settings.SystemNamespace, Identities: in.Identities})
			if err != nil {
				return err
			}
			printNotes(s, in.LinkerdNotes)
			var lk []linkerdauthz.Preview
			hasLinkerd := linkerdauthz.HasLinkerd(in.Linkerd)
			if hasLinkerd {
				lk = linkerdauthz.Build(in.Linkerd, o.linkerd)
			}
			if err := renderPreviews(s.out, o.output, previews, lk, hasLinkerd); err != nil {
				return err
			}
			if in.Unreadable {
				return exitError{exitUsage}
			}
			return nil
		},
	}
	o.bind(cmd)
	cmd.Flags().StringVar(&o.form, "form", defaultForm, "RBAC form for 'from' policies: "+oneOf(formValues()))
	bindOutput(cmd, &o.output, previewFormats()...)
	linkerdFlags(cmd.Flags(), &o.linkerd)
	return cmd
}

// renderPreviews writes the Kuma previews and, when the manifests hold Linkerd
// objects, the Linkerd authorization preview: JSON and YAML as one document
// {"previews": [...], "linkerd": {"servers": [...], "defaults": [...]}} (no
// "linkerd" key without Linkerd objects, so the Kuma shape is unchanged), table as a
// line per Kuma group followed by the Linkerd table.
func renderPreviews(w io.Writer, output string, previews []kumaauthz.Preview, lk []linkerdauthz.Preview, hasLinkerd bool) error {
	if output == "table" {
		for _, p := range previews {
			if _, err := fmt.Fprintf(w, "kuma %s: %s\n", p.Scope, strings.Join(p.Policies, ", ")); err != nil {
				return err
			}
		}
		if !hasLinkerd {
			return nil
		}
		if len(previews) > 0 {
			fmt.Fprintln(w)
		}
		return linkerdauthz.RenderTable(w, lk)
	}
	if !hasLinkerd {
		if output == "json" {
			return kumaauthz.RenderJSON(w, previews)
		}
		return kumaauthz.RenderYAML(w, previews)
	}
	kuma, err := kumaauthz.MarshalJSON(previews)
	if err != nil {
		return err
	}
	var doc struct {
		Previews json.RawMessage `json:"previews"`
		Linkerd  json.RawMessage `json:"linkerd"`
	}
	if err := json.Unmarshal(kuma, &doc); err != nil {
		return err
	}
	if doc.Linkerd, err = linkerdauthz.MarshalJSON(lk); err != nil {
		return err
	}
	b, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		return err
	}
	if output == "yaml" {
		if b, err = yaml.JSONToYAML(b); err != nil {
			return err
		}
	} else {
		b = append(b, '\n')
	}
	_, err = w.Write(b)
	return err
}

// printNotes writes the preview's notes about skipped documents to standard error.
func printNotes(s streams, notes []lint.Note) {
	for _, n := range notes {
		fmt.Fprintf(s.err, "%s:%d: %s\n", n.File, n.Line, n.Text)
	}
}

// previewFormats are preview's -o values, YAML first (the default); text is the
// table, under the name every other command uses for its human-readable form.
func previewFormats() []format {
	return []format{formatYAML, formatJSON, formatText, formatTable}
}
