# Extracts Kuma's policy validator test tables at a commit (the 3.0 preview's pin)
# straight from the test files, in the format of the 2.14 suite (its README): every
# Entry/ErrorCase/ErrorCases of the 16 test files the 2.14 suite reads, with the
# entry's YAML as spec and its expected violations. Three shapes of test exist:
#   - DescribeTable with testCase{inputYaml, expected} (expected: a YAML list of
#     violations) and a "should pass" table of Entry(desc, `yaml`);
#   - DescribeErrorCases/DescribeValidCases with ErrorCase(desc, Violation{...}, `yaml`),
#     ErrorCases(desc, []Violation{...}, `yaml`) and Entry(desc, `yaml`), whose YAML
#     starts with a Universal header (type, mesh, name);
#   - testCase{name, file} read from testdata/<file>.input.yaml and .output.yaml.
# Usage: python3 gen_pin.py COMMIT DST   (KUMA_GIT_DIR: a git directory of kumahq/kuma)
import json, os, re, sys, shutil
import yaml
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from entries import entries, show

PIN, DST = sys.argv[1], sys.argv[2]
FILES = [l.strip() for l in open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'pin_files.txt')) if l.strip()]
KINDS = {'meshaccesslog': 'MeshAccessLog', 'meshcircuitbreaker': 'MeshCircuitBreaker', 'meshfaultinjection': 'MeshFaultInjection',
         'meshhealthcheck': 'MeshHealthCheck', 'meshhttproute': 'MeshHTTPRoute', 'meshloadbalancingstrategy': 'MeshLoadBalancingStrategy',
         'meshmetric': 'MeshMetric', 'meshpassthrough': 'MeshPassthrough', 'meshproxypatch': 'MeshProxyPatch',
         'meshratelimit': 'MeshRateLimit', 'meshretry': 'MeshRetry', 'meshtcproute': 'MeshTCPRoute', 'meshtimeout': 'MeshTimeout',
         'meshtls': 'MeshTLS', 'meshtrace': 'MeshTrace', 'meshtrafficpermission': 'MeshTrafficPermission'}

# Go constants a test may spell a message with: pkg/core/validators/messages.go.
CONST = dict(re.findall(r'^\s*(\w+)\s*=\s*"((?:[^"\\]|\\.)*)"', show(PIN, 'pkg/core/validators/messages.go'), re.M))
CONST['HasToBeInPercentageRange'] = 'must be in inclusive range [0.0, 100.0]'
CONST['HasToBeInUintPercentageRange'] = 'must be in inclusive range [0, 100]'

GOSTR = r'`([^`]*)`|"((?:[^"\\]|\\.)*)"'


def gostr(m):
    return m.group(1) if m.group(1) is not None else json.loads('"' + m.group(2) + '"')


def message(expr):
    expr = expr.strip().rstrip(',')
    m = re.fullmatch(GOSTR, expr)
    if m:
        return gostr(m)
    m = re.fullmatch(r'validators\.(\w+)', expr)
    if m and m.group(1) in CONST:
        return CONST[m.group(1)]
    raise ValueError('message ' + expr)


def violations(block):
    out = []
    for m in re.finditer(r'Field:\s*(?:' + GOSTR + r')\s*,\s*Message:\s*([^\n]+)', block):
        f = m.group(1) if m.group(1) is not None else json.loads('"' + m.group(2) + '"')
        out.append((f, message(m.group(3))))
    return out


def slug(s):
    w = re.sub(r'[^a-z0-9]+', '-', s.lower()).strip('-').split('-')
    o = ''
    for x in w:
        if len(o) + len(x) + 1 > 40 and o:
            break
        o = (o + '-' + x) if o else x
    return o


def case_of(f, e):
    """The case of one entry: (spec yaml, expect, fields, messages, header, data)."""
    block, pol = e['block'], f.split('/')[3]
    data = []
    head = block.split('`', 1)[0]  # the call up to its first YAML string
    m = re.search(r'file:\s*"([^"]+)"', block) if 'testCase{' in block.split(')', 1)[0] else None
    if m:  # a testdata case
        base = os.path.dirname(f) + '/testdata/' + m.group(1)
        spec = show(PIN, base + '.input.yaml')
        out = show(PIN, base + '.output.yaml')
        data = [base + '.input.yaml'] + ([base + '.output.yaml'] if out else [])
        vs = (yaml.safe_load(out) or {}).get('violations') or [] if out else []
        name = re.search(r'name:\s*"([^"]+)"', block)
        return spec, vs and 'invalid' or 'valid', [v['field'] for v in vs], [v['message'] for v in vs], \
            {'name': name.group(1) if name else None, 'mesh': 'default'}, data
    if 'testCase{' in head:
        spec = re.search(r'inputYaml:\s*`([^`]*)`', block).group(1)
        exp = re.search(r'expected:\s*(fmt\.Sprintf\()?`([^`]*)`((?:\s*,\s*validators\.\w+)*)', block)
        text = exp.group(2) if exp else ''
        if exp and exp.group(1):  # fmt.Sprintf(`...%s...`, validators.X, ...)
            text = text % tuple(message(a) for a in exp.group(3).split(',')[1:])
        vs = (yaml.safe_load(text) or {}).get('violations') or []
        return spec, vs and 'invalid' or 'valid', [v['field'] for v in vs], [v['message'] for v in vs], {}, data
    strs = re.findall(r'`([^`]*)`', block)
    if block.lstrip().startswith(('ErrorCase(', 'ErrorCases(')):
        vs = violations(block)
        return strs[-1], 'invalid', [v[0] for v in vs], [v[1] for v in vs], {}, data
    return strs[0], 'valid', [], [], {}, data


def manifest(f, e, c, nnn):
    spec, expect, fields, msgs, head, data = c
    pol = f.split('/')[3]
    doc = yaml.safe_load(spec) or {}
    kind, mesh, name = KINDS[pol], head.get('mesh', 'default'), head.get('name')
    lines = spec.strip('\n').split('\n')
    body = []
    for l in lines:
        m = re.match(r'^(type|mesh|name):\s*(\S+)\s*$', l)
        if m:
            if m.group(1) == 'mesh':
                mesh = m.group(2)
            elif m.group(1) == 'name':
                name = m.group(2)
            continue
        body.append(l)
    name = name or '%s-%s' % (pol, nnn)
    src = '%s:%d' % (f, e['line']) + (' (input %s)' % data[0] if data else '')
    text = '# Kuma %s %s: %s (Kuma: %s)\napiVersion: kuma.io/v1alpha1\nkind: %s\nmetadata:\n  name: %s\n  namespace: kuma-system\n  labels:\n    kuma.io/mesh: %s\nspec:\n%s' % (
        PIN[:12], src, json.dumps(e['desc']), expect, kind, name, mesh,
        ''.join('  ' + l + '\n' if l.strip() else '\n' for l in body))
    # The parsed spec must be the parsed YAML less the Universal header.
    want = {k: v for k, v in doc.items() if k not in ('type', 'mesh', 'name')} if isinstance(doc, dict) else doc
    got = yaml.safe_load(text)['spec']
    assert (got or {}) == (want or {}), (f, e['line'], got, want)
    c = {'file': '%s-%s-%s.yaml' % (nnn, pol, slug(e['desc'])), 'kind': kind, 'source': '%s:%d' % (f, e['line']),
         'description': e['desc'], 'expect': expect, 'fields': fields, 'messages': msgs}
    if data:
        c['data'] = data
    return c, text


shutil.rmtree(DST, ignore_errors=True)
os.makedirs(DST)
cases, n = [], 0
for f in FILES:
    for e in entries(PIN, f):
        n += 1
        nnn = '%03d' % n
        c, text = manifest(f, e, case_of(f, e), nnn)
        cases.append(c)
        open(os.path.join(DST, c['file']), 'w').write(text)
v = sum(c['expect'] == 'valid' for c in cases)
print(len(cases), 'valid', v, 'invalid', len(cases) - v, 'violations', sum(len(c['fields']) for c in cases))
json.dump({'kuma': {'repository': 'https://github.com/kumahq/kuma', 'commit': PIN}, 'cases': cases, 'skipped': []},
          open(os.path.join(DST, 'cases.json'), 'w'), indent=1)
open(os.path.join(DST, 'cases.json'), 'a').write('\n')
