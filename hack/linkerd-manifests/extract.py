#!/usr/bin/env python3
"""Rebuild validate/testdata/conformance/linkerd-manifests-edge-26.8.3/.

Usage: extract.py LINKERD_GIT_DIR WEBSITE_GIT_DIR WEBSITE_COMMIT

Reads github.com/linkerd/linkerd2 (tag edge-26.8.3) and github.com/linkerd/website (the
given commit) with `git show`, writes one file per Linkerd policy object (policy.linkerd.io,
and Gateway API routes whose parents are Linkerd's: a Service, Server or EgressNetwork),
keeps the README, and moves what Linkerd's CRDs refuse (hack/crdcheck)
or Linkerd's admission refuses (REFUSED_BY_LINKERD) into the two refused-*.txt lists.
Only data is taken: YAML documents.
"""
import json
import os
import re
import subprocess
import sys

import yaml

TAG = "edge-26.8.3"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(ROOT, "validate/testdata/conformance/linkerd-manifests-" + TAG)

# Plain YAML files of linkerd2 (no Helm templating) that hold Linkerd policy objects, and
# the rendered install goldens of the viz and multicluster extensions.
LINKERD_FILES = [
    "grafana/authzpolicy-grafana.yaml",
    "test/integration/deep/dualstack/testdata/ipfamilies-policy.yml",
    "test/integration/install/smoke/testdata/smoke_test.yaml",
    "test/integration/install/testdata/smoke_test.yaml",
    "test/integration/viz/policy/testdata/emoji-policy.yaml",
    "viz/cmd/testdata/install_default.golden",
    "multicluster/cmd/testdata/install_default.golden",
]
DOCS_DIR = "linkerd.io/content/2-edge"

POLICY = "policy.linkerd.io"
GATEWAY = "gateway.networking.k8s.io"
ROUTES = {"HTTPRoute", "GRPCRoute", "TCPRoute", "TLSRoute"}
LINKERD_PARENTS = {("", "Service"), ("core", "Service"), (POLICY, "Server"), (POLICY, "EgressNetwork")}

# Objects the CRDs accept but Linkerd's admission (policy-controller/runtime/src/admission.rs)
# refuses: file name -> the rule. Checked against Linkerd edge-26.8.3.
REFUSED_BY_LINKERD = {}


def git_show(repo, rev, path):
    return subprocess.run(["git", "-C", repo, "show", f"{rev}:{path}"], check=True,
                          capture_output=True, text=True).stdout


def git_ls(repo, rev, under):
    out = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", rev, under],
                         check=True, capture_output=True, text=True).stdout
    return sorted(out.split())


def is_linkerd(obj):
    """Whether obj is a Linkerd policy object this corpus is about."""
    if not isinstance(obj, dict):
        return False
    group = str(obj.get("apiVersion", "")).split("/")[0]
    if group == POLICY:
        return True
    if group != GATEWAY or obj.get("kind") not in ROUTES:
        return False
    parents = (obj.get("spec") or {}).get("parentRefs") or []
    return bool(parents) and all(
        (p.get("group", "" if p.get("kind", "Service") == "Service" else GATEWAY),
         p.get("kind", "Gateway")) in LINKERD_PARENTS for p in parents)


def documents(text):
    """The documents of a YAML stream, numbered from 1; a document that is not YAML (a
    test's placeholder such as `cidr: {IPv6}/128`) is None."""
    out = []
    for i, part in enumerate(re.split(r"^---[^\n]*$", text, flags=re.M), 1):
        try:
            out.append((i, yaml.safe_load(part)))
        except yaml.YAMLError:
            out.append((i, None))
    return out


FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```", re.M | re.S)
HEREDOC = re.compile(r"<<-?\s*(['\"]?)(\w+)\1[^\n]*\n(.*?)^\s*\2\s*$", re.M | re.S)


def doc_blocks(text):
    """The YAML of a docs page with which code block of the page it is (counted from 1):
    the here-documents of a block (`kubectl apply -f - <<EOF`, in any block: some are
    marked yaml), else the whole of a ```yaml block. An unquoted here-document reads as
    the shell passes it on (`\\` is one backslash)."""
    for n, m in enumerate(FENCE.finditer(text), 1):
        lang, body = m.group(1).lower(), m.group(2)
        heredocs = list(HEREDOC.finditer(body))
        for h in heredocs:
            doc = h.group(3)
            if not h.group(1):
                doc = re.sub(r"\\([\\$`])", r"\1", doc.replace("\\\n", ""))
            yield n, doc
        if not heredocs and lang in ("yaml", "yml"):
            yield n, body


def templated(body):
    """Whether a block has placeholders left (Hugo shortcodes, shell variables, <...>)."""
    return "{{" in body or re.search(r"\$[A-Za-z_{(]|<[A-Za-z_ -]+>", body) is not None


def slug(s):
    return re.sub(r"[^a-z0-9.-]+", "-", str(s).lower()).strip("-")


def kind_slug(obj):
    group = str(obj.get("apiVersion", "")).split("/")[0]
    k = obj["kind"].lower()
    return k if group == POLICY else "gateway-" + k


def collect(linkerd, website, commit):
    """[(prefix, source line, object)] in source order."""
    out = []
    for path in LINKERD_FILES:
        text = git_show(linkerd, TAG, path)
        docs = documents(text)
        base = os.path.basename(path).split(".")[0].replace("_", "-")
        prefix = "linkerd-" + ("golden-" + path.split("/")[0] if path.endswith(".golden") else base)
        for i, d in docs:
            if is_linkerd(d):
                out.append((prefix, f"github.com/linkerd/linkerd2 {TAG} {path} document {i}", d))
    for path in git_ls(website, commit, DOCS_DIR):
        if not path.endswith(".md"):
            continue
        page = path[len(DOCS_DIR) + 1:-3].replace("/", "-")
        for n, body in doc_blocks(git_show(website, commit, path)):
            if templated(body):
                continue
            for i, d in documents(body):
                if is_linkerd(d):
                    src = f"github.com/linkerd/website {commit[:12]} {path} code block {n} document {i}"
                    out.append(("docs-" + page, src, d))
    return out


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    linkerd, website, commit = sys.argv[1:]
    for f in os.listdir(OUT) if os.path.isdir(OUT) else []:
        if f.endswith(".yaml") or f.startswith("refused-"):
            os.remove(os.path.join(OUT, f))
    os.makedirs(OUT, exist_ok=True)
    seen, counts = set(), {}
    for prefix, src, obj in collect(linkerd, website, commit):
        key = json.dumps(obj, sort_keys=True)
        if key in seen:
            continue
        seen.add(key)
        counts[prefix] = counts.get(prefix, 0) + 1
        name = (obj.get("metadata") or {}).get("name", "unnamed")
        fname = f"{prefix}-{counts[prefix]:03d}-{kind_slug(obj)}-{slug(name)}.yaml"
        with open(os.path.join(OUT, fname), "w") as fh:
            fh.write(f"# source: {src}\n")
            yaml.safe_dump(obj, fh, sort_keys=False, default_flow_style=False)
    crd = json.loads(subprocess.run(["go", "run", "./hack/crdcheck", "-release", "linkerd-edge-26.8.3", OUT], cwd=ROOT,
                                    check=True, capture_output=True, text=True).stdout)
    refuse(crd, "refused-by-crd.txt", "Refused by Linkerd edge-26.8.3's CRDs (the API server's errors)")
    refuse(REFUSED_BY_LINKERD, "refused-by-linkerd.txt",
           "Accepted by the CRDs, refused by Linkerd's admission (policy-controller/runtime/src/admission.rs)")


def refuse(reasons, listname, title):
    """Move the refused files out of the corpus into a list: source, file, reason."""
    lines = [f"# {title}", "# file: source -- reason", ""]
    for f in sorted(reasons):
        path = os.path.join(OUT, f)
        if not os.path.exists(path):
            continue
        with open(path) as fh:
            src = fh.readline().removeprefix("# source: ").strip()
        os.remove(path)
        lines.append(f"{f}: {src} -- {reasons[f]}")
    with open(os.path.join(OUT, listname), "w") as fh:
        fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
