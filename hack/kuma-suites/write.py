import pickle, json, os, re, sys, shutil
sys.path.insert(0, '.')
out = pickle.load(open('out.pkl', 'rb'))
SRC = '../../validate/testdata/conformance/kuma-validators-2.14'
DST = '../../validate/testdata/conformance/kuma-validators-2.13'
shutil.rmtree(DST, ignore_errors=True); os.makedirs(DST)
def slug(s):
    w = re.sub(r'[^a-z0-9]+', '-', s.lower()).strip('-').split('-')
    o = ''
    for x in w:
        if len(o) + len(x) + 1 > 45 and o: break
        o = (o + '-' + x) if o else x
    return o
NEW = {
 ('meshmetric', 165): ('MeshMetric', 'invalid', ['spec.default.backends.backend[0].openTelemetry.endpoint'], ['must be a valid url'],
   'metrics-1', 'mesh-1', 'targetRef:\n  kind: MeshService\n  name: svc-1\ndefault:\n  backends:\n    - type: OpenTelemetry\n      openTelemetry:\n        endpoint: "asdasd123"\n'),
 ('meshmetric', 184): ('MeshMetric', 'invalid', ['spec.default.backends.backend[0].openTelemetry.endpoint'], ['must not use schema'],
   'metrics-1', 'mesh-1', 'targetRef:\n  kind: MeshService\n  name: svc-1\ndefault:\n  backends:\n    - type: OpenTelemetry\n      openTelemetry:\n        endpoint: "http://endpoint:8023"\n'),
 ('meshretry', 220): ('MeshRetry', 'invalid', ['spec.to'], ['needs at least one item'], None, 'default',
   'targetRef:\n  kind: MeshService\n  name: backend\nto: []\n'),
 ('meshtrace', 53): ('MeshTrace', 'valid', [], [], None, 'default',
   'targetRef:\n  kind: MeshService\n  name: backend\ndefault:\n  backends:\n    - type: OpenTelemetry\n      openTelemetry:\n        endpoint: otel-collector:4317\n'),
}
cases = []
for i, item in enumerate(out, 1):
    nnn = '%03d' % i
    if item[0] == 'NEW':
        _, f, e = item
        pol = f.split('/')[3]
        kind, expect, fields, msgs, name, mesh, spec = NEW[(pol, e['line'])]
        name = name or '%s-%s' % (pol, nnn)
        fn = '%s-%s-%s.yaml' % (nnn, pol, slug(e['desc']))
        text = '# Kuma v2.13.10 %s:%d: %s (Kuma: %s)\napiVersion: kuma.io/v1alpha1\nkind: %s\nmetadata:\n  name: %s\n  namespace: kuma-system\n  labels:\n    kuma.io/mesh: %s\nspec:\n%s' % (
            f, e['line'], json.dumps(e['desc']), expect, kind, name, mesh, ''.join('  ' + l + '\n' if l else '\n' for l in spec.rstrip('\n').split('\n')))
        c = {'file': fn, 'kind': kind, 'source': '%s:%d' % (f, e['line']), 'description': e['desc'], 'expect': expect, 'fields': fields, 'messages': msgs}
    else:
        c, text = item
        old = c['file']
        pol = old.split('-')[1]
        fn = nnn + old[3:]
        text = text.replace('name: %s-%s\n' % (pol, old[:3]), 'name: %s-%s\n' % (pol, nnn))
        if old.startswith('098-'):  # Kuma 2.13 also wants 'to'
            c['fields'] = c['fields'] + ['spec.to']; c['messages'] = c['messages'] + ['needs at least one item']
        if old.startswith('137-'):  # 2.13's testdata has no 14th appendMatch
            body = text.split('\n')
            k = body.index('      value: "*.hello@world"')
            text = '\n'.join(body[:k - 1] + body[k + 3:])
            c['fields'] = c['fields'][:-1]; c['messages'] = c['messages'][:-1]
        c['file'] = fn
        cases.append(c)
        open(os.path.join(DST, fn), 'w').write(text)
        continue
    cases.append(c)
    open(os.path.join(DST, fn), 'w').write(text)
v = sum(c['expect'] == 'valid' for c in cases)
print(len(cases), 'valid', v, 'invalid', len(cases) - v, 'violations', sum(len(c['fields']) for c in cases))
json.dump({'kuma': {'repository': 'https://github.com/kumahq/kuma', 'tag': 'v2.13.10'}, 'cases': cases, 'skipped': []},
          open(os.path.join(DST, 'cases.json'), 'w'), indent=1)
open(os.path.join(DST, 'cases.json'), 'a').write('\n')
