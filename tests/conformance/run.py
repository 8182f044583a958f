#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Conformance runner: project cases (tests/conformance/cases/*.json) and the peers'
cases (/work/shared/peer-cases.json, translated by peers.py) against a routerd of its
own. The case format is in tests/conformance/README.md.

Exit status: 0 when every project case passed or was skipped and every peer case listed
in peer-fit.json passed; 1 otherwise; 2 on a usage or setup problem.
"""
import argparse
import base64
import copy
import glob
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.dont_write_bytecode = True  # no __pycache__ beside the sources
import peers  # noqa: E402  (translation of peer-cases.json)
import lab as lab_mode  # noqa: E402  (--lab: the data plane checked against resolve)

# The kind a feature name needs, as the `get` op spells it. A feature is supported
# when `get` answers anything but unknown_kind.
FEATURE_KINDS = {
    "Route": "routes.route.openshift.io",
    "Service": "services",
    "Endpoints": "endpoints",
    "EndpointSlice": "endpointslices",
    "IngressRoute": "ingressroutes",
    "HTTPProxy": "httpproxies",
    "ContourRoute": "routes.contour.heptio.com",
    "RouteGroup": "routegroups",
    "Secret": "secrets",
    "Namespace": "namespaces",
    "Ingress": "ingresses",
    "IngressClass": "ingressclasses",
    "GatewayClass": "gatewayclasses",
    "Gateway": "gateways",
    "HTTPRoute": "httproutes",
    "GRPCRoute": "grpcroutes",
    "ReferenceGrant": "referencegrants",
    "TLSRoute": "tlsroutes",
}
# apiVersion/kind of an object -> feature name.
OBJECT_FEATURES = {
    ("route.openshift.io/v1", "Route"): "Route",
    ("v1", "Route"): "Route",
    ("contour.heptio.com/v1beta1", "IngressRoute"): "IngressRoute",
    ("projectcontour.io/v1", "HTTPProxy"): "HTTPProxy",
    ("contour.heptio.com/v1alpha1", "Route"): "ContourRoute",
    ("zalando.org/v1", "RouteGroup"): "RouteGroup",
    ("v1", "Secret"): "Secret",
    ("v1", "Namespace"): "Namespace",
    ("v1", "Service"): "Service",
    ("v1", "Endpoints"): "Endpoints",
    ("networking.k8s.io/v1", "Ingress"): "Ingress",
    ("networking.k8s.io/v1", "IngressClass"): "IngressClass",
    ("discovery.k8s.io/v1", "EndpointSlice"): "EndpointSlice",
    ("gateway.networking.k8s.io/v1", "GatewayClass"): "GatewayClass",
    ("gateway.networking.k8s.io/v1", "Gateway"): "Gateway",
    ("gateway.networking.k8s.io/v1", "HTTPRoute"): "HTTPRoute",
    ("gateway.networking.k8s.io/v1", "GRPCRoute"): "GRPCRoute",
    ("gateway.networking.k8s.io/v1beta1", "ReferenceGrant"): "ReferenceGrant",
    ("gateway.networking.k8s.io/v1", "ReferenceGrant"): "ReferenceGrant",
    ("gateway.networking.k8s.io/v1alpha2", "TLSRoute"): "TLSRoute",
}
BASE_CONFIG = {"workers": 1, "idle": "adaptive", "eal": ["--log-level=*:error"]}
DEFAULT_TOLERANCE = 0.02


class Skip(Exception):
    pass


class SetupError(Exception):
    pass


# ---------------------------------------------------------------------- routerd --

class Routerd:
    """One routerd at a time, restarted when a case needs another config."""

    def __init__(self, path, verbose, lab=None):
        self.path = path
        self.verbose = verbose
        self.lab = lab  # lab_mode.Lab with --lab: routerd gets its ports
        self.proc = None
        self.config = None
        self.dir = None
        self.sock = None
        self.file = None
        self.log = None
        self.supported = {}
        self.written = {}

    def router_addresses(self):
        """The addresses this routerd was given, as an Ingress's status.loadBalancer.ingress
        lists them (control/kinds/ingress.c lb_ips, no Router object): the config's
        `listen` addresses, else its ports' ([] without --lab: no ports, no listen)."""
        cfg = self.written or {}
        addrs = list((cfg.get("listen") or {}).get("addresses") or [])
        if not addrs:
            for p in cfg.get("ports") or []:
                addrs += [a.split("/")[0] for a in (p.get("ipv4") or []) + (p.get("ipv6") or [])]
        out = []
        for a in addrs:
            if {"ip": a} not in out:
                out.append({"ip": a})
        return out

    def ensure(self, extra):
        cfg = dict(BASE_CONFIG)
        cfg.update(extra or {})
        if self.proc is not None and self.proc.poll() is None and cfg == self.config:
            return
        self.stop()
        if self.lab is not None:
            for k, v in self.lab.routerd_config().items():
                cfg[k] = dict(cfg[k], **v) if isinstance(cfg.get(k), dict) else v
        self.written = cfg
        self.dir = tempfile.mkdtemp(prefix="sy-conformance-")
        cfg["control_socket"] = os.path.join(self.dir, "routerd.sock")
        cfg["state_dir"] = os.path.join(self.dir, "state")
        os.mkdir(cfg["state_dir"])
        path = os.path.join(self.dir, "routerd.json")
        with open(path, "w") as f:
            json.dump(cfg, f)
        self.log = open(os.path.join(self.dir, "routerd.log"), "w+")
        # The binary may be mid-relink (EACCES, ETXTBSY, ENOENT): wait a little.
        for attempt in range(60):
            try:
                self.proc = subprocess.Popen([self.path, "-c", path], stdout=self.log,
                                             stderr=subprocess.STDOUT, start_new_session=True)
                if self.lab is not None:
                    self.lab.track(self.proc.pid, "routerd")
                break
            except OSError as e:
                if attempt == 59:
                    raise SetupError("cannot start %s: %s" % (self.path, e))
                time.sleep(1)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                self.log.seek(0)
                text = self.log.read().strip()
                self.proc = None
                bad = re.search(r'unknown (?:config )?key "?([A-Za-z_]+)', text)
                if bad:
                    raise Skip("config key %s not supported" % bad.group(1))
                raise SetupError("routerd exited at start: " + text[-800:])
            if os.path.exists(cfg["control_socket"]):
                try:
                    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                    s.connect(cfg["control_socket"])
                    self.sock = s
                    self.file = s.makefile("rwb")
                    break
                except OSError:
                    s.close()
            time.sleep(0.05)
        else:
            self.stop()
            raise SetupError("routerd did not open its control socket within 30 s")
        cfg_cmp = dict(BASE_CONFIG)
        cfg_cmp.update(extra or {})
        self.config = cfg_cmp
        self.supported = {}

    def request(self, req):
        if self.lab is not None and req.get("op") == "apply":
            req = dict(req, objects=self.lab.map_objects(req.get("objects") or []))
        self.file.write((json.dumps(req) + "\n").encode())
        self.file.flush()
        line = self.file.readline()
        if not line:
            tail = ""
            if self.log is not None:
                self.log.flush()
                self.log.seek(0)
                tail = self.log.read()[-3000:]
            raise SetupError("routerd closed the control connection (crashed?); log tail:\n"
                             + tail)
        if self.lab is not None:
            return json.loads(self.lab.unmap_text(line.decode()))
        return json.loads(line)

    def supports(self, feature):
        if feature not in self.supported:
            kind = FEATURE_KINDS.get(feature)
            if kind is None:
                self.supported[feature] = True
            else:
                r = self.request({"op": "get", "kind": kind})
                self.supported[feature] = not (not r.get("ok") and
                                               (r.get("error") or {}).get("code") == "unknown_kind")
        return self.supported[feature]

    def reset(self):
        """Delete every object: every kind the router counts, and every spelling of
        FEATURE_KINDS (two kinds may share a name: OpenShift's and Contour's Route)."""
        st = self.request({"op": "status"})
        names = [k for k, n in (st.get("objects") or {}).items() if n]
        names += [k for k in FEATURE_KINDS.values() if k not in names]
        for kind in names:
            r = self.request({"op": "get", "kind": kind})
            if not r.get("ok"):
                continue
            for o in r.get("items") or []:
                md = o.get("metadata") or {}
                d = self.request({"op": "delete", "kind": kind,
                                  "namespace": md.get("namespace", "default"),
                                  "name": md.get("name")})
                if not d.get("ok"):
                    raise SetupError("cannot delete %s %s/%s: %s" % (
                        kind, md.get("namespace"), md.get("name"), d.get("error")))
        st = self.request({"op": "status"})
        left = {k: n for k, n in (st.get("objects") or {}).items() if n}
        if left:
            raise SetupError("objects left after the reset: %s" % left)

    def stop(self):
        if self.file is not None:
            try:
                self.file.close()
                self.sock.close()
            except OSError:
                pass
            self.file = self.sock = None
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.send_signal(signal.SIGTERM)
                try:
                    self.proc.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            self.proc = None
        if self.log is not None:
            self.log.close()
            self.log = None
        if self.dir is not None:
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir = None
        self.config = None


# -------------------------------------------------------------------- case model --

def obj_ref(o):
    md = o.get("metadata") or {}
    return o.get("kind", "?"), md.get("namespace") or "default", md.get("name", "?")


def ref_text(o):
    k, ns, n = obj_ref(o)
    return "%s %s/%s" % (k, ns, n)


def obj_feature(o):
    return OBJECT_FEATURES.get((o.get("apiVersion"), o.get("kind")))


def case_features(case):
    feats = set(case.get("features") or [])
    for step in case["steps"]:
        for o in step.get("apply") or []:
            f = obj_feature(o)
            if f:
                feats.add(f)
    return sorted(feats)


def normalize(case):
    """A project case (README format) -> a list of runnable cases (one per variant)."""
    base = {k: v for k, v in case.items() if k not in ("variants",)}
    if "steps" not in base:
        step = {"apply": base.pop("inputs", []), "each": base.pop("apply", "each") == "each"}
        step["expect"] = base.pop("expect", {})
        base["steps"] = [step]
    else:
        for st in base["steps"]:
            if "inputs" in st:
                st["apply"] = st.pop("inputs")
            st["each"] = st.get("each", st.get("apply_mode", base.get("apply", "each")) == "each")
    variants = case.get("variants")
    if not variants:
        return [base]
    out = []
    for v in variants:
        c = copy.deepcopy(base)
        c["id"] = "%s[%s]" % (base["id"], v.get("mode", len(out)))
        c["config"] = dict(base.get("config") or {}, **(v.get("config") or {}))
        if "expect" in v:  # replaces the expectations of the last step
            c["steps"][-1]["expect"] = v["expect"]
        if "steps" in v:
            c["steps"] = v["steps"]
            for st in c["steps"]:
                if "inputs" in st:
                    st["apply"] = st.pop("inputs")
                st["each"] = st.get("each", True)
        out.append(c)
    return out


# ------------------------------------------------------------------------ checks --

class Ctx:
    def __init__(self, rd, case):
        self.rd = rd
        self.case = case
        self.router_name = (case.get("config") or {}).get("router_name", "default")
        self.rejections = {}  # "Kind ns/name" -> [messages]
        self.applied = {}  # "ns/name" -> [kinds], for keys without a kind
        self.failures = []
        self.lab = {"checked": 0, "agreed": 0, "not_checked": []}  # --lab only

    def fail(self, msg):
        self.failures.append(msg)


def resolve_key(ctx, key):
    """'ns/name' or 'Kind ns/name' -> (kind, ns, name)."""
    m = re.match(r"^(?:(\S+)\s+)?([^/\s]+)/(\S+)$", key)
    if not m:
        raise SetupError("bad object key %r (want ns/name or Kind ns/name)" % key)
    kind, ns, name = m.groups()
    if kind is None:
        kinds = ctx.applied.get("%s/%s" % (ns, name)) or ["Route"]
        # Prefer a routing kind when the same ns/name names several objects.
        for k in ("Route", "IngressRoute", "HTTPProxy", "RouteGroup", "Ingress"):
            if k in kinds:
                kind = k
                break
        else:
            kind = kinds[0]
    return kind, ns, name


def get_kind_name(kind, api=None):
    if kind == "Route" and api and api.startswith("contour"):
        return FEATURE_KINDS["ContourRoute"]
    for f, k in FEATURE_KINDS.items():
        if f == kind:
            return k
    return kind


def match_text(got, want, how, what, ctx):
    if how == "exact":
        if got != want:
            ctx.fail("%s: got %r, want %r" % (what, got, want))
    elif how == "prefix":
        if not isinstance(got, str) or not got.startswith(want):
            ctx.fail("%s: got %r, want prefix %r" % (what, got, want))
    elif how == "regex":
        if not isinstance(got, str) or not re.search(want, got):
            ctx.fail("%s: got %r, want match of /%s/" % (what, got, want))
    elif how == "contains":
        if not isinstance(got, str) or want not in got:
            ctx.fail("%s: got %r, want it to contain %r" % (what, got, want))


def subset(got, want):
    if isinstance(want, dict):
        return isinstance(got, dict) and all(subset(got.get(k), v) for k, v in want.items())
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(
            subset(g, w) for g, w in zip(got, want))
    return got == want


def check_rejection(ctx, key, want):
    kind, ns, name = resolve_key(ctx, key)
    msgs = ctx.rejections.get("%s %s/%s" % (kind, ns, name))
    if want is False:
        if msgs:
            ctx.fail("%s: apply rejected: %s" % (key, "; ".join(msgs)))
        return
    if not msgs:
        ctx.fail("%s: expected the apply to be rejected, it was accepted" % key)
        return
    text = "\n".join(msgs)
    pats = [] if want is True else [want] if isinstance(want, str) else list(want)
    for p in pats:
        if not re.search(p, text):
            ctx.fail("%s: rejection %r does not match /%s/" % (key, text, p))


def check_invalid_or_rejected(ctx, key, pats):
    """Skipper has no status: an invalid RouteGroup is either refused at apply (the
    webhook) or stored with status.valid false; either passes if the text matches."""
    kind, ns, name = resolve_key(ctx, key)
    msgs = ctx.rejections.get("%s %s/%s" % (kind, ns, name))
    if msgs:
        text = "\n".join(msgs)
    else:
        r = ctx.rd.request({"op": "get", "kind": get_kind_name(kind), "namespace": ns,
                            "name": name})
        if not r.get("ok"):
            ctx.fail("%s: neither rejected nor stored (%s)" % (key, (r.get("error") or {}).get("message")))
            return
        st = ((r.get("items") or [{}])[0]).get("status") or {}
        if st.get("valid") is not False:
            ctx.fail("%s: accepted and status.valid is %r, want a rejection or valid=false" % (
                key, st.get("valid")))
            return
        text = "%s %s/%s: " % (kind, ns, name) + "\n".join(
            x if isinstance(x, str) else (x.get("message") or json.dumps(x))
            for x in st.get("errors") or [])
    for p in pats:
        if not re.search(p, text):
            ctx.fail("%s: %r does not match /%s/" % (key, text, p))


def router_addresses(ctx, want):
    """want with every "$router_addresses" replaced by the addresses this routerd was given
    (an Ingress's status.loadBalancer.ingress: [] without --lab, the lab's listen address
    with it): expectations about the router's own addresses hold in both modes."""
    if want == "$router_addresses":
        return ctx.rd.router_addresses()
    if isinstance(want, dict):
        return {k: router_addresses(ctx, v) for k, v in want.items()}
    if isinstance(want, list):
        return [router_addresses(ctx, v) for v in want]
    return want


def check_status(ctx, key, want):
    if "invalid_or_rejected" in want:
        check_invalid_or_rejected(ctx, key, want["invalid_or_rejected"])
        return
    if want.get("or_rejected"):
        kind, ns, name = resolve_key(ctx, key)
        if ctx.rejections.get("%s %s/%s" % (kind, ns, name)):
            if want["or_rejected"] is not True:
                check_rejection(ctx, key, want["or_rejected"])
            return
    if "rejected" in want:
        check_rejection(ctx, key, want["rejected"])
        if want["rejected"] is not False:
            return
    kind, ns, name = resolve_key(ctx, key)
    api = None
    r = ctx.rd.request({"op": "get", "kind": get_kind_name(kind, api), "namespace": ns,
                        "name": name})
    if not r.get("ok"):
        code = (r.get("error") or {}).get("code")
        if want.get("absent") and code == "not_found":
            return
        if code == "unknown_kind":
            raise Skip("kind %s not supported" % kind)
        ctx.fail("%s: get failed: %s" % (key, (r.get("error") or {}).get("message")))
        return
    if want.get("absent"):
        ctx.fail("%s: expected no such object, it exists" % key)
        return
    obj = (r.get("items") or [None])[0] or {}
    status = obj.get("status") or {}
    # OpenShift: the status.ingress[] entry of this router.
    if any(k in want for k in ("admitted", "reason", "message", "message_prefix",
                               "host", "no_status", "wildcardPolicy")):
        entries = [e for e in status.get("ingress") or []
                   if e.get("routerName") == ctx.router_name]
        if want.get("no_status"):
            if entries:
                ctx.fail("%s: expected no status.ingress entry for router %s, got %s" % (
                    key, ctx.router_name, json.dumps(entries)))
            return
        if not entries:
            ctx.fail("%s: no status.ingress entry for router %s (status %s)" % (
                key, ctx.router_name, json.dumps(status)))
            return
        e = entries[0]
        cond = next((c for c in e.get("conditions") or [] if c.get("type") == "Admitted"), {})
        if "admitted" in want:
            st = "True" if want["admitted"] else "False"
            if cond.get("status") != st:
                ctx.fail("%s: Admitted=%s, want %s (reason %s: %s)" % (
                    key, cond.get("status"), st, cond.get("reason"), cond.get("message")))
        for f in ("reason",):
            if f in want:
                match_text(cond.get(f), want[f], "exact", key + " reason", ctx)
        if "message" in want:
            match_text(cond.get("message"), want["message"], "exact", key + " message", ctx)
        if "message_prefix" in want:
            match_text(cond.get("message"), want["message_prefix"], "prefix",
                       key + " message", ctx)
        if "message_regex" in want:
            match_text(cond.get("message"), want["message_regex"], "regex",
                       key + " message", ctx)
        if "host" in want:
            match_text(e.get("host"), want["host"], "exact", key + " status host", ctx)
        if "wildcardPolicy" in want:
            match_text(e.get("wildcardPolicy"), want["wildcardPolicy"], "exact",
                       key + " wildcardPolicy", ctx)
    # Contour: status.currentStatus / description.
    if "currentStatus" in want:
        match_text(status.get("currentStatus"), want["currentStatus"], "exact",
                   key + " currentStatus", ctx)
    if "description" in want:
        match_text(status.get("description"), want["description"], "exact",
                   key + " description", ctx)
    if "description_prefix" in want:
        match_text(status.get("description"), want["description_prefix"], "prefix",
                   key + " description", ctx)
    # RouteGroup: status.valid / status.errors.
    if "valid" in want:
        if status.get("valid") is not want["valid"]:
            ctx.fail("%s: status.valid=%r, want %r (errors %s)" % (
                key, status.get("valid"), want["valid"], status.get("errors")))
    if "errors" in want:
        text = "\n".join(str(x) if not isinstance(x, dict) else
                         (x.get("message") or json.dumps(x)) for x in status.get("errors") or [])
        for p in want["errors"]:
            if not re.search(p, text):
                ctx.fail("%s: status.errors %r do not match /%s/" % (key, text, p))
    if want.get("status_absent") and status:
        ctx.fail("%s: expected no status, got %s" % (key, json.dumps(status)))
    if "status" in want and want["status"] is None:
        if status:
            ctx.fail("%s: status %s, want none" % (key, json.dumps(status)))
    elif "status" in want and not subset(status, router_addresses(ctx, want["status"])):
        ctx.fail("%s: status %s does not contain %s" % (
            key, json.dumps(status), json.dumps(router_addresses(ctx, want["status"]))))


def check_resolve(ctx, url, want, tolerance):
    req = {"op": "resolve", "url": url if "://" in url else "http://" + url}
    if "method" in want:
        req["method"] = want["method"]
    if "headers" in want:
        req["headers"] = want["headers"]
    r = ctx.rd.request(req)
    what = "resolve %s%s" % (want.get("method", "") + " " if "method" in want else "", url)
    if not r.get("ok"):
        ctx.fail("%s: error %s" % (what, (r.get("error") or {}).get("message")))
        return None
    if "object" in want:
        got = r.get("object")
        if got != want["object"]:
            ctx.fail("%s: object %r, want %r (reason %s)" % (what, got, want["object"],
                                                               r.get("reason")))
    for f in ("kind", "action", "status", "location", "tls", "mode", "match"):
        if f in want and r.get(f) != want[f]:
            ctx.fail("%s: %s %r, want %r" % (what, f, r.get(f), want[f]))
    if "services" in want:
        got = {"%s/%s" % (s.get("namespace"), s.get("name")): s.get("share")
               for s in r.get("services") or []}
        ws = want["services"]
        if isinstance(ws, list):
            if sorted(got) != sorted(ws):
                ctx.fail("%s: services %s, want %s" % (what, sorted(got), sorted(ws)))
        else:
            for svc, share in ws.items():
                if svc not in got:
                    if share:
                        ctx.fail("%s: service %s missing (got %s)" % (what, svc, got))
                    continue
                if got[svc] is None or abs(got[svc] - share) > tolerance:
                    ctx.fail("%s: share of %s is %s, want %s +- %s" % (
                        what, svc, got[svc], share, tolerance))
            extra = [s for s in got if s not in ws and got[s]]
            if extra:
                ctx.fail("%s: unexpected services %s" % (what, extra))
    if "endpoint_weights" in want:
        for svc, w in want["endpoint_weights"].items():
            eps = [e for e in r.get("endpoints") or [] if e.get("service") == svc]
            if w is None:
                if eps:
                    ctx.fail("%s: service %s has endpoints %s, want none" % (what, svc, eps))
                continue
            if not eps:
                ctx.fail("%s: no endpoints of %s (got %s)" % (what, svc, r.get("endpoints")))
            for e in eps:
                if e.get("weight") != w:
                    ctx.fail("%s: endpoint %s:%s of %s has weight %s, want %s" % (
                        what, e.get("address"), e.get("port"), svc, e.get("weight"), w))
    if "endpoints" in want:
        got = sorted("%s:%s" % (e.get("address"), e.get("port")) for e in r.get("endpoints") or [])
        if got != sorted(want["endpoints"]):
            ctx.fail("%s: endpoints %s, want %s" % (what, got, sorted(want["endpoints"])))
    for f in ("filters", "predicates"):
        if f in want and not subset(r.get(f), want[f]):
            ctx.fail("%s: %s %s, want %s" % (what, f, json.dumps(r.get(f)), json.dumps(want[f])))
    if "reply" in want and not subset(r, want["reply"]):
        ctx.fail("%s: reply %s does not contain %s" % (what, json.dumps(r), json.dumps(want["reply"])))
    return r


def client_cert_pems(ctx, ref):
    """(certificate PEM, key PEM) of the case's kubernetes.io/tls Secret "ns/name" (a
    resolve expectation's client_cert: what the lab's curl presents), or why not."""
    for st in ctx.case.get("steps") or []:
        for o in st.get("apply") or []:
            md = o.get("metadata") or {}
            if o.get("kind") == "Secret" and "%s/%s" % (md.get("namespace"), md.get("name")) == ref:
                data = o.get("data") or {}
                try:
                    return (base64.b64decode(data["tls.crt"]), base64.b64decode(data["tls.key"]))
                except (KeyError, TypeError, ValueError) as e:
                    return "no usable tls.crt/tls.key (%s)" % e
    return "no such Secret among the case's inputs"


def check_outside(ctx, url, want, r):
    """--lab: send the request through the data plane and compare with resolve's answer r."""
    if r is None:
        return
    full = url if "://" in url else "http://" + url
    what = "%s%s" % (want.get("method", "") + " " if "method" in want else "", full)
    if want.get("client_cert"):
        pems = client_cert_pems(ctx, want["client_cert"])
        if isinstance(pems, str):
            ctx.fail("lab: %s: client_cert %s: %s" % (what, want["client_cert"], pems))
            return
        want = dict(want, client_cert_pem=pems)
    verdict, text = ctx.rd.lab.check(url, want, r)
    if verdict == "unchecked":
        ctx.lab["not_checked"].append("%s: %s" % (what, text))
        return
    ctx.lab["checked"] += 1
    if verdict == "agree":
        ctx.lab["agreed"] += 1
        if ctx.rd.verbose:
            ctx.lab.setdefault("notes", []).append("lab %s: %s" % (what, text))
    else:
        ctx.fail("lab: %s: %s" % (what, text))


def do_apply(ctx, objs, each):
    for o in objs:
        k, ns, n = obj_ref(o)
        ctx.applied.setdefault("%s/%s" % (ns, n), [])
        if k not in ctx.applied["%s/%s" % (ns, n)]:
            ctx.applied["%s/%s" % (ns, n)].append(k)
    batches = [[o] for o in objs] if each else [objs]
    for b in batches:
        if not b:
            continue
        r = ctx.rd.request({"op": "apply", "objects": b})
        if r.get("ok"):
            for o in b:
                ctx.rejections.pop(ref_text(o), None)
            continue
        errs = r.get("errors") or [r.get("error") or {}]
        for e in errs:
            if e.get("code") == "unknown_kind":
                raise Skip("kind %s not supported" % (e.get("object") or "?").split(" ")[0])
        for e in errs:
            who = e.get("object") or (ref_text(b[0]) if len(b) == 1 else "?")
            msg = "%s: %s%s" % (who, e.get("field") + ": " if e.get("field") else "",
                                e.get("message"))
            ctx.rejections.setdefault(who, []).append(msg)
            if len(b) == 1 and who != ref_text(b[0]):
                # cluster-scoped kinds: the router names them without a namespace
                ctx.rejections.setdefault(ref_text(b[0]), []).append(msg)
        if len(b) > 1:  # all or nothing: every object of the batch is rejected
            for o in b:
                ctx.rejections.setdefault(ref_text(o), ["(rejected with the batch)"])


def do_delete(ctx, key):
    kind, ns, name = resolve_key(ctx, key)
    r = ctx.rd.request({"op": "delete", "kind": get_kind_name(kind), "namespace": ns,
                        "name": name})
    if not r.get("ok"):
        ctx.fail("delete %s: %s" % (key, (r.get("error") or {}).get("message")))


def run_case(rd, case, lab_out=None):
    """Returns ('pass'|'fail'|'skip', detail). With --lab, lab_out gets the counts of the
    resolve answers checked from outside ("checked", "agreed", "not_checked": [reasons])."""
    ctx = None
    try:
        rd.ensure(case.get("config"))
        for f in case_features(case):
            if not rd.supports(f):
                raise Skip("kind %s not supported" % f)
        rd.reset()
        ctx = Ctx(rd, case)
        tol = case.get("share_tolerance", DEFAULT_TOLERANCE)
        for i, step in enumerate(case["steps"]):
            n0 = len(ctx.failures)
            for key in step.get("delete") or []:
                do_delete(ctx, key)
            do_apply(ctx, step.get("apply") or [], step.get("each", True))
            exp = step.get("expect") or {}
            for key, want in (exp.get("statuses") or {}).items():
                check_status(ctx, key, want)
            for key, want in (exp.get("rejected") or {}).items():
                check_rejection(ctx, key, want)
            for key in exp.get("accepted") or []:
                check_rejection(ctx, key, False)
            res = exp.get("resolve") or {}
            items = res.items() if isinstance(res, dict) else [(x["url"], x) for x in res]
            for url, want in items:
                r = check_resolve(ctx, url, want, tol)
                if rd.lab is not None:
                    check_outside(ctx, url, want, r)
            mc = exp.get("match_count")
            if mc:
                n = 0
                for url in mc["urls"]:
                    n += bool(rd.request({"op": "resolve", "url": url}).get("match"))
                if n != mc["count"]:
                    ctx.fail("%d of %s matched, want %d" % (n, mc["urls"], mc["count"]))
            if len(case["steps"]) > 1:
                for j in range(n0, len(ctx.failures)):
                    ctx.failures[j] = "step %d: %s" % (i + 1, ctx.failures[j])
        if ctx.failures:
            return "fail", ctx.failures
        return "pass", ctx.lab.get("notes", [])
    except Skip as e:
        return "skip", [str(e)]
    finally:
        if lab_out is not None and ctx is not None:
            lab_out.update(ctx.lab)


# ------------------------------------------------------------------------- main --

def load_project_cases(paths):
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(glob.glob(os.path.join(p, "*.json")))
        else:
            files.append(p)
    cases = []
    for f in files:
        with open(f) as fh:
            data = json.load(fh)
        for c in data if isinstance(data, list) else data.get("cases", [data]):
            c.setdefault("id", os.path.splitext(os.path.basename(f))[0])
            c["_file"] = os.path.relpath(f, HERE)
            cases += normalize(c)
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--routerd", default=os.environ.get("ROUTERD"))
    ap.add_argument("--routerctl", default=os.environ.get("ROUTERCTL"),
                    help="accepted for symmetry; the runner talks to the socket itself")
    ap.add_argument("--cases", nargs="*", default=None,
                    help="project case files or directories (default: cases/)")
    ap.add_argument("--peer-cases", default="/work/shared/peer-cases.json",
                    help="peer cases file ('' to skip them)")
    ap.add_argument("--peer-fit", default=os.path.join(HERE, "peer-fit.json"))
    ap.add_argument("--report", help="write a JSON report here")
    ap.add_argument("--only", help="regex: run only cases whose id matches")
    ap.add_argument("--write-peer-fit", action="store_true",
                    help="rewrite peer-fit.json with the fitting peer cases that pass")
    ap.add_argument("--repeat", type=int, default=1, metavar="N",
                    help="run the whole suite N times, each on a fresh routerd (new state "
                         "directory); a counted failure in any run fails (default 1)")
    ap.add_argument("--lab", action="store_true",
                    help="routerd with real ports in a namespace lab: every resolve answer "
                         "checked is also sent through the data plane and compared")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    if a.repeat < 1:
        print("run.py: --repeat must be at least 1, not %d" % a.repeat, file=sys.stderr)
        return 2
    if a.repeat > 1 and a.write_peer_fit:
        print("run.py: --write-peer-fit takes one run; leave out --repeat", file=sys.stderr)
        return 2
    if not a.routerd:
        src = os.environ.get("SY_SRC", os.path.dirname(os.path.dirname(HERE)))
        a.routerd = os.path.join(src, "build", "routerd")
    if not os.access(a.routerd, os.X_OK):
        print("run.py: routerd %s is not executable" % a.routerd, file=sys.stderr)
        return 2
    if os.geteuid() != 0:
        print("1..0 # SKIP conformance needs root (routerd's EAL)")
        return 77

    project = load_project_cases(a.cases if a.cases else [os.path.join(HERE, "cases")])
    peer_cases = []
    if a.peer_cases:
        with open(a.peer_cases) as fh:
            peer_cases = peers.translate(json.load(fh))
    fit_list = set()
    if os.path.exists(a.peer_fit):
        with open(a.peer_fit) as fh:
            fit_list = set(json.load(fh).get("cases", []))

    only = re.compile(a.only) if a.only else None
    lab = None
    if a.lab:
        src = os.environ.get("SY_SRC", os.path.dirname(os.path.dirname(HERE)))
        lab = lab_mode.Lab(src, a.verbose)
        runs = [c for c in project + [p for p in peer_cases if p["fits"]]
                if not only or only.search(c["id"])]
        # SIGTERM (meson's timeout) and SIGHUP leave through the finally below: the lab
        # goes with every process it started.
        for sig in (signal.SIGTERM, signal.SIGHUP):
            signal.signal(sig, lambda n, f: sys.exit(128 + n))
        try:
            lab.map_cases(runs)
            lab.up()
            print("# lab %s: routerd's ports on %s / %s; %d endpoint addresses mapped to "
                  "lab addresses, %d backend listeners" % (
                      lab.id, lab.env["LAB_IF_CLIENT"], lab.env["LAB_IF_BACKEND"],
                      len(lab.fwd), len(lab.listen)))
            sys.stdout.flush()
            return suites(a, project, peer_cases, fit_list, only, lab)
        except lab_mode.LabError as e:
            print("run.py: lab: %s" % e, file=sys.stderr)
            return 2
        finally:
            lab.down()
    return suites(a, project, peer_cases, fit_list, only, None)


def suites(a, project, peer_cases, fit_list, only, lab):
    results, rc = [], 0
    for rep in range(1, a.repeat + 1):
        if a.repeat > 1:
            print("# run %d of %d" % (rep, a.repeat))
            sys.stdout.flush()
        t0 = time.monotonic()
        run = run_suite(a, project, peer_cases, fit_list, only, lab)
        if run is None:
            return 2
        for r in run:
            r["run"] = rep
        results += run
        run_rc = summary(run)
        rc = max(rc, run_rc)
        if a.repeat > 1:
            print("# run %d of %d: %s in %.1f s" % (rep, a.repeat,
                                                   "OK" if run_rc == 0 else "FAILED",
                                                   time.monotonic() - t0))
    if a.repeat > 1:
        bad = sorted({"%s (run %d)" % (r["id"], r["run"]) for r in results
                      if r["result"] == "fail" and
                      (r["group"] == "project" or r.get("allow_listed"))})
        print("conformance: %d runs, %s" % (a.repeat, "counted failures: " + ", ".join(bad)
                                            if bad else "every run OK"))
    if a.report:
        with open(a.report, "w") as fh:
            json.dump({"results": results}, fh, indent=1)
    if a.write_peer_fit:
        ids = sorted(r["id"] for r in results if r["group"].startswith("peer:")
                     and r["result"] == "pass")
        with open(a.peer_fit, "w") as fh:
            json.dump({"comment": "peer cases that fit and pass; run.py fails if one of these "
                       "fails. Maintained with run.py --write-peer-fit.", "cases": ids},
                      fh, indent=1)
            fh.write("\n")
    return rc


def run_suite(a, project, peer_cases, fit_list, only, lab=None):
    """Every case once, on a routerd of its own (started here, stopped at the end, so the
    next run starts from an empty state directory). The results, or None on a setup
    problem."""
    rd = Routerd(a.routerd, a.verbose, lab)
    results = []
    try:
        for c in project:
            if only and not only.search(c["id"]):
                continue
            lab_out = {} if lab else None
            st, detail = run_case(rd, c, lab_out)
            results.append({"id": c["id"], "group": "project", "feature": c.get("feature", ""),
                            "result": st, "detail": detail})
            if lab_out and st != "skip":
                results[-1]["lab"] = lab_out
            report_line(results[-1], a.verbose)
        for pc in peer_cases:
            if only and not only.search(pc["id"]):
                continue
            if not pc["fits"]:
                results.append({"id": pc["id"], "group": "peer:" + pc["peer"], "result": "skip",
                                "fits": False, "detail": ["does not fit: " + pc["reason"]]})
                report_line(results[-1], a.verbose)
                continue
            lab_out = {} if lab else None
            st, detail = run_case(rd, pc, lab_out)
            results.append({"id": pc["id"], "group": "peer:" + pc["peer"], "result": st,
                            "fits": True, "allow_listed": pc["id"] in fit_list,
                            "detail": detail, "notes": pc.get("reason", "")})
            if lab_out and st != "skip":
                results[-1]["lab"] = lab_out
            report_line(results[-1], a.verbose)
    except SetupError as e:
        print("run.py: %s" % e, file=sys.stderr)
        return None
    finally:
        rd.stop()
    return results


def report_line(r, verbose):
    mark = {"pass": "ok", "fail": "FAIL", "skip": "skip"}[r["result"]]
    line = "%-4s %-14s %s" % (mark, r["group"], r["id"])
    if r["result"] == "skip":
        line += "  (%s)" % r["detail"][0]
    print(line)
    if verbose and r.get("lab"):
        for n in r["lab"].get("not_checked") or []:
            print("       - not checked from outside: " + n)
    if r["result"] == "fail" or (verbose and r["detail"] and r["result"] != "skip"):
        for d in r["detail"][:12]:
            print("       - " + d)
        if len(r["detail"]) > 12:
            print("       - ... %d more" % (len(r["detail"]) - 12))
    sys.stdout.flush()


def summary(results):
    groups = []
    for r in results:
        if r["group"] not in groups:
            groups.append(r["group"])
    lab = any("lab" in r for r in results)
    # --lab: resolve answers checked from outside (through the data plane), those that
    # agreed, and those not checked from outside (the reasons are listed below the table).
    fmt = "%-20s %5s %7s %7s %8s %12s" + (" %11s %9s %12s" if lab else "")
    head = ["GROUP", "RUN", "PASSED", "FAILED", "SKIPPED", "NOT-FITTING"]
    print()
    print(fmt % tuple(head + (["DP-CHECKED", "DP-AGREED", "NOT-CHECKED"] if lab else [])))
    fmt = fmt.replace("s", "d").replace("%-20d", "%-20s")
    tot = [0] * (8 if lab else 5)
    for g in groups:
        rs = [r for r in results if r["group"] == g]
        row = [len([r for r in rs if r["result"] != "skip"]),
               len([r for r in rs if r["result"] == "pass"]),
               len([r for r in rs if r["result"] == "fail"]),
               len([r for r in rs if r["result"] == "skip" and r.get("fits", True)]),
               len([r for r in rs if r.get("fits") is False])]
        if lab:
            row += [sum(r.get("lab", {}).get("checked", 0) for r in rs),
                    sum(r.get("lab", {}).get("agreed", 0) for r in rs),
                    sum(len(r.get("lab", {}).get("not_checked", [])) for r in rs)]
        tot = [a + b for a, b in zip(tot, row)]
        print(fmt % tuple([g] + row))
    print(fmt % tuple(["total"] + tot))
    if lab:
        reasons = {}
        for r in results:
            for n in r.get("lab", {}).get("not_checked", []):
                why = n.split(": ", 1)[1] if ": " in n else n
                why = re.sub(r"(?<=\(not an IPv4 address of the inputs\)): .*", "", why)
                reasons.setdefault(why, []).append(r["id"])
        for why, ids in sorted(reasons.items()):
            print("not checked from outside (%d): %s: %s" % (len(ids), why,
                                                            ", ".join(sorted(set(ids)))))
        print("lab: %d resolve answers checked from outside, %d agreed, %d disagreed, "
              "%d not checked from outside" % (tot[5], tot[6], tot[5] - tot[6], tot[7]))
    bad = [r["id"] for r in results if r["result"] == "fail" and
           (r["group"] == "project" or r.get("allow_listed"))]
    regress = [r["id"] for r in results if r["result"] != "pass" and r.get("allow_listed")]
    if regress:
        print("allow-listed peer cases not passing: " + ", ".join(regress))
    if bad:
        print("FAILED (counted): " + ", ".join(bad))
        return 1
    print("conformance: OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
