package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/meshguard/meshguard/access"
	"github.com/meshguard/meshguard/lint"
)

// writeMap writes the map (or, with --by namespace, its aggregation) in the
// format asked; the renderers are access's, html the map page's.
func writeMap(s streams, output, by string, m *access.Map) error {
	if by == "namespace" {
		ns := m.ByNamespace()
		switch format(output) {
		case formatJSON, formatYAML:
			return writeData(s.out, output, ns)
		case formatCSV:
			return ns.WriteCSV(s.out)
		case formatMarkdown:
			return ns.WriteMarkdown(s.out)
		case formatDot:
			return ns.WriteDot(s.out)
		}
		return ns.WriteText(s.out)
	}
	switch format(output) {
	case formatJSON:
		return writeMapJSON(s.out, m)
	case formatYAML:
		return writeData(s.out, output, m)
	case formatCSV:
		return m.WriteCSV(s.out)
	case formatMarkdown:
		return m.WriteMarkdown(s.out)
	case formatDot:
		return m.WriteDot(s.out)
	case formatHTML:
		return writeMapHTML(s.out, m)
	}
	return m.WriteText(s.out)
}

// writeMapChange writes what a change does to the map.
func writeMapChange(s streams, output string, c *access.MapChange) error {
	switch format(output) {
	case formatJSON, formatYAML:
		return writeData(s.out, output, c)
	case formatCSV:
		return c.WriteCSV(s.out)
	case formatMarkdown:
		return c.WriteMarkdown(s.out)
	case formatDot:
		return c.WriteDot(s.out)
	case formatHTML:
		return writeMapChangeHTML(s.out, c)
	}
	return c.WriteText(s.out)
}

// writeData writes v as indented JSON or as YAML.
func writeData(w io.Writer, output string, v any) error {
	var b []byte
	var err error
	if output == string(formatYAML) {
		b, err = yaml.Marshal(v)
	} else {
		b, err = json.MarshalIndent(v, "", "  ")
		b = append(b, '\n')
	}
	if err != nil {
		return err
	}
	_, err = w.Write(b)
	return err
}

// writeMapJSON writes the map as json.MarshalIndent would, cell by cell, so a
// map of hundreds of thousands of cells is never one buffer in memory.
func writeMapJSON(w io.Writer, m *access.Map) error { return m.WriteJSON(w) }

// mapFileFormat is the format a map file's extension names ("" for none).
func mapFileFormat(ext string) format {
	switch strings.ToLower(ext) {
	case ".json":
		return formatJSON
	case ".yaml", ".yml":
		return formatYAML
	case ".csv":
		return formatCSV
	case ".md", ".markdown":
		return formatMarkdown
	case ".dot", ".gv":
		return formatDot
	case ".html", ".htm":
		return formatHTML
	}
	return ""
}

// writeMapFile maps what was loaded (for audit --map) and writes the map to
// path, in the format its extension names (text otherwise).
func writeMapFile(s streams, o *mapOptions, loaded lint.Loaded, path string) error {
	mesh, err := o.mesh(loaded.Docs)
	if err != nil {
		return fmt.Errorf("--map: %w", err)
	}
	m, err := o.build(s, loaded, mesh)
	if err != nil {
		return fmt.Errorf("--map: %w", err)
	}
	f := mapFileFormat(filepath.Ext(path))
	if f == "" {
		f = formatText
	}
	var b bytes.Buffer
	if err := writeMap(streams{out: &b, err: s.err}, string(f), "destination", m); err != nil {
		return fmt.Errorf("--map: %w", err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("--map: %w", err)
	}
	fmt.Fprintf(s.err, "meshguard audit: wrote the %s access map (%d destinations, %d clients) to %s\n", mesh, len(m.Destinations), len(m.Clients), path)
	return nil
}
