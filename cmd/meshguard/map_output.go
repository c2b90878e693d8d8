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
// format asked; the renderers are access's, html the map page's. The map's JSON
// is streamed cell by cell (access.Map.WriteJSON), so a map of hundreds of
// thousands of cells is never one buffer in memory.
func writeMap(s streams, output, by string, m *access.Map) error {
	if by == "namespace" {
		return writeMapView(s.out, output, m.ByNamespace(), nil, nil)
	}
	return writeMapView(s.out, output, m, m.WriteJSON, func(w io.Writer) error { return writeMapHTML(w, m) })
}

// writeMapChange writes what a change does to the map.
func writeMapChange(s streams, output string, c *access.MapChange) error {
	return writeMapView(s.out, output, c, nil, func(w io.Writer) error { return writeMapChangeHTML(w, c) })
}

// mapView is what every rendering of a map has (the map, its by-namespace
// aggregation, a change): one switch over the formats serves them all.
type mapView interface {
	WriteText(io.Writer) error
	WriteCSV(io.Writer) error
	WriteMarkdown(io.Writer) error
	WriteDot(io.Writer) error
}

// writeMapView writes v in the format asked: JSON by asJSON, or writeData when
// nil; HTML by asHTML, or text when v has no page.
func writeMapView(w io.Writer, output string, v mapView, asJSON, asHTML func(io.Writer) error) error {
	switch format(output) {
	case formatJSON:
		if asJSON != nil {
			return asJSON(w)
		}
		return writeData(w, output, v)
	case formatYAML:
		return writeData(w, output, v)
	case formatCSV:
		return v.WriteCSV(w)
	case formatMarkdown:
		return v.WriteMarkdown(w)
	case formatDot:
		return v.WriteDot(w)
	case formatHTML:
		if asHTML != nil {
			return asHTML(w)
		}
	}
	return v.WriteText(w)
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
