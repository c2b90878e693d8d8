package api

// MeshTrafficPermissionSpec is a MeshTrafficPermission as Kuma 2.14 stores it: either
// `from` (client groups by targetRef, each with an action; deprecated in Kuma 2.14) or
// `rules` (lists of spiffeID/sni matchers). Kuma's CRD has no top-level `default`;
// Default is the SPIFFE-matches MADR's spelling of one rule, which only the RBAC
// compiler's own examples still read (validation drops it, as the API server does).
type MeshTrafficPermissionSpec struct {
	TargetRef *TargetRef  `json:"targetRef,omitempty"`
	From      []MTPFrom   `json:"from,omitempty"`
	Rules     []MTPRule   `json:"rules,omitempty"`
	Default   *MTPMatches `json:"default,omitempty"`
}

// MTPFrom is one client group of a `from`-style MeshTrafficPermission.
type MTPFrom struct {
	TargetRef *TargetRef `json:"targetRef,omitempty"`
	Default   MTPConf    `json:"default"`
}

// MTPConf carries the action of a `from` item.
type MTPConf struct {
	Action string `json:"action,omitempty"`
}

// MTPRule is one element of Kuma's `spec.rules` for MeshTrafficPermission.
type MTPRule struct {
	Default MTPMatches `json:"default"`
}

// MTPMatches are the three matcher lists of a rule. Pointers distinguish an
// explicitly empty list from an absent one (Kuma treats both as "not defined").
type MTPMatches struct {
	Deny                *[]SpiffeMatch `json:"deny,omitempty"`
	AllowWithShadowDeny *[]SpiffeMatch `json:"allowWithShadowDeny,omitempty"`
	Allow               *[]SpiffeMatch `json:"allow,omitempty"`
}

// Empty reports whether no list has a matcher (Kuma: "at least one of 'allow',
// 'allowWithShadowDeny', 'deny' has to be defined").
func (m MTPMatches) Empty() bool {
	n := func(l *[]SpiffeMatch) int {
		if l == nil {
			return 0
		}
		return len(*l)
	}
	return n(m.Deny)+n(m.AllowWithShadowDeny)+n(m.Allow) == 0
}

// SpiffeMatch is one matcher: Kuma's `spiffeID` (the client's SPIFFE ID, from its
// certificate's URI SAN) and `sni` (the server name the client asked for in its TLS
// hello), both required when both are set. SpiffeId (the SPIFFE-matches MADR's
// spelling), Method and Path (its HTTP conditions) are not in Kuma's CRD, which drops
// them; only the RBAC compiler's own examples still use them.
type SpiffeMatch struct {
	SpiffeId *StringMatch `json:"spiffeId,omitempty"` //nolint:revive // the SPIFFE-matches MADR spelling
	SpiffeID *StringMatch `json:"spiffeID,omitempty"`
	SNI      *StringMatch `json:"sni,omitempty"`
	Method   string       `json:"method,omitempty"`
	Path     *StringMatch `json:"path,omitempty"`
}

// Spiffe returns the matcher's SPIFFE condition and the key it was written under.
func (m SpiffeMatch) Spiffe() (*StringMatch, string) {
	if m.SpiffeID != nil {
		return m.SpiffeID, "spiffeID"
	}
	if m.SpiffeId != nil {
		return m.SpiffeId, "spiffeId"
	}
	return nil, ""
}

// Top implements Targeted, so that the rules every policy shares run on
// MeshTrafficPermission too.
func (s *MeshTrafficPermissionSpec) Top() *TargetRef { return s.TargetRef }

// ToRefs implements Targeted: MeshTrafficPermission has no `to`.
func (s *MeshTrafficPermissionSpec) ToRefs() []*TargetRef { return nil }

// FromRefs implements Targeted.
func (s *MeshTrafficPermissionSpec) FromRefs() []*TargetRef {
	out := make([]*TargetRef, len(s.From))
	for i := range s.From {
		out[i] = s.From[i].TargetRef
	}
	return out
}

// HasConf implements Targeted: Kuma wants at least one `from` item or one rule.
func (s *MeshTrafficPermissionSpec) HasConf() bool { return len(s.From) > 0 || len(s.Rules) > 0 }

// Items implements Targeted: the from items and the rules, each with its default
// (MeshTrafficPermission's defaults are checked by its own rules, at Kuma's paths).
func (s *MeshTrafficPermissionSpec) Items() []PolicyItem {
	out := make([]PolicyItem, 0, len(s.From)+len(s.Rules))
	for i, it := range s.From {
		out = append(out, PolicyItem{Section: "from", Index: i, Ref: it.TargetRef, HasDefault: true})
	}
	for i := range s.Rules {
		out = append(out, PolicyItem{Section: "rules", Index: i, HasDefault: true})
	}
	return out
}

// HasDefault implements Targeted: MeshTrafficPermission has no single default (the
// CRD drops spec.default).
func (s *MeshTrafficPermissionSpec) HasDefault() bool { return false }
