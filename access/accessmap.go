package access

// The access map (`meshguard map`): every destination of the input against
// every client class, with the answer `check` gives for each pair. Destinations
// with identical rows and clients with identical columns share a class, and a
// cell is stored once per (destination class, client class), so the map grows
// with the number of distinct classes, not with workloads²; a cell stands for
// every client class of one destination class that gets one answer (version 2),
// so the map's size follows the distinct answers of each row. Every renderer
// (csv, json, markdown, dot, html) reads this one model; its JSON is documented
// in docs/map.md — change it only compatibly and bump MapVersion when not.

// MapVersion is the JSON shape's version, written as Map.Version. Version 2
// (issue 31) groups a row's client classes by answer in one cell
// (MapCell.ClientClasses, MapCell.Others) where version 1 had a cell per class
// pair; docs/map.md says how a reader expands a cell.
const MapVersion = 2

// Kinds of MapClient: a workload of the input, or a class of callers that no
// workload of the input stands for.
const (
	ClientWorkload        = "workload"
	ClientUnauthenticated = "unauthenticated"
	ClientOtherMesh       = "other-mesh"
	ClientNetwork         = "network"
	// ClientOtherService is a caller of the mesh whose service no workload of
	// the input has (Kuma).
	ClientOtherService = "other-service"
	// ClientNamed is an identity the policies name (Kuma: a `from` item's
	// tags or an Exact SPIFFE ID; Linkerd: a ServiceAccount or identity) that
	// no workload of the input presents.
	ClientNamed = "named"
)

// Map is the access matrix of one mesh's input.
type Map struct {
	Version int `json:"version"`
	// Mesh is "kuma" or "linkerd".
	Mesh         string           `json:"mesh"`
	Destinations []MapDestination `json:"destinations"`
	Clients      []MapClient      `json:"clients"`
	// Cells holds one cell per (destination class, client class) pair; a pair
	// missing here was not judged (Notes says why).
	Cells []MapCell `json:"cells"`
	// Notes says what the map could not judge or assumed (a bound reached, a
	// workload without a port).
	Notes []string `json:"notes,omitempty"`
}

// MapDestination is one row: a destination proxy (Kuma Dataplane or workload;
// Linkerd workload) and port.
type MapDestination struct {
	// ID is stable across runs of the same input ("ns/workload:port", or
	// "mesh/dataplane:port" in Universal), so a change between two maps and a
	// link in the HTML can name a row.
	ID   string `json:"id"`
	Peer Peer   `json:"peer"`
	// Class is the index of the row's class: rows with the same class have the
	// same verdict and deciding rule for every client.
	Class int `json:"class"`
}

// MapClient is one column: a client identity of the input or a class of
// callers that is not a workload (Kind).
type MapClient struct {
	ID   string `json:"id"`
	Kind string `json:"kind"`
	Peer Peer   `json:"peer"`
	// Class is the index of the column's class, as MapDestination.Class.
	Class int `json:"class"`
}

// MapCell is the answer for every destination of class DestinationClass
// against every client of the classes ClientClasses (or, when Others is set,
// of every client class no other cell of that destination class lists):
// `check`'s answer for the first destination of the destination class, the
// decision and deciding items holding for every such pair. A row's client
// classes are grouped by answer because most of a row repeats one answer (its
// policies name a few callers, every other client is denied alike): the map
// then grows with the distinct answers of each row, not with destination
// classes × client classes (issue 31: 999 × 1,983 class pairs of a
// 2,000-workload mesh are a few thousand cells).
type MapCell struct {
	DestinationClass int `json:"destinationClass"`
	// ClientClasses are the client classes the cell answers, ascending; empty
	// when Others is set.
	ClientClasses []int `json:"clientClasses,omitempty"`
	// Others marks the row's default: it answers every client class of the
	// map that no other cell of its destination class lists (at most one such
	// cell per destination class).
	Others bool `json:"others,omitempty"`
	// Answer is the cell's answer without its client (Answer.Client is empty:
	// a pair's client is the client's own Peer, see Map.PairAnswer); cells
	// may share it, so change it only through a copy.
	Answer *Answer `json:"answer"`
}

// Kinds of MapCellChange.// Kinds of MapCellChange.
const (
	CellOpened = "opened"
	CellClosed = "closed"
	CellRule   = "rule-changed"
	CellShadow = "shadow-changed"
)

// MapChange is what a change of input does to the map (`meshguard map OLD NEW`):
// both maps whole, and the cells that open, close, or keep their verdict under
// another deciding rule, by destination and client ID.
type MapChange struct {
	Version int             `json:"version"`
	Old     *Map            `json:"old"`
	New     *Map            `json:"new"`
	Changes []MapCellChange `json:"changes"`
}

// MapCellChange is one destination/client pair whose cell changed. A pair
// whose destination or client exists on one side only compares against that
// side's answer and a missing one (Old or New nil).
type MapCellChange struct {
	Kind        string  `json:"kind"`
	Destination string  `json:"destination"`
	Client      string  `json:"client"`
	Old         *Answer `json:"old,omitempty"`
	New         *Answer `json:"new,omitempty"`
}

// Cell returns the cell of destination d and client c, and whether the map
// judged that pair (one pair: for many, CellsByClass).
func (m *Map) Cell(d MapDestination, c MapClient) (MapCell, bool) {
	if cell := m.CellsByClass().At(d.Class, c.Class); cell != nil {
		return *cell, true
	}
	return MapCell{}, false
}
