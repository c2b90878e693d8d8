package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/meshguard/meshguard/schema"
)

func newSchemaCmd(s streams) *cobra.Command {
	var dir, kumaVersion, linkerdVersion string
	cmd := &cobra.Command{
		Use:   "schema",
		Short: "Write JSON Schemas of every Kuma and Linkerd kind for editors and kubeconform",
		Long: `Schema writes a JSON Schema (draft-07) for every kind and version of the CRDs of
the selected Kuma release (--kuma-version) and Linkerd release (--linkerd-version,
its policy.linkerd.io kinds and the Gateway API routes it bundles) into --dir, as
<group>/<kind>_<version>.json (kind in lower case): the layout of the public CRDs
catalog, which kubeconform's -schema-location and yaml-language-server (VS Code's
YAML extension, Neovim, Helix) read. A kind the release does not serve gets no
file (Kuma 2.13 has no MeshOpenTelemetryBackend). A .meshguard.yaml's
kuma-version and linkerd-version select them too, so editors see the release the
repository pins.

The schemas say what the API server's schema check says: types, enums, patterns,
required fields, unknown fields. Kuma's and Linkerd's own rules and meshguard's
cross-document checks are meshguard lint's. See docs/integrations.md.`,
		Example: `  meshguard schema --dir schemas
  meshguard schema --dir schemas --kuma-version 2.13
  kubeconform -schema-location default -schema-location 'schemas/{{.Group}}/{{.ResourceKind}}_{{.ResourceAPIVersion}}.json' policies/
  # in a manifest: # yaml-language-server: $schema=../schemas/kuma.io/meshtimeout_v1alpha1.json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !schema.KnowsKuma(kumaVersion) {
				return usageErr("--kuma-version must be one of %s (got %q)", strings.Join(schema.KumaVersions(), ", "), kumaVersion)
			}
			if !schema.KnowsLinkerd(linkerdVersion) {
				return usageErr("--linkerd-version must be one of %s (got %q)", strings.Join(schema.LinkerdVersions(), ", "), linkerdVersion)
			}
			// The selected Kuma and Linkerd releases and the Gateway API bundle that
			// Linkerd release documents: one schema per kind and version.
			files, err := schema.JSONSchemas(schema.KumaRelease(kumaVersion), schema.LinkerdRelease(linkerdVersion),
				schema.GatewayAPIRelease(schema.GatewayAPIFor(linkerdVersion)))
			if err != nil {
				return err
			}
			for _, f := range files {
				p := filepath.Join(dir, filepath.FromSlash(f.Path))
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(p, f.Data, 0o644); err != nil {
					return err
				}
			}
			_, err = fmt.Fprintf(s.err, "meshguard: wrote %d JSON Schemas of kuma %s and linkerd %s to %s\n", len(files), kumaVersion, linkerdVersion, dir)
			return err
		},
	}
	cmd.Flags().StringVarP(&dir, "dir", "d", "schemas", "directory to write the schemas to (created)")
	cmd.Flags().StringVar(&kumaVersion, "kuma-version", schema.DefaultKumaVersion, "the Kuma release whose CRDs to convert ("+strings.Join(schema.KumaVersions(), ", ")+")")
	cmd.Flags().StringVar(&linkerdVersion, "linkerd-version", schema.DefaultLinkerdVersion, "the Linkerd release whose CRDs to convert ("+strings.Join(schema.LinkerdVersions(), ", ")+")")
	return cmd
}
