// model.js reads the embedded map (or change of maps) into the rows, columns
// and cells the view draws. A row is one destination; a column is one class of
// clients (in a change, one pair of old and new classes), so every client of a
// column gets the same answer from every destination, and one lookup per row and
// column gives the cell. Nothing here touches the DOM.

var CLIENT_KINDS = ['workload', 'named', 'other-service', 'unauthenticated', 'other-mesh', 'network'];
var KIND_LABELS = {
  'workload': 'workloads', 'named': 'named by policies, no workload', 'other-service': 'other services',
  'unauthenticated': 'unauthenticated', 'other-mesh': 'another mesh', 'network': 'networks'
};

// cellIndex finds the answer of "destinationClass,clientClass": a cell answers
// the client classes it lists, or (others) every class no other cell of its
// destination class lists (map version 2, docs/map.md).
function cellIndex(m) {
  var listed = new Map(), others = new Map();
  ((m && m.cells) || []).forEach(function (c) {
    if (c.others) { others.set(c.destinationClass, c.answer); return; }
    (c.clientClasses || []).forEach(function (k) { listed.set(c.destinationClass + ',' + k, c.answer); });
  });
  return {
    get: function (key) {
      var a = listed.get(key);
      if (a !== undefined) { return a; }
      var d = key.slice(0, key.indexOf(',')), k = Number(key.slice(key.indexOf(',') + 1));
      return k >= 0 ? others.get(Number(d)) : undefined;
    }
  };
}

// namespaceOf is a peer's namespace, else the part of its ID before the slash.
function namespaceOf(id, peer) {
  if (peer && peer.namespace) { return peer.namespace; }
  var i = id.indexOf('/');
  return i > 0 ? id.slice(0, i) : '';
}

// collect merges the destinations (or clients) of both sides by ID, keeping
// each side's class (-1 where the ID is missing on that side).
function collect(list, maps) {
  var out = [], byID = new Map();
  maps.forEach(function (side) {
    ((side.map && side.map[list]) || []).forEach(function (d) {
      var e = byID.get(d.id);
      if (!e) {
        e = { id: d.id, kind: d.kind || 'workload', peer: d.peer || {}, newCls: -1, oldCls: -1 };
        byID.set(d.id, e);
        out.push(e);
      }
      e[side.field] = d['class'];
    });
  });
  return out;
}

function policyText(a) {
  if (!a) { return ''; }
  var s = (a.decidedBy && a.decidedBy.policy) || '';
  if (a.shadowDecidedBy) { s += ' ' + a.shadowDecidedBy.policy; }
  return s.toLowerCase();
}

// verdictOf is ALLOW, DENY or none (the map did not judge the pair).
function verdictOf(a) { return a ? a.decision : 'none'; }

function shadowDiffers(a) { return !!(a && a.shadowDecision && a.shadowDecision !== a.decision); }

// columns groups the clients into columns by class key, workloads first, then
// the kinds of callers that are not workloads of the input.
function columns(clients, keyOf) {
  var cols = [], colByKey = new Map();
  clients.forEach(function (c) {
    var key = keyOf(c);
    var col = colByKey.get(key);
    if (!col) {
      col = { key: key, kind: c.kind, members: [], newCls: c.newCls, oldCls: c.oldCls };
      colByKey.set(key, col);
      cols.push(col);
    }
    col.members.push(c);
  });
  var rank = function (k) { var i = CLIENT_KINDS.indexOf(k); return i < 0 ? CLIENT_KINDS.length : i; };
  cols = cols.map(function (c, i) { return [c, i]; })
    .sort(function (a, b) { return rank(a[0].kind) - rank(b[0].kind) || a[1] - b[1]; })
    .map(function (p) { return p[0]; });
  cols.forEach(function (col, i) {
    col.index = i;
    col.rep = col.members[0];
    col.text = col.members.map(function (m) { return m.id; }).join('\n').toLowerCase();
    col.changed = 0;
  });
  return cols;
}

function buildModel(kind, raw) {
  var change = kind === 'change';
  var newMap = change ? raw['new'] : raw;
  var oldMap = change ? raw.old : null;
  var sides = [{ map: newMap, field: 'newCls' }];
  if (change) { sides.push({ map: oldMap, field: 'oldCls' }); }
  var newIdx = cellIndex(newMap), oldIdx = cellIndex(oldMap);
  var keyOf = function (e) { return change ? e.newCls + '/' + e.oldCls : String(e.newCls); };

  var rows = collect('destinations', sides);
  rows.forEach(function (r, i) {
    r.index = i;
    r.ns = namespaceOf(r.id, r.peer);
    r.key = keyOf(r);
    r.text = (r.id + ' ' + (r.peer.workload || '') + ' ' + (r.peer.name || '')).toLowerCase();
  });

  var cols = columns(collect('clients', sides), keyOf);

  var changes = new Map();
  if (change) {
    (raw.changes || []).forEach(function (ch) { changes.set(ch.destination + '\n' + ch.client, ch); });
  }
  var counts = { pairs: 0, ALLOW: 0, DENY: 0, none: 0, shadow: 0, opened: 0, closed: 0, 'rule-changed': 0, 'shadow-changed': 0 };
  var rowsByKey = new Map();
  rows.forEach(function (r) {
    if (!rowsByKey.has(r.key)) { rowsByKey.set(r.key, []); }
    rowsByKey.get(r.key).push(r);
  });
  // The rows of one key share their cells: one object per key and column, so
  // the model grows with the classes, not with destinations times columns.
  rowsByKey.forEach(function (same) {
    var first = same[0], changed = 0;
    var cells = cols.map(function (col) {
      var c = { col: col, answer: newIdx.get(first.newCls + ',' + col.newCls) };
      if (change) {
        c.old = oldIdx.get(first.oldCls + ',' + col.oldCls);
        c.change = changes.get(first.id + '\n' + col.rep.id);
      }
      c.verdict = verdictOf(c.answer);
      c.shadow = shadowDiffers(c.answer);
      c.policies = policyText(c.answer) + (c.old ? ' ' + policyText(c.old) : '');
      var n = col.members.length * same.length;
      counts.pairs += n;
      counts[c.verdict] += n;
      if (c.shadow) { counts.shadow += n; }
      if (c.change) {
        changed++;
        col.changed += same.length;
        counts[c.change.kind] = (counts[c.change.kind] || 0) + n;
      }
      return c;
    });
    same.forEach(function (r) { r.cells = cells; r.changed = changed; });
  });
  return {
    kind: kind, change: change, mesh: (newMap && newMap.mesh) || '', rows: rows, cols: cols,
    rowsByKey: rowsByKey, counts: counts,
    notes: ((newMap && newMap.notes) || []).concat((oldMap && oldMap.notes) || [])
  };
}

// groupRows splits the rows into collapsible groups: by namespace, or by class
// (rows with the same answers everywhere).
function groupRows(model, rows, mode) {
  var groups = [], byKey = new Map();
  rows.forEach(function (r) {
    var key = mode === 'class' ? 'class ' + r.key : 'ns ' + r.ns;
    var g = byKey.get(key);
    if (!g) {
      g = { key: key, rows: [] };
      byKey.set(key, g);
      groups.push(g);
    }
    g.rows.push(r);
  });
  groups.forEach(function (g) {
    var first = g.rows[0];
    if (mode === 'class') {
      var all = model.rowsByKey.get(first.key).length;
      g.label = first.id + (all > 1 ? ' and ' + (all - 1) + ' more alike' : '');
    } else {
      g.label = first.ns || '(no namespace)';
    }
  });
  if (mode !== 'class') {
    groups.sort(function (a, b) { return a.label < b.label ? -1 : a.label > b.label ? 1 : 0; });
  }
  return groups;
}
