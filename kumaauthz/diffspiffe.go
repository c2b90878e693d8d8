package kumaauthz

import (
	"fmt"
	"slices"
	"strings"

	"github.com/meshguard/meshguard/api"
	"github.com/meshguard/meshguard/internal/classes"
)

// The dimensions of the SPIFFE model.
var strDimNames = []string{"spiffeID", "sni", "method", "path"}

// strPred is a condition on one string dimension.
type strPred = classes.StrPred

// strClass is a class of a string dimension.
type strClass = classes.StrClass

type strDim struct{ classes []strClass }

func strClasses(preds []strPred) strDim { return strDim{classes: classes.StrClasses(preds)} }

// renderStr renders chosen classes of string dimension name.
func renderStr(name string, d strDim, ch []int) string {
	label := func(c strClass) string {
		switch c.Kind {
		case classes.StrPrefix:
			return c.Value + "*"
		case classes.StrOther:
			return "(any other)"
		}
		if c.Value == "" {
			return `""`
		}
		return c.Value
	}
	var in, out []string
	other := false
	for i, c := range d.classes {
		switch {
		case slices.Contains(ch, i) && c.Kind == classes.StrOther:
			other = true
		case slices.Contains(ch, i):
			in = append(in, label(c))
		case c.Kind != classes.StrOther:
			out = append(out, label(c))
		}
	}
	switch {
	case !other && len(in) == 1:
		return name + "=" + in[0]
	case !other:
		return name + " in (" + strings.Join(in, ", ") + ")"
	case len(out) == 1:
		return name + "!=" + out[0]
	case len(out) == 0:
		return name + ": any"
	}
	return name + " notin (" + strings.Join(out, ", ") + ")"
}

// matcherPreds are an entry's conditions per dimension of the SPIFFE model; ok is
// false for an entry Kuma programs nothing for (it matches no client).
func matcherPreds(e SpiffeEntry) (preds [4]*strPred, ok bool, err error) {
	if e.empty() {
		return preds, false, nil
	}
	conv := func(sm *api.StringMatch, what string) (*strPred, error) {
		if sm == nil {
			return nil, nil
		}
		switch sm.Type {
		case "Exact", "":
			return &strPred{Value: sm.Value}, nil
		case "Prefix":
			return &strPred{Prefix: true, Value: sm.Value}, nil
		}
		return nil, fmt.Errorf("%s %s: %s: unsupported match type %q (want Exact or Prefix)", e.Policy, e.Path, what, sm.Type)
	}
	sid, _ := e.Match.Spiffe()
	if preds[0], err = conv(sid, "spiffeID"); err != nil {
		return preds, false, err
	}
	if preds[1], err = conv(e.Match.SNI, "sni"); err != nil {
		return preds, false, err
	}
	if e.Match.Method != "" {
		preds[2] = &strPred{Value: e.Match.Method}
	}
	if preds[3], err = conv(e.Match.Path, "path"); err != nil {
		return preds, false, err
	}
	return preds, true, nil
}

// fromPreds are a `from` item's conditions in the SPIFFE model: a SPIFFE
// certificate carries no kuma:// tag URIs, so an item with tags matches no client;
// its service is the SPIFFE ID spiffe://mesh/service, its mesh the prefix
// spiffe://mesh/.
func fromPreds(c cItem) (preds [4]*strPred, ok bool) {
	for _, a := range c.atoms {
		switch a.kind {
		case atomTag:
			return preds, false
		case atomService:
			preds[0] = &strPred{Value: a.uri()}
		case atomMesh:
			if preds[0] == nil {
				preds[0] = &strPred{Prefix: true, Value: a.uri()}
			}
		}
	}
	return preds, true
}

// spiffeModel describes clients by SPIFFE ID and SNI, and requests by method and
// path, for groups where a side uses SPIFFE matchers.
func spiffeModel(o, n *listSide) (*classModel, error) {
	m := newClassModel(o, n)
	type pos struct {
		p     int
		preds [4]*strPred
	}
	var conds []pos
	for _, side := range []struct {
		s   *listSide
		off int
	}{{o, 0}, {n, m.newOff}} {
		for i, e := range side.s.entries {
			preds, ok, err := matcherPreds(e)
			if err != nil {
				return nil, err
			}
			if ok {
				conds = append(conds, pos{side.off + i, preds})
			}
		}
		for i, c := range side.s.cs {
			if preds, ok := fromPreds(c); ok {
				conds = append(conds, pos{side.off + i, preds})
			}
		}
	}
	for d, name := range strDimNames {
		var preds []strPred
		for _, c := range conds {
			if c.preds[d] != nil {
				preds = append(preds, *c.preds[d])
			}
		}
		sd := strClasses(preds)
		m.strDims = append(m.strDims, sd)
		m.addDim(len(sd.classes), func(ch []int) string { return renderStr(name, sd, ch) })
	}
	for _, c := range conds {
		classes.SetBit(m.start, c.p)
		for d, p := range c.preds {
			if p == nil {
				continue
			}
			m.lastDim[c.p] = d
			classes.SetBit(m.dims[d].Has, c.p)
			for v, cl := range m.strDims[d].classes {
				if p.Holds(cl.Witness) {
					classes.SetBit(m.dims[d].Vals[v], c.p)
				}
			}
		}
	}
	return m, nil
}
