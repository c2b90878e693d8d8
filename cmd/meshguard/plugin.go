package main

import (
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
)

// pluginName is the file name kubectl looks for on PATH to run `kubectl meshguard`.
const pluginName = "kubectl-meshguard"

// invokedAs names the command the user typed, from argv[0]: "kubectl meshguard"
// when the binary is installed as the kubectl plugin (krew or a copy on PATH),
// "meshguard" otherwise.
func invokedAs(argv0 string) string {
	base := filepath.Base(argv0)
	if i := strings.LastIndexByte(base, '\\'); i >= 0 { // a Windows path, read anywhere
		base = base[i+1:]
	}
	base = strings.TrimSuffix(base, ".exe")
	if base == pluginName {
		return "kubectl meshguard"
	}
	return "meshguard"
}

// displayAs makes root's help, usage lines and examples name the command as name:
// cobra's display-name annotation covers usage lines and "Use ... --help", and the
// lines of Long and Example that begin with "meshguard " are rewritten.
func displayAs(root *cobra.Command, name string) {
	if name == "meshguard" || name == "" {
		return
	}
	if root.Annotations == nil {
		root.Annotations = map[string]string{}
	}
	root.Annotations[cobra.CommandDisplayNameAnnotation] = name
	lineStart := regexp.MustCompile(`(?m)^(\s*)meshguard `)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Long = lineStart.ReplaceAllString(c.Long, "${1}"+name+" ")
		c.Example = lineStart.ReplaceAllString(c.Example, "${1}"+name+" ")
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
