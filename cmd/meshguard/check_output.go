package main

import (
	"encoding/json"
	"io"

	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/access"
)

// writeCheck prints the answer as text, JSON or YAML (the JSON as YAML).
func writeCheck(w io.Writer, output string, r access.Answer) error {
	if output == string(formatYAML) {
		b, err := yaml.Marshal(r)
		if err != nil {
			return err
		}
		_, err = w.Write(b)
		return err
	}
	if output == string(formatJSON) {
		b, err := json.MarshalIndent(r, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	}
	return r.WriteText(w)
}
