package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"

	"github.com/meshguard/meshguard/linkerdauthz"
)

// configNames are the file names a repository pins meshguard's settings in, looked
// for in this order in each directory.
var configNames = []string{".meshguard.yaml", ".meshguard.yml"}

// configExtraKeys are the keys .meshguard.yaml takes beside the settings flags
// (settingsFlags) and Linkerd's installation flags (linkerdFlags): how findings
// are judged, which a repository pins so that CI, pre-commit and editors agree.
var configExtraKeys = []string{"unknown-fields", "fail-on", "ignore-file"}

// configPathKeys are the keys whose value is a file, read relative to the
// configuration file's directory (as golangci-lint reads its paths).
var configPathKeys = map[string]bool{"ignore-file": true}

// configFile is a .meshguard.yaml: where it is and what it sets, by flag name.
type configFile struct {
	Path string
	// Values are the flag values, in the file's order; a list is several values.
	Values []configValue
}

type configValue struct {
	Key    string
	Line   int
	Values []string
}

// configKeys are the keys .meshguard.yaml accepts: the flag names of the settings
// every door shares, read from settingsFlags and linkerdFlags themselves (a
// settings flag added there is a key here), and configExtraKeys.
func configKeys() map[string]bool {
	fs := pflag.NewFlagSet("config", pflag.ContinueOnError)
	var o serveOptions
	settingsFlags(fs, &o.Settings)
	var l linkerdauthz.Options
	linkerdFlags(fs, &l)
	keys := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) { keys[f.Name] = true })
	for _, k := range configExtraKeys {
		keys[k] = true
	}
	return keys
}

// findConfig looks for .meshguard.yaml as golangci-lint looks for its
// configuration: in dir, then in each parent, up to the repository root (the
// first directory with a .git) or the filesystem root. "" when there is none.
func findConfig(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		for _, n := range configNames {
			p := filepath.Join(dir, n)
			if st, err := os.Stat(p); err == nil && !st.IsDir() {
				return p, nil
			}
		}
		if _, err := os.Stat(filepath.Join(dir, ".git")); err == nil {
			return "", nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", nil
		}
		dir = parent
	}
}

// readConfig reads and strictly decodes a configuration file: a mapping of known
// keys to scalars (or lists of scalars); anything else is an error naming the file
// and line.
func readConfig(path string) (*configFile, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("--config %s: no such file", path)
		}
		return nil, err
	}
	cf := &configFile{Path: path}
	var doc yaml.Node
	if err := yaml.NewDecoder(bytes.NewReader(raw)).Decode(&doc); err != nil {
		if err.Error() == "EOF" {
			return cf, nil // an empty file sets nothing
		}
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) == 1 {
		root = root.Content[0]
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d: want a mapping of settings (kuma-version: \"2.13\", mode: zone, ...)", path, root.Line)
	}
	keys := configKeys()
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if !keys[k.Value] {
			return nil, fmt.Errorf("%s:%d: unknown key %q; the keys are %s", path, k.Line, k.Value, strings.Join(sortedKeys(keys), ", "))
		}
		if first, ok := seen[k.Value]; ok {
			return nil, fmt.Errorf("%s:%d: %s is already set on line %d", path, k.Line, k.Value, first)
		}
		seen[k.Value] = k.Line
		vals, err := scalars(v)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %v", path, v.Line, k.Value, err)
		}
		if configPathKeys[k.Value] {
			for j, p := range vals {
				if p != "" && !filepath.IsAbs(p) {
					vals[j] = filepath.Join(filepath.Dir(path), p)
				}
			}
		}
		cf.Values = append(cf.Values, configValue{Key: k.Value, Line: k.Line, Values: vals})
	}
	return cf, nil
}

// scalars is a scalar node's value, or a sequence of scalars' values.
func scalars(n *yaml.Node) ([]string, error) {
	switch n.Kind {
	case yaml.ScalarNode:
		return []string{n.Value}, nil
	case yaml.SequenceNode:
		out := make([]string, 0, len(n.Content))
		for _, c := range n.Content {
			if c.Kind != yaml.ScalarNode {
				return nil, errors.New("want a value or a list of values")
			}
			out = append(out, c.Value)
		}
		return out, nil
	}
	return nil, errors.New("want a value or a list of values")
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// apply sets on fs every value of the file whose flag the command has and the
// command line did not set: flags override the file. A value set this way counts
// as given (pflag's Changed), so detection from a cluster does not override it.
func (cf *configFile) apply(fs *pflag.FlagSet) error {
	for _, v := range cf.Values {
		f := fs.Lookup(v.Key)
		if f == nil || f.Changed {
			continue
		}
		for _, val := range v.Values {
			if err := fs.Set(v.Key, val); err != nil {
				return fmt.Errorf("%s:%d: %s: %v", cf.Path, v.Line, v.Key, err)
			}
		}
	}
	return nil
}

// configOptions are the root's --config and --no-config, and the file they led to.
type configOptions struct {
	path   string
	none   bool
	loaded *configFile
}

// bind adds --config and --no-config to every command.
func (c *configOptions) bind(root *cobra.Command) {
	pf := root.PersistentFlags()
	pf.StringVar(&c.path, "config", "", "read settings from this file instead of the .meshguard.yaml found in the current directory or a parent (up to the repository root)")
	pf.BoolVar(&c.none, "no-config", false, "read no .meshguard.yaml")
}

// locate is the configuration file the command reads: --config, else the one
// found from the current directory; "" with --no-config or when there is none.
func (c *configOptions) locate() (string, error) {
	switch {
	case c.none && c.path != "":
		return "", usageErr("give either --config or --no-config, not both")
	case c.none:
		return "", nil
	case c.path != "":
		return c.path, nil
	}
	return findConfig(".")
}

// load reads the configuration file and sets its values on cmd's flags that the
// command line left alone (a PersistentPreRunE of the root).
func (c *configOptions) load(cmd *cobra.Command) error {
	if n := cmd.Name(); n == "completion" || strings.HasPrefix(n, "__complete") || (cmd.Parent() != nil && cmd.Parent().Name() == "completion") {
		return nil
	}
	path, err := c.locate()
	if err != nil || path == "" {
		return err
	}
	cf, err := readConfig(path)
	if err != nil {
		return err
	}
	c.loaded = cf
	return cf.apply(cmd.Flags())
}

// describe is the line `meshguard version` and --help print about the file.
func (c *configOptions) describe() string {
	path, err := c.locate()
	switch {
	case err != nil:
		return "config: " + err.Error()
	case path == "" && c.none:
		return "config: none (--no-config)"
	case path == "":
		return "config: none (no .meshguard.yaml here or in a parent up to the repository root)"
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	return "config: " + path
}
