#!/usr/bin/env python3
"""Collect real Kubernetes-format manifests of Kuma 2.14's kinds into
validate/testdata/conformance/kuma-manifests-2.14/ (see the README there).

Usage (from the repository root; both repositories are plain git mirrors, no work tree):

    hack/kuma-manifests/extract.py KUMA_GIT_DIR WEBSITE_GIT_DIR [WEBSITE_COMMIT]

It reads Kuma at tag v2.14.3 and kuma-website at WEBSITE_COMMIT (default HEAD), writes one
file per object into a fresh staging directory, runs every object through Kuma 2.14's
CRDs (hack/crdcheck) and keeps those the CRDs accept; the refused ones go
to refused-by-crd.txt with the API server's reason. Nothing but data is taken: YAML
documents, unchanged except where the README says.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

import yaml

KUMA_TAG = "v2.14.3"
TARGET = (2, 14)
OUT = "validate/testdata/conformance/kuma-manifests-2.14"
KINDS = {
    "MeshAccessLog", "MeshCircuitBreaker", "MeshFaultInjection", "MeshHealthCheck",
    "MeshHTTPRoute", "MeshLoadBalancingStrategy", "MeshMetric", "MeshPassthrough",
    "MeshProxyPatch", "MeshRateLimit", "MeshRetry", "MeshTCPRoute", "MeshTimeout", "MeshTLS",
    "MeshTrace", "MeshTrafficPermission", "Mesh", "MeshService", "MeshExternalService",
    "MeshMultiZoneService", "MeshGateway", "MeshGatewayRoute", "MeshGatewayInstance",
    "MeshGatewayConfig", "MeshIdentity", "MeshTrust", "HostnameGenerator",
    "MeshOpenTelemetryBackend", "MeshZoneAddress", "Workload", "Dataplane",
}


def git(repo, *args):
    return subprocess.run(["git", "-C", repo, *args], check=True, capture_output=True,
                          text=True).stdout


def ls(repo, ref, prefix=""):
    return git(repo, "ls-tree", "-r", "--name-only", ref, *([prefix] if prefix else [])).split("\n")


def show(repo, ref, path):
    return git(repo, "show", f"{ref}:{path}")


def docs_of(text):
    """The YAML documents of text, or [] when it does not parse."""
    try:
        return [d for d in yaml.safe_load_all(text) if d is not None]
    except yaml.YAMLError:
        return []


def is_kuma(d):
    return (isinstance(d, dict) and d.get("apiVersion") == "kuma.io/v1alpha1"
            and d.get("kind") in KINDS and isinstance(d.get("metadata"), dict))


# Manifests of the sources that the CRDs accept but Kuma 2.14 itself refuses (its
# validators or admission), found by linting the corpus and checked against Kuma's code:
# (source file, kind, test of the object, why). They are left out, listed in refused-by-kuma.txt.
REFUSED_BY_KUMA = [
    ("app/_src/policies/introduction_new.md", "MeshRetry", lambda o: named(o, "backend-producer-timeouts"),
        "numRetries, backOff and retryOn directly under default are no MeshRetry fields: the API server "
        "drops them, and Kuma's MeshRetry validator refuses a default with none of tcp, http, grpc "
        "(pkg/plugins/policies/meshretry/api/v1alpha1/validator.go, validateDefault)"),
    ("app/_src/policies/introduction_new.md", "MeshRetry", lambda o: named(o, "backend-consumer-timeouts"),
        "numRetries directly under default is no MeshRetry field: the API server drops it, and Kuma's "
        "MeshRetry validator refuses a default with none of tcp, http, grpc "
        "(pkg/plugins/policies/meshretry/api/v1alpha1/validator.go, validateDefault)"),
    ("app/_src/policies/introduction_new.md", "MeshTimeout", lambda o: any(t["targetRef"].get("kind") == "MeshService" and not t["targetRef"].get("name") and not t["targetRef"].get("labels") for t in o["spec"].get("to") or []),
        "to[0].targetRef kind MeshService with neither name nor labels: 'name or labels must be set when "
        "kind is MeshService' (pkg/core/resources/apis/mesh/validators.go, ValidateTargetRef)"),
    ("app/_src/policies/introduction.md", "MeshGateway", lambda o: "spec" not in o,
        "no spec (its conf sits at the top level, where the API server drops it): Kuma's MeshGateway "
        "validator needs at least one selector (pkg/core/resources/apis/mesh/gateway_validator.go)"),
    ("app/_src/policies/meshfaultinjection.md", "MeshFaultInjection", lambda o: any(t["targetRef"].get("kind") == "Mesh" and t["targetRef"].get("name") for t in o["spec"].get("from") or []),
        "from[0].targetRef kind Mesh with a name: 'using name with kind Mesh is not yet supported' "
        "(pkg/core/resources/apis/mesh/validators.go, ValidateTargetRef)"),
    ("app/_src/policies/meshretry.md", "MeshRetry", lambda o: (o["spec"].get("targetRef") or {}).get("kind") == "Dataplane" and (o["spec"].get("targetRef") or {}).get("tags"),
        "top-level targetRef kind Dataplane with tags: 'must not be set with kind Dataplane' "
        "(pkg/core/resources/apis/mesh/validators.go, ValidateTargetRef)"),
    ("app/_src/policies/meshtimeout.md", "MeshTimeout", lambda o: (o["spec"].get("targetRef") or {}).get("kind") == "MeshHTTPRoute" and o["metadata"].get("namespace") != "kuma-system",
        "top-level targetRef kind MeshHTTPRoute in namespace kuma-demo: Kuma's defaulting webhook gives "
        "the policy the consumer role (pkg/core/resources/labels/compute.go, ComputePolicyRole), and a "
        "MeshTimeout that is not a system policy may target only Mesh, Dataplane, MeshSubset, MeshService "
        "and MeshServiceSubset (pkg/plugins/policies/meshtimeout/api/v1alpha1/validator.go, validateTop)"),
    ("app/_src/production/secure-deployment/secrets.md", "Mesh", lambda o: any("config" in b for b in ((o.get("spec") or {}).get("mtls") or {}).get("backends") or []),
        "the provided CA backend's settings are under 'config', which is no field of a CA backend "
        "('conf' is): Kuma ignores it, and the provided CA plugin refuses a backend with no cert and key: "
        "'has to be defined' (pkg/plugins/ca/provided/manager.go, ValidateBackend)"),
    ("app/_src/resources/mesh.md", "Mesh", lambda o: ((o.get("spec") or {}).get("routing") or {}).get("zoneEgress") and not ((o.get("spec") or {}).get("mtls") or {}).get("enabledBackend"),
        "routing.zoneEgress without mtls.enabledBackend: 'has to be set when zoneEgress enabled' "
        "(pkg/core/resources/apis/mesh/mesh_validator.go, validateZoneEgress); the page shows the "
        "field on its own"),
    ("app/_src/resources/meshopentelemetrybackend.md", "MeshAccessLog", lambda o: "default" in o["spec"] and not any(k in o["spec"] for k in ("to", "from", "rules")),
        "a top-level default, which MeshAccessLog 2.14 does not have: the API server drops it, and Kuma's "
        "validator refuses a policy with none of from, to, rules: 'at least one of 'from', 'to' or "
        "'rules' has to be defined' (pkg/plugins/policies/meshaccesslog/api/v1alpha1/validator.go)"),
    ("app/_src/resources/meshtrust.md", "MeshTrust", lambda o: any("(Root CA certificate)" in ((b.get("pem") or {}).get("value") or "") for b in (o.get("spec") or {}).get("caBundles") or []),
        "the PEM bundle is a placeholder ('... (Root CA certificate) ...'), not base64: 'provided "
        "certificate has incorrect format' (pkg/core/resources/apis/meshtrust/api/v1alpha1/validator.go, "
        "isPEMCertificate)"),
    ("app/_src/explore/gateway.md", "MeshGatewayInstance", lambda o: "kuma.io/service" in ((o.get("spec") or {}).get("tags") or {}),
        "tags with kuma.io/service: Kuma's MeshGatewayInstance webhook forbids it, Kuma names the service "
        "itself (pkg/plugins/runtime/k8s/webhooks/gateway_instance_validator.go, validateTags ForbidService)"),
    ("app/_src/policies/meshgatewayinstance.md", "MeshGatewayInstance", lambda o: "kuma.io/service" in ((o.get("spec") or {}).get("tags") or {}),
        "tags with kuma.io/service: Kuma's MeshGatewayInstance webhook forbids it, Kuma names the service "
        "itself (pkg/plugins/runtime/k8s/webhooks/gateway_instance_validator.go, validateTags ForbidService)"),
    ("app/_src/policies/introduction_new.md", "MeshTrafficPermission", lambda o: any((m.get("spiffeID") or {}).get("value", "").endswith("/") for r in o["spec"].get("rules") or [] for lst in ("allow", "deny", "allowWithShadowDeny") for m in (r.get("default") or {}).get(lst) or []),
        "a spiffeID value ending in '/': Kuma parses every spiffeID value with go-spiffe, which refuses a "
        "trailing slash: 'must be a valid Spiffe ID' (pkg/core/resources/apis/mesh/validators.go, ValidateMatch)"),
    ("app/_src/policies/meshidentity.md", "MeshIdentity", lambda o: "ca" in ((o.get("spec") or {}).get("provider") or {}),
        "ca sits beside bundled under provider, where the CRD has no such field (the API server drops it), "
        "so the bundled provider has neither a CA nor autogenerate: Kuma's MeshIdentity validator refuses it "
        "(pkg/core/resources/apis/meshidentity/api/v1alpha1/validator.go)"),
    ("pkg/plugins/runtime/k8s/controllers/testdata/workload/01.resources.yaml", "Dataplane", lambda o: not (o.get("spec") or {}).get("networking"),
        "a Dataplane fixture of the workload controller's test, stored without networking: Kuma's Dataplane "
        "validator refuses it ('networking' must be defined, pkg/core/resources/apis/mesh/dataplane_validator.go)"),
    ("pkg/plugins/runtime/k8s/controllers/testdata/workload/02.resources.yaml", "Dataplane", lambda o: not (o.get("spec") or {}).get("networking"),
        "a Dataplane fixture of the workload controller's test, stored without networking: Kuma's Dataplane "
        "validator refuses it ('networking' must be defined, pkg/core/resources/apis/mesh/dataplane_validator.go)"),
    ("pkg/plugins/runtime/k8s/controllers/testdata/workload/03.resources.yaml", "Dataplane", lambda o: not (o.get("spec") or {}).get("networking"),
        "a Dataplane fixture of the workload controller's test, stored without networking: Kuma's Dataplane "
        "validator refuses it ('networking' must be defined, pkg/core/resources/apis/mesh/dataplane_validator.go)"),
    ("pkg/plugins/runtime/k8s/controllers/testdata/workload/05.resources.yaml", "Dataplane", lambda o: not (o.get("spec") or {}).get("networking"),
        "a Dataplane fixture of the workload controller's test, stored without networking: Kuma's Dataplane "
        "validator refuses it ('networking' must be defined, pkg/core/resources/apis/mesh/dataplane_validator.go)"),
    ("pkg/plugins/runtime/k8s/controllers/testdata/workload/06.resources.yaml", "Dataplane", lambda o: not (o.get("spec") or {}).get("networking"),
        "a Dataplane fixture of the workload controller's test, stored without networking: Kuma's Dataplane "
        "validator refuses it ('networking' must be defined, pkg/core/resources/apis/mesh/dataplane_validator.go)"),
    ("pkg/plugins/runtime/k8s/controllers/testdata/workload/07.resources.yaml", "Dataplane", lambda o: not (o.get("spec") or {}).get("networking"),
        "a Dataplane fixture of the workload controller's test, stored without networking: Kuma's Dataplane "
        "validator refuses it ('networking' must be defined, pkg/core/resources/apis/mesh/dataplane_validator.go)"),
    ("pkg/plugins/runtime/k8s/controllers/testdata/workload/04.resources.yaml", "Dataplane", lambda o: not (o.get("spec") or {}).get("networking"),
        "a Dataplane fixture of the workload controller's test, stored without networking: Kuma's Dataplane "
        "validator refuses it ('networking' must be defined, pkg/core/resources/apis/mesh/dataplane_validator.go)"),
    ("pkg/plugins/runtime/k8s/controllers/testdata/workload/08.resources.yaml", "Dataplane", lambda o: not (o.get("spec") or {}).get("networking"),
        "a Dataplane fixture of the workload controller's test, stored without networking: Kuma's Dataplane "
        "validator refuses it ('networking' must be defined, pkg/core/resources/apis/mesh/dataplane_validator.go)"),
]


def named(obj, name):
    return obj["metadata"].get("name") == name


class Corpus:
    def __init__(self):
        self.items = []  # (filename, header lines, object)
        self.seen = set()
        self.refused = []  # (source, kind, name, why)
        self.count = {}  # slug -> objects so far, to number the files of one source

    def add(self, slug, source, obj, flags=None):
        why = next((w for f, k, test, w in REFUSED_BY_KUMA
                    if f == source.split()[2] and k == obj["kind"] and test(obj)), None)
        if why:
            if (source, obj["kind"]) not in {(r[0], r[1]) for r in self.refused}:
                self.refused.append((source, obj["kind"], obj["metadata"].get("name"), why))
            return
        key = hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()
        if key in self.seen:
            return
        self.seen.add(key)
        name = str(obj["metadata"].get("name", "noname"))
        self.count[slug] = self.count.get(slug, 0) + 1
        fname = f"{slug}-{self.count[slug]:03d}-{obj['kind'].lower()}-{name}"
        fname = re.sub(r"[^a-zA-Z0-9._-]+", "-", fname)[:120] + ".yaml"
        header = [f"# source: {source}"]
        if flags:
            header.append(f"# meshguard-flags: {flags}")
        self.items.append((fname, header, obj))


def mode_flags(obj):
    """The meshguard mode a manifest needs: a zone-originated object is written on a
    federated zone (its kuma.io/zone label, else zone-1)."""
    labels = obj["metadata"].get("labels") or {}
    if labels.get("kuma.io/origin") == "zone":
        return f"--mode zone --zone {labels.get('kuma.io/zone', 'zone-1')}"
    return None


# ---------------------------------------------------------------- Kuma repository

def kuma_sources(repo, corpus):
    files = ls(repo, KUMA_TAG)
    # 1. e2e validation: zone-k8s inputs whose golden says kubectl created the object.
    d = "test/e2e_env/multizone/validation/testdata/"
    for f in sorted(x for x in files if x.startswith(d + "zone-k8s.") and x.endswith(".input.yaml")):
        golden = show(repo, KUMA_TAG, f.replace(".input.yaml", ".golden.yaml"))
        if not golden.strip().endswith(" created"):
            continue
        text = show(repo, KUMA_TAG, f).replace("{{ .KumaNamespace }}", "kuma-system")
        for obj in filter(is_kuma, docs_of(text)):
            corpus.add("kuma-e2e-validation", f"kumahq/kuma {KUMA_TAG} {f} (golden: created; "
                       "{{ .KumaNamespace }} = kuma-system)", obj, "--mode zone --zone kuma-1")
    # 2. plain YAML files: controller goldens, kumactl install/export goldens, demo.
    prefixes = ("pkg/plugins/runtime/k8s/controllers/testdata/", "app/kumactl/cmd/install/testdata/install-demo",
                "app/kumactl/cmd/export/testdata/export-kube", "app/kumactl/data/install/k8s/")
    for f in sorted(x for x in files if x.startswith(prefixes) and x.endswith((".yaml", ".yml"))):
        for obj in filter(is_kuma, docs_of(show(repo, KUMA_TAG, f))):
            slug = "kuma-" + ("controllers" if "controllers" in f else "kumactl")
            corpus.add(slug, f"kumahq/kuma {KUMA_TAG} {f}", obj, mode_flags(obj))
    # 2b. Kuma's webhook test inputs of the kinds validate/testdata/conformance/kuma-webhook-2.14
    #     does not hold (Dataplane, MeshTrust) that its non-federated (standalone) golden admits;
    #     the namespace is the one the header comment names.
    d = "pkg/plugins/runtime/k8s/webhooks/testdata/validation/"
    for f in sorted(x for x in files if x.startswith(d) and x.endswith(".input.yaml")):
        text = show(repo, KUMA_TAG, f)
        golden = f.replace(".input.yaml", ".non-federated.golden.yaml")
        if "operation=CREATE" not in text.split("\n", 1)[0] or golden not in files or \
                "allowed: true" not in show(repo, KUMA_TAG, golden):
            continue
        ns = re.search(r"namespace=([\w-]+)", text.split("\n", 1)[0])
        for obj in filter(is_kuma, docs_of(text)):
            if obj["kind"] not in ("Dataplane", "MeshTrust"):
                continue
            if ns and "namespace" not in obj["metadata"]:
                obj["metadata"]["namespace"] = ns.group(1)
            corpus.add("kuma-webhook", f"kumahq/kuma {KUMA_TAG} {f} (non-federated golden: allowed"
                       + (f"; namespace {ns.group(1)} from its header" if ns else "") + ")", obj, mode_flags(obj))
    # 3. YAML in Go raw strings of the e2e tests: only literals with no format verb and no
    #    template, so the YAML is exactly what the test applies.
    gofiles = {}
    for f in sorted(x for x in files if x.startswith("test/") and x.endswith(".go")):
        gofiles.setdefault(f.rsplit("/", 1)[0], []).append(f)
    for f in sorted(x for x in files if x.startswith("test/") and x.endswith(".go")):
        src = show(repo, KUMA_TAG, f)
        if "kuma.io/v1alpha1" not in src:
            continue
        # 4. fmt.Sprintf of a raw string whose arguments are all literal strings, in the
        #    call or bound once in the package.
        pkg = [show(repo, KUMA_TAG, g) for g in gofiles[f.rsplit("/", 1)[0]]]
        merged = {}
        for g in pkg:
            for k, v in go_string_values(g).items():
                merged.setdefault(k, set()).add(v)
        pkg_vals = {k: v.pop() for k, v in merged.items() if len(v) == 1}
        for i, text in sprintf_yaml(src, pkg_vals):
            if "apiVersion: kuma.io/v1alpha1" not in text or "{{" in text:
                continue
            for obj in filter(is_kuma, docs_of(text)):
                corpus.add("kuma-e2e-sprintf", f"kumahq/kuma {KUMA_TAG} {f} (fmt.Sprintf of raw string "
                           f"literal #{i}, arguments bound to string literals in the package)", obj, mode_flags(obj))
        for i, lit in enumerate(re.findall(r"`([^`]*)`", src)):
            if "apiVersion: kuma.io/v1alpha1" not in lit or re.search(r"%[-+#0 ]*[0-9.]*[a-zA-Z%]", lit):
                continue
            # {{ }} is a Go template the test renders, except in a HostnameGenerator's
            # spec.template, where it is the object's own data.
            if any("{{" in line and not line.strip().startswith("template:") for line in lit.split("\n")):
                continue
            for obj in filter(is_kuma, docs_of(lit)):
                corpus.add("kuma-e2e", f"kumahq/kuma {KUMA_TAG} {f} (raw string literal #{i + 1})",
                           obj, mode_flags(obj))


def go_string_values(src):
    """Identifiers bound to exactly one string literal in a Go file (const or var,
    `name = "x"` or `name := "x"`); an identifier bound twice is left out."""
    vals = {}
    for name, val in re.findall(r"\b([A-Za-z_]\w*)\s*(?::=|=)\s*\"([^\"\\]*)\"", src):
        vals.setdefault(name, set()).add(val)
    return {k: v.pop() for k, v in vals.items() if len(v) == 1}


# What the e2e framework's configuration gives (test/framework/config.go defaults).
GO_KNOWN = {"Config.KumaNamespace": "kuma-system"}


def sprintf_yaml(src, pkg_vals):
    """The YAML of fmt.Sprintf(`...`, args) calls whose every argument is a string
    literal or an identifier bound to one literal in the package: (literal index, text)."""
    for m in re.finditer(r"fmt\.Sprintf\(\s*`([^`]*)`\s*,([^()`]*(?:\([^()`]*\)[^()`]*)*)\)", src):
        lit, args = m.group(1), [a.strip() for a in m.group(2).split(",") if a.strip()]
        verbs = re.findall(r"%[-+#0 ]*[0-9.]*[a-zA-Z%]", lit)
        if any(v not in ("%s", "%d", "%v") for v in verbs) or len(verbs) != len(args):
            continue
        vals = []
        for a in args:
            if re.fullmatch(r"\"[^\"\\]*\"", a):
                vals.append(a[1:-1])
            elif a in GO_KNOWN:
                vals.append(GO_KNOWN[a])
            elif a in pkg_vals:
                vals.append(pkg_vals[a])
            else:
                break
        else:
            it = iter(vals)
            yield src[:m.start()].count("`") // 2 + 1, re.sub(r"%[-+#0 ]*[0-9.]*[a-zA-Z%]", lambda _: next(it), lit)


# ---------------------------------------------------------------- kuma-website

def version_ok(cond):
    ok = True
    for part in cond.split():
        if ":" not in part:
            continue
        op, v = part.split(":", 1)
        if op not in ("gte", "lte", "eq"):
            continue
        m = re.match(r"\s*(\d+)\.(\d+)", v)
        if not m:
            continue
        want = (int(m.group(1)), int(m.group(2)))
        ok = ok and {"gte": TARGET >= want, "lte": TARGET <= want, "eq": TARGET == want}[op]
    return ok


def select_version(text):
    """Keep what the 2.14 page shows: evaluate (nested) if_version blocks."""
    out, stack = [], []
    pos = 0
    for m in re.finditer(r"\{%-?\s*(if_version\s+([^%]*?)|endif_version)\s*-?%\}", text):
        if all(stack):
            out.append(text[pos:m.start()])
        pos = m.end()
        if m.group(1).startswith("if_version"):
            cond = m.group(2).replace(": ", ":")
            stack.append(version_ok(cond))
        elif stack:
            stack.pop()
    if all(stack):
        out.append(text[pos:])
    return "".join(out)


def ms_targetref(node, legacy):
    if legacy:
        parts = [node.get(k) for k in ("name", "namespace")] + ["svc", node.get("_port")]
        return {"kind": "MeshService", "name": "_".join(str(p) for p in parts if p is not None)}
    return {"kind": "MeshService", "name": node.get("name"), "namespace": node.get("namespace"),
            "sectionName": node.get("sectionName")}


def ms_backendref(node, legacy):
    if legacy:
        parts = [node.get(k) for k in ("name", "namespace")] + ["svc", node.get("port")]
        out = {"kind": "MeshService", "name": "_".join(str(p) for p in parts if p is not None)}
        if "_version" in node:
            out["kind"] = "MeshServiceSubset"
        if "weight" in node:
            out["weight"] = node["weight"]
        if "_version" in node:
            out["tags"] = {"version": node["_version"]}
        return out
    out = {"kind": "MeshService", "name": node.get("name"), "namespace": node.get("namespace"),
           "port": node.get("port")}
    if "weight" in node:
        out["weight"] = node["weight"]
    if "_version" in node:
        out["name"] = f"{node.get('name')}-{node['_version']}"
    return out


def process(node, path, legacy, namespace):
    """The kuma-website policy_yaml tag's transformers, for its Kubernetes styles."""
    if isinstance(node, dict):
        if path == ["spec", "to", "targetRef"] and node.get("kind") == "MeshService":
            node = ms_targetref(node, legacy)
        if path in (["spec", "to", "rules", "default", "backendRefs"],
                    ["spec", "to", "rules", "default", "filters", "requestMirror", "backendRef"]) \
                and node.get("kind") == "MeshService":
            node = ms_backendref(node, legacy)
        if "name_uni" in node or "name_kube" in node:
            kube = node.get("name_kube")
            node = {k: v for k, v in node.items() if k not in ("name_uni", "name_kube")}
            node["name"] = kube
        if path == []:
            meta = {"name": node.get("name"), "namespace": namespace}
            if node.get("labels") or node.get("mesh"):
                labels = dict(node.get("labels") or {})
                if node.get("mesh"):
                    labels["kuma.io/mesh"] = node["mesh"]
                meta["labels"] = labels
            node = {"apiVersion": "kuma.io/v1alpha1", "kind": node.get("type"), "metadata": meta,
                    "spec": node.get("spec")}
        return {k: process(v, path + [k], legacy, namespace) for k, v in node.items()}
    if isinstance(node, list):
        return [process(v, path, legacy, namespace) for v in node]
    return node


def policy_yaml_blocks(page):
    for m in re.finditer(r"\{%\s*policy_yaml([^%]*)%\}(.*?)\{%\s*endpolicy_yaml\s*%\}", page, re.S):
        params = dict(p.split("=", 1) for p in m.group(1).split() if "=" in p)
        body = m.group(2)
        body = re.sub(r"```yaml\n", "", body).replace("```", "")
        yield params, body


def protect_raw(page):
    """Liquid prints {% raw %} sections as they are: mark their braces so that they are
    not taken for templating, and drop the tags."""
    def keep(m):
        return m.group(1).replace("{{", "\x01").replace("{%", "\x02")
    return re.sub(r"\{%-?\s*raw\s*-?%\}(.*?)\{%-?\s*endraw\s*-?%\}", keep, page, flags=re.S)


def site_vars(page, site):
    """Liquid prints {{ site.NAME }} as the value in jekyll.yml: do the same."""
    def value(m):
        v = site.get(m.group(1))
        return str(v) if isinstance(v, (str, int)) else m.group(0)
    return re.sub(r"\{\{\s*site\.(\w+)\s*\}\}", value, page)


def templated(text):
    return "{{" in text or "{%" in text


def unprotect(text):
    return text.replace("\x01", "{{").replace("\x02", "{%")


def website_sources(repo, ref, corpus):
    commit = git(repo, "rev-parse", ref).strip()
    site = yaml.safe_load(show(repo, commit, "jekyll.yml"))
    for f in sorted(x for x in ls(repo, commit, "app/_src") if x.endswith(".md")):
        page = select_version(site_vars(protect_raw(show(repo, commit, f)), site))
        slug = "docs-" + re.sub(r"[^a-z0-9]+", "-", f[len("app/_src/"):-3].lower()).strip("-")
        src = f"kumahq/kuma-website {commit[:12]} {f}"
        # policy_yaml blocks: the Kubernetes tab shows the legacy style, and with
        # use_meshservice=true also the MeshService style.
        for n, (params, body) in enumerate(policy_yaml_blocks(page), 1):
            if templated(body):
                continue
            body = unprotect(body)
            ns = params.get("namespace", "kuma-system")
            styles = [("legacy", True)] + ([("meshservice", False)] if params.get("use_meshservice") == "true" else [])
            for style, legacy in styles:
                for obj in docs_of(body):
                    if not isinstance(obj, dict) or obj.get("type") not in KINDS:
                        continue
                    k = process(obj, [], legacy, ns)
                    corpus.add(slug, f"{src} (policy_yaml block #{n}, Kubernetes tab, {style} style)",
                               k, mode_flags(k))
        page = re.sub(r"\{%\s*policy_yaml.*?endpolicy_yaml\s*%\}", "", page, flags=re.S)
        # fenced code blocks: YAML, and kubectl heredocs in shell blocks.
        for n, m in enumerate(re.finditer(r"^\s*```(\w*)[^\n]*\n(.*?)^\s*```", page, re.S | re.M), 1):
            lang, body = m.group(1), m.group(2)
            if "kuma.io/v1alpha1" not in body or templated(body):
                continue
            body = unprotect(body)
            texts = [body] if lang in ("yaml", "yml", "") else \
                re.findall(r"<<\s*['\"]?(\w+)['\"]?[^\n]*\n(.*?)^\s*\1\s*$", body, re.S | re.M)
            texts = [t[1] if isinstance(t, tuple) else t for t in texts]
            for t in texts:
                if re.search(r"^\s*type:\s*\w", t, re.M) and "apiVersion" not in t:
                    continue  # Universal format
                for obj in filter(is_kuma, docs_of(t)):
                    corpus.add(slug, f"{src} (code block #{n})", obj, mode_flags(obj))


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    kuma, website = sys.argv[1], sys.argv[2]
    ref = sys.argv[3] if len(sys.argv) > 3 else "HEAD"
    corpus = Corpus()
    kuma_sources(kuma, corpus)
    website_sources(website, ref, corpus)
    stage = OUT + ".new"
    shutil.rmtree(stage, ignore_errors=True)
    os.makedirs(stage)
    for fname, header, obj in corpus.items:
        with open(os.path.join(stage, fname), "w") as fh:
            fh.write("\n".join(header) + "\n")
            yaml.safe_dump(obj, fh, sort_keys=False, default_flow_style=False, width=1000)
    res = subprocess.run(["go", "run", "./hack/crdcheck", "-release", "kuma-2.14", stage], check=True,
                         capture_output=True, text=True).stdout
    refused = json.loads(res)
    lines = []
    for fname in sorted(refused):
        with open(os.path.join(stage, fname)) as fh:
            src = fh.readline().strip()[len("# source: "):]
        lines.append(f"{fname}\t{src}\t{refused[fname]}")
        os.remove(os.path.join(stage, fname))
    with open(os.path.join(stage, "refused-by-crd.txt"), "w") as fh:
        fh.write("# Manifests taken from the sources that Kuma 2.14's CRDs refuse (not kept):\n"
                 "# file<TAB>source<TAB>what the API server says\n")
        fh.write("".join(line + "\n" for line in lines))
    with open(os.path.join(stage, "refused-by-kuma.txt"), "w") as fh:
        fh.write("# Manifests taken from the sources that Kuma 2.14's CRDs accept but Kuma itself refuses\n"
                 "# (not kept): source<TAB>kind/name<TAB>why\n")
        for src, kind, name, why in corpus.refused:
            fh.write(f"{src}\t{kind}/{name}\t{why}\n")
    if os.path.exists(os.path.join(OUT, "README.md")):
        shutil.copy(os.path.join(OUT, "README.md"), stage)
    shutil.rmtree(OUT, ignore_errors=True)
    os.rename(stage, OUT)
    print(f"{len(corpus.items) - len(refused)} manifests kept, {len(refused)} refused by the CRDs", file=sys.stderr)


if __name__ == "__main__":
    main()
