// Package mapview renders the access map (`meshguard map -o html`) as one
// self-contained HTML page: the matrix of destinations against client classes,
// filters, a search box, and for any cell the explanation `check` gives. The
// page carries the map's JSON, its stylesheet and its script inline and loads
// nothing (a Content-Security-Policy forbids every request), so it works from a
// CI artifact or an e-mail attachment. It reads only access's map model, so the
// engines that build maps and this renderer do not depend on each other.
package mapview

import (
	"bytes"
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"

	"github.com/meshguard/meshguard/access"
)

//go:embed assets/page.html
var pageHTML string

//go:embed assets/page.css
var pageCSS string

//go:embed assets/model.js
var modelJS string

//go:embed assets/view.js
var viewJS string

//go:embed assets/columns.js
var columnsJS string

//go:embed assets/explain.js
var explainJS string

// page is what the template fills in. The stylesheet and the script are
// inserted verbatim and pinned by their SHA-256 in the page's
// Content-Security-Policy, so no other script or style can run or load.
type page struct {
	Title string
	// Kind is "map" or "change": how the script reads Data.
	Kind   string
	Data   template.JS
	CSS    template.CSS
	Script template.JS
	CSP    string
}

// WriteMap writes the HTML page of one map: what `meshguard map -o html`
// prints.
func WriteMap(w io.Writer, m *access.Map) error {
	if m == nil {
		return errors.New("mapview: no map to render")
	}
	if err := checkVersion("map", m.Version); err != nil {
		return err
	}
	return write(w, "map", "meshguard access map ("+meshName(m.Mesh)+")", m)
}

// WriteChange writes the HTML page of a change between two maps (`meshguard
// map OLD NEW -o html`): the new map with the cells that open, close or change
// their deciding rule highlighted, and a "changed only" filter.
func WriteChange(w io.Writer, c *access.MapChange) error {
	if c == nil || c.Old == nil || c.New == nil {
		return errors.New("mapview: a change needs both maps (old and new)")
	}
	if err := checkVersion("change", c.Version); err != nil {
		return err
	}
	for side, m := range map[string]*access.Map{"old": c.Old, "new": c.New} {
		if err := checkVersion(side+" map", m.Version); err != nil {
			return err
		}
	}
	return write(w, "change", "meshguard access map change ("+meshName(c.New.Mesh)+")", c)
}

// checkVersion refuses a JSON shape the page's script was not written for.
func checkVersion(what string, v int) error {
	if v != access.MapVersion {
		return fmt.Errorf("mapview: %s version %d, this renderer reads version %d", what, v, access.MapVersion)
	}
	return nil
}

func meshName(m string) string {
	if m == "" {
		return "no mesh"
	}
	return m
}

func write(w io.Writer, kind, title string, data any) error {
	js, err := embedJSON(data)
	if err != nil {
		return err
	}
	script := "(function () {\n'use strict';\n" + modelJS + "\n" + viewJS + "\n" + columnsJS + "\n" + explainJS + "\n})();\n"
	p := page{
		Title:  title,
		Kind:   kind,
		Data:   template.JS(js),
		CSS:    template.CSS(pageCSS),
		Script: template.JS(script),
		CSP: "default-src 'none'; script-src '" + hash(script) + "'; style-src '" + hash(pageCSS) +
			"'; img-src data:; base-uri 'none'; form-action 'none'",
	}
	t, err := template.New("page").Parse(pageHTML)
	if err != nil {
		return fmt.Errorf("mapview: the page template: %w", err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, p); err != nil {
		return fmt.Errorf("mapview: rendering the page: %w", err)
	}
	_, err = w.Write(b.Bytes())
	return err
}

// embedJSON marshals data for a <script type="application/json"> element.
// encoding/json writes <, > and & as \u003c, \u003e and \u0026 and escapes
// U+2028 and U+2029, so no name in the map (a policy called "</script>…") can
// end the element or start markup, and JSON.parse reads back the same strings.
func embedJSON(data any) (string, error) {
	b, err := json.Marshal(data)
	if err != nil {
		return "", fmt.Errorf("mapview: encoding the map: %w", err)
	}
	if bytes.ContainsAny(b, "<>") {
		return "", errors.New("mapview: the encoded map still holds < or >")
	}
	return string(b), nil
}

// hash is a CSP source for an inline element whose text is s.
func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return "sha256-" + base64.StdEncoding.EncodeToString(sum[:])
}
