#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Writes cases/gateway-api.json (to standard output): tests of the Gateway API's
conformance suite (kubernetes-sigs/gateway-api conformance/tests/<name>.yaml and .go: their
manifests, requests and expected backends or statuses) re-expressed in run.py's case
format, with the suite's names as case ids (gw-<name>), and cases of our own.

    tests/conformance/gateway_api_cases.py [CERT.pem KEY.pem] > tests/conformance/cases/gateway-api.json

Without a certificate and key, the ones already in cases/gateway-api.json are kept (a
self-signed *.example.com certificate valid for 100 years), so that regenerating changes
only what the script changes."""
import base64
import copy
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def _tls_pair():
    if len(sys.argv) == 3:
        return (base64.b64encode(open(sys.argv[1], "rb").read()).decode(),
                base64.b64encode(open(sys.argv[2], "rb").read()).decode())
    for c in json.load(open(os.path.join(HERE, "cases", "gateway-api.json")))["cases"]:
        for o in c.get("inputs") or []:
            if (o.get("kind") == "Secret" and
                    o["metadata"]["name"] == "tls-validity-checks-certificate"):
                return o["data"]["tls.crt"], o["data"]["tls.key"]
    raise SystemExit("no certificate: give CERT.pem KEY.pem")

NS = "gateway-conformance-infra"
WEB = "gateway-conformance-web-backend"
CTRL = "switchyard.io/gateway-controller"
G = "gateway.networking.k8s.io"
CRT, KEY = _tls_pair()


def gc(name="switchyard", ctrl=CTRL):
    return {"apiVersion": G + "/v1", "kind": "GatewayClass", "metadata": {"name": name},
            "spec": {"controllerName": ctrl}}


def namespace(name, labels=None):
    return {"apiVersion": "v1", "kind": "Namespace",
            "metadata": {"name": name, "labels": labels or {}}}


def svc(name, ip, ns=NS):
    return [{"apiVersion": "v1", "kind": "Service", "metadata": {"namespace": ns, "name": name},
             "spec": {"ports": [{"name": "first-port", "port": 8080, "targetPort": 3000}]}},
            {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"namespace": ns, "name": name},
             "subsets": [{"addresses": [{"ip": ip}],
                          "ports": [{"name": "first-port", "port": 3000}]}]}]


def base(extra_ns=False):
    objs = [gc(), namespace(NS, {"gateway-conformance": "infra"})]
    objs += svc("infra-backend-v1", "198.18.2.1") + svc("infra-backend-v2", "198.18.2.2")
    objs += svc("infra-backend-v3", "198.18.2.3")
    if extra_ns:
        objs += [namespace(WEB, {"gateway-conformance": "web-backend"})]
        objs += svc("web-backend", "198.18.2.9", WEB)
    return objs


def listener(name="http", port=80, proto="HTTP", frm="Same", host=None, **kw):
    l = {"name": name, "port": port, "protocol": proto,
         "allowedRoutes": {"namespaces": {"from": frm}}}
    if host:
        l["hostname"] = host
    l.update(kw)
    return l


def gateway(name="same-namespace", listeners=None, ns=NS, cls="switchyard"):
    return {"apiVersion": G + "/v1", "kind": "Gateway", "metadata": {"namespace": ns, "name": name},
            "spec": {"gatewayClassName": cls, "listeners": listeners or [listener()]}}


def route(name, spec, ns=NS, kind="HTTPRoute", api="v1"):
    s = {"parentRefs": [{"name": "same-namespace"}]}
    s.update(spec)
    return {"apiVersion": G + "/" + api, "kind": kind, "metadata": {"namespace": ns, "name": name},
            "spec": s}


def be(name, weight=None, port=8080, **kw):
    b = {"name": name, "port": port}
    if weight is not None:
        b["weight"] = weight
    b.update(kw)
    return b


def pp(path, typ="PathPrefix"):
    return {"path": {"type": typ, "value": path}}


def hdr(**h):
    return {"headers": [{"name": k, "value": v} for k, v in h.items()]}


def res(url, obj=None, svc=None, **kw):
    if "://" not in url:
        url = "http://gw.test" + url
    r = {"url": url, "object": obj}
    if svc:
        r["services"] = svc if isinstance(svc, (list, dict)) else [NS + "/" + svc]
    r.update(kw)
    return r


def cond(t, ok, reason):
    return {"type": t, "status": "True" if ok else "False", "reason": reason}


def parent(name="same-namespace", ns=NS, accepted=(True, "Accepted"),
           refs=(True, "ResolvedRefs"), section=None):
    ref = {"group": G, "kind": "Gateway", "namespace": ns, "name": name}
    if section:
        ref["sectionName"] = section
    return {"parentRef": ref, "controllerName": CTRL,
            "conditions": [cond("Accepted", *accepted), cond("ResolvedRefs", *refs)]}


def route_status(*parents):
    return {"status": {"parents": list(parents)}}


CASES = []


def case(id, title, inputs, expect, feature="HTTPRoute", **kw):
    # One apply of all the inputs (objects are as old as their place in it): a case
    # compiles once, not once per object.
    c = {"id": "gw-" + id, "feature": feature, "title": title, "apply": "all",
         "inputs": inputs, "expect": expect}
    c.update(kw)  # steps take the case's "apply" too
    CASES.append(c)


NOROUTE = {"no_route_status": 404}
V1, V2, V3 = "infra-backend-v1", "infra-backend-v2", "infra-backend-v3"


def r_of(name):
    return NS + "/" + name


# ------------------------------------------------------------ GatewayClass
case("gatewayclass-accepted", "GatewayClass with our controllerName: Accepted True",
     [gc()], {"statuses": {"GatewayClass default/switchyard": {"status": {"conditions": [
         cond("Accepted", True, "Accepted")]}}}}, feature="GatewayClass")
case("gatewayclass-other-controller", "GatewayClass of another controller: no status from us; "
     "its Gateways and routes are not served",
     [gc("other", "example.com/other")] + base()[1:] +
     [gateway(cls="other"), route("r", {"rules": [{"backendRefs": [be(V1)]}]})],
     {"statuses": {"GatewayClass default/other": {"status_absent": True},
                   "Gateway %s/same-namespace" % NS: {"status_absent": True},
                   "HTTPRoute %s/r" % NS: {"status": {"parents": []}}},
      "resolve": [res("/", None)]}, feature="GatewayClass")
case("gatewayclass-controller-config", "config gateway_controller names the controller we are",
     [gc("mine", "example.net/mine"), gc()],
     {"statuses": {"GatewayClass default/mine": {"status": {"conditions": [
         cond("Accepted", True, "Accepted")]}},
         "GatewayClass default/switchyard": {"status_absent": True}}},
     feature="GatewayClass", config={"gateway_controller": "example.net/mine"})

# ----------------------------------------------------------------- Gateway
GW_OK = {"status": {"conditions": [cond("Accepted", True, "Accepted"),
                                   cond("Programmed", True, "Programmed")],
                    "listeners": [{"name": "http", "attachedRoutes": 1,
                                   "supportedKinds": [{"group": G, "kind": "HTTPRoute"},
                                                      {"group": G, "kind": "GRPCRoute"}],
                                   "conditions": [cond("Accepted", True, "Accepted"),
                                                  cond("Programmed", True, "Programmed"),
                                                  cond("ResolvedRefs", True, "ResolvedRefs")]}]}}
case("gateway-accepted-programmed", "an HTTP listener on routerd's HTTP port: Accepted, "
     "Programmed, one attached route",
     base() + [gateway(), route("r", {"rules": [{"backendRefs": [be(V1)]}]})],
     {"statuses": {"Gateway %s/same-namespace" % NS: GW_OK}}, feature="Gateway")
case("gateway-port-unavailable", "a listener on a port routerd does not listen on: "
     "PortUnavailable, not programmed, nothing served",
     base() + [gateway(listeners=[listener(port=8080)]),
               route("r", {"rules": [{"backendRefs": [be(V1)]}]})],
     {"statuses": {"Gateway %s/same-namespace" % NS: {"status": {
         "conditions": [cond("Accepted", False, "ListenersNotValid"),
                        cond("Programmed", False, "Invalid")],
         "listeners": [{"name": "http", "attachedRoutes": 0,
                        "conditions": [cond("Accepted", False, "PortUnavailable"),
                                       cond("Programmed", False, "Invalid"),
                                       cond("ResolvedRefs", True, "ResolvedRefs")]}]}},
         "HTTPRoute %s/r" % NS: route_status(parent(accepted=(False, "NotAllowedByListeners")))},
      "resolve": [res("/", None)]}, feature="Gateway")



def tls_gw(name, ref, secret=None):
    objs = [gateway(name, [listener("https", 443, "HTTPS", "All", tls={"certificateRefs": [ref]})])]
    return objs + ([secret] if secret else [])


def listener_refs(reason):
    return {"status": {"listeners": [{"name": "https", "conditions": [
        cond("Accepted", True, "Accepted"), cond("Programmed", False, "Invalid"),
        cond("ResolvedRefs", False, reason)]}]}}


BAD_SECRET = {"apiVersion": "v1", "kind": "Secret",
              "metadata": {"namespace": NS, "name": "malformed-certificate"},
              "type": "kubernetes.io/tls",
              "data": {"tls.crt": "SGVsbG8gd29ybGQK", "tls.key": "SGVsbG8gd29ybGQK"}}
GOOD_SECRET = {"apiVersion": "v1", "kind": "Secret",
               "metadata": {"namespace": NS, "name": "tls-validity-checks-certificate"},
               "type": "kubernetes.io/tls", "data": {"tls.crt": CRT, "tls.key": KEY}}
for cid, ref, sec in [
        ("nonexistent-secret", {"group": "", "kind": "Secret", "name": "nonexistent-certificate"},
         None),
        ("unsupported-group", {"group": "wrong.group.company.io", "kind": "Secret",
                               "name": "tls-validity-checks-certificate"}, GOOD_SECRET),
        ("unsupported-kind", {"group": "", "kind": "WrongKind",
                              "name": "tls-validity-checks-certificate"}, GOOD_SECRET),
        ("malformed-secret", {"group": "", "kind": "Secret", "name": "malformed-certificate"},
         BAD_SECRET)]:
    case("invalid-tls-" + cid, "gateway-invalid-tls-configuration: certificateRef %s: listener "
         "ResolvedRefs False InvalidCertificateRef" % cid,
         base() + tls_gw("gateway-certificate-" + cid, ref, sec),
         {"statuses": {"Gateway %s/gateway-certificate-%s" % (NS, cid):
                       listener_refs("InvalidCertificateRef")}}, feature="Gateway")
OTHER_NS_SECRET = copy.deepcopy(GOOD_SECRET)
OTHER_NS_SECRET["metadata"]["namespace"] = WEB
case("tls-secret-other-namespace", "a certificateRef to another namespace without a "
     "ReferenceGrant: RefNotPermitted",
     base(True) + tls_gw("gw", {"name": "tls-validity-checks-certificate", "namespace": WEB},
                         OTHER_NS_SECRET),
     {"statuses": {"Gateway %s/gw" % NS: listener_refs("RefNotPermitted")}}, feature="Gateway")
GRANT_SECRET = {"apiVersion": G + "/v1beta1", "kind": "ReferenceGrant",
                "metadata": {"namespace": WEB, "name": "secrets"},
                "spec": {"from": [{"group": G, "kind": "Gateway", "namespace": NS}],
                         "to": [{"group": "", "kind": "Secret"}]}}
case("tls-secret-granted", "a certificateRef to another namespace that a ReferenceGrant allows: "
     "programmed, served with TLS terminated",
     base(True) + tls_gw("gw", {"name": "tls-validity-checks-certificate", "namespace": WEB},
                         OTHER_NS_SECRET) + [GRANT_SECRET] +
     [route("r", {"parentRefs": [{"name": "gw"}], "hostnames": ["secure.example.com"],
                  "rules": [{"backendRefs": [be(V1)]}]})],
     {"statuses": {"Gateway %s/gw" % NS: {"status": {"listeners": [{"name": "https",
                                                                      "attachedRoutes": 1,
                                                                      "conditions": [
         cond("Accepted", True, "Accepted"), cond("Programmed", True, "Programmed"),
         cond("ResolvedRefs", True, "ResolvedRefs")]}]}}},
      "resolve": [res("https://secure.example.com/", r_of("r"), V1, tls="edge")]},
     feature="Gateway")
case("https-listener-terminates", "an HTTPS listener with a kubernetes.io/tls Secret: the "
     "route's host is served with TLS terminated (edge), not over plain HTTP",
     base() + tls_gw("gw", {"name": "tls-validity-checks-certificate"}, GOOD_SECRET) +
     [route("r", {"parentRefs": [{"name": "gw"}], "hostnames": ["secure.example.com"],
                  "rules": [{"backendRefs": [be(V1)]}]})],
     {"statuses": {"HTTPRoute %s/r" % NS: route_status(parent("gw"))},
      "resolve": [res("https://secure.example.com/", r_of("r"), V1, tls="edge")]},
     feature="Gateway")
case("gateway-invalid-listeners-unsupported-protocol", "a UDP listener: UnsupportedProtocol",
     base() + [gateway(listeners=[listener("udp", 80, "UDP")])],
     {"statuses": {"Gateway %s/same-namespace" % NS: {"status": {"listeners": [
         {"name": "udp", "supportedKinds": [], "conditions": [
             cond("Accepted", False, "UnsupportedProtocol"), cond("Programmed", False, "Invalid"),
             cond("ResolvedRefs", True, "ResolvedRefs")]}]}}}}, feature="Gateway")
case("gateway-invalid-route-kind", "allowedRoutes.kinds naming a kind we do not serve: "
     "ResolvedRefs False InvalidRouteKinds, supportedKinds only the good ones",
     base() + [gateway(listeners=[listener(allowedRoutes={"kinds": [
         {"kind": "HTTPRoute"}, {"kind": "FooRoute"}]})])],
     {"statuses": {"Gateway %s/same-namespace" % NS: {"status": {"listeners": [
         {"name": "http", "supportedKinds": [{"group": G, "kind": "HTTPRoute"}],
          "conditions": [cond("Accepted", True, "Accepted"),
                         cond("Programmed", True, "Programmed"),
                         cond("ResolvedRefs", False, "InvalidRouteKinds")]}]}}}},
     feature="Gateway")

# ---------------------------------------------------------------- matching
MATCHING = route("matching", {"rules": [
    {"matches": [pp("/"), hdr(version="one")], "backendRefs": [be(V1)]},
    {"matches": [pp("/v2"), hdr(version="two")], "backendRefs": [be(V2)]}]})
case("httproute-matching", "httproute-matching: prefix element-wise, header over \"/\"",
     base() + [gateway(), MATCHING],
     {"statuses": {"HTTPRoute %s/matching" % NS: route_status(parent())},
      "resolve": [res("/", r_of("matching"), V1), res("/example", r_of("matching"), V1),
                  res("/", r_of("matching"), V1, headers={"Version": "one"}),
                  res("/v2", r_of("matching"), V2), res("/v2/example", r_of("matching"), V2),
                  res("/", r_of("matching"), V2, headers={"Version": "two"}),
                  res("/v2/", r_of("matching"), V2), res("/v2example", r_of("matching"), V1),
                  res("/foo/v2/example", r_of("matching"), V1)]})
P1 = route("matching-part1", {"hostnames": ["example.com", "example.net"], "rules": [
    {"matches": [pp("/"), hdr(version="one")], "backendRefs": [be(V1)]}]})
P2 = route("matching-part2", {"hostnames": ["example.com"], "rules": [
    {"matches": [pp("/v2"), hdr(version="two")], "backendRefs": [be(V2)]}]})
case("httproute-matching-across-routes", "httproute-matching-across-routes: two routes share "
     "a host; longest prefix and headers across them",
     base() + [gateway(), P1, P2],
     {"resolve": [
         res("http://example.com/", r_of("matching-part1"), V1),
         res("http://example.com/example", r_of("matching-part1"), V1),
         res("http://example.net/example", r_of("matching-part1"), V1),
         res("http://example.com/example", r_of("matching-part1"), V1, headers={"Version": "one"}),
         res("http://example.com/v2", r_of("matching-part2"), V2),
         res("http://example.net/v2", r_of("matching-part1"), V1),
         res("http://example.com/v2/example", r_of("matching-part2"), V2),
         res("http://example.com/", r_of("matching-part2"), V2, headers={"Version": "two"})]})
EXACT = route("exact-matching", {"rules": [
    {"matches": [pp("/one", "Exact")], "backendRefs": [be(V1)]},
    {"matches": [pp("/two", "Exact")], "backendRefs": [be(V2)]}]})
case("httproute-exact-path-matching", "httproute-exact-path-matching",
     base() + [gateway(), EXACT],
     {"resolve": [res("/one", r_of("exact-matching"), V1), res("/two", r_of("exact-matching"), V2),
                  res("/", None), res("/one/example", None), res("/two/", None),
                  res("/Two", None)]}, config=NOROUTE)
HM = route("header-matching", {"rules": [
    {"matches": [hdr(version="one")], "backendRefs": [be(V1)]},
    {"matches": [hdr(version="two")], "backendRefs": [be(V2)]},
    {"matches": [hdr(version="two", color="orange")], "backendRefs": [be(V1)]},
    {"matches": [hdr(color="blue"), hdr(color="green")], "backendRefs": [be(V1)]},
    {"matches": [hdr(color="red"), hdr(color="yellow")], "backendRefs": [be(V2)]}]})
HMO = r_of("header-matching")
case("httproute-header-matching", "httproute-header-matching: more header matches first, "
     "names case-insensitive",
     base() + [gateway(), HM],
     {"resolve": [res("/", HMO, V1, headers={"Version": "one"}),
                  res("/", HMO, V2, headers={"Version": "two"}),
                  res("/", HMO, V1, headers={"Version": "two", "Color": "orange"}),
                  res("/", HMO, V2, headers={"Version": "two", "Color": "blue"}),
                  res("/", None, headers={"Color": "orange"}),
                  res("/", None, headers={"Some-Other-Header": "one"}),
                  res("/", HMO, V1, headers={"Color": "blue"}),
                  res("/", HMO, V1, headers={"Color": "green"}),
                  res("/", HMO, V2, headers={"Color": "red"}),
                  res("/", HMO, V2, headers={"Color": "yellow"}),
                  res("/", None, headers={"Color": "purple"})]}, config=NOROUTE)
HRE = route("header-regex", {"rules": [
    {"matches": [{"headers": [{"type": "RegularExpression", "name": "version",
                               "value": "v[0-9]+"}]}], "backendRefs": [be(V1)]}]})
case("httproute-header-regex", "a RegularExpression header match is anchored (the whole value)",
     base() + [gateway(), HRE],
     {"resolve": [res("/", r_of("header-regex"), V1, headers={"version": "v12"}),
                  res("/", None, headers={"version": "xv12"}),
                  res("/", None, headers={"version": "v12x"})]}, config=NOROUTE)
PRE = route("path-regex", {"rules": [
    {"matches": [pp("/foo/[0-9]+", "RegularExpression")], "backendRefs": [be(V2)]},
    {"backendRefs": [be(V1)]}]})
case("httproute-path-regex", "a RegularExpression path match is anchored and comes before "
     "the \"/\" prefix",
     base() + [gateway(), PRE],
     {"resolve": [res("/foo/123", r_of("path-regex"), V2), res("/foo/123/x", r_of("path-regex"), V1),
                  res("/a/foo/1", r_of("path-regex"), V1)]})
MM = route("method-matching", {"rules": [
    {"matches": [{"method": "POST"}], "backendRefs": [be(V1)]},
    {"matches": [{"method": "GET"}], "backendRefs": [be(V2)]},
    {"matches": [dict(pp("/path1"), method="GET")], "backendRefs": [be(V1)]},
    {"matches": [dict(hdr(version="one"), method="PUT")], "backendRefs": [be(V2)]},
    {"matches": [dict(pp("/path2"), method="POST", **hdr(version="two"))],
     "backendRefs": [be(V3)]},
    {"matches": [dict(pp("/path3"), method="PATCH"),
                 dict(pp("/path4"), method="DELETE", **hdr(version="three"))],
     "backendRefs": [be(V1)]},
    {"matches": [pp("/path5")], "backendRefs": [be(V1)]},
    {"matches": [{"method": "PATCH"}], "backendRefs": [be(V2)]},
    {"matches": [hdr(version="four")], "backendRefs": [be(V3)]}]})
MMO = r_of("method-matching")
case("httproute-method-matching", "httproute-method-matching: method over headers, path over "
     "method",
     base() + [gateway(), MM],
     {"resolve": [res("/", MMO, V1, method="POST"), res("/", MMO, V2, method="GET"),
                  res("/", None, method="HEAD"), res("/path1", MMO, V1, method="GET"),
                  res("/", MMO, V2, method="PUT", headers={"version": "one"}),
                  res("/path2", MMO, V3, method="POST", headers={"version": "two"}),
                  res("/path3", MMO, V1, method="PATCH"),
                  res("/path4", MMO, V1, method="DELETE", headers={"version": "three"}),
                  res("/", None, method="PUT"), res("/path4", None, method="DELETE"),
                  res("/path5", MMO, V1, method="PATCH"),
                  res("/", MMO, V2, method="PATCH", headers={"version": "four"})]},
     config=NOROUTE)



def qp(**q):
    return {"queryParams": [{"name": k, "value": v} for k, v in q.items()]}


QM = route("query-param-matching", {"rules": [
    {"matches": [qp(animal="whale")], "backendRefs": [be(V1)]},
    {"matches": [qp(animal="dolphin")], "backendRefs": [be(V2)]},
    {"matches": [qp(animal="dolphin", color="blue"), qp(ANIMAL="Whale")], "backendRefs": [be(V3)]},
    {"matches": [dict(pp("/path1"), **qp(animal="whale"))], "backendRefs": [be(V1)]},
    {"matches": [dict(hdr(version="one"), **qp(animal="whale"))], "backendRefs": [be(V2)]},
    {"matches": [dict(pp("/path2"), **hdr(version="two"), **qp(animal="whale"))],
     "backendRefs": [be(V3)]},
    {"matches": [dict(pp("/path3"), **qp(animal="shark")),
                 dict(pp("/path4"), **hdr(version="three"), **qp(animal="kraken"))],
     "backendRefs": [be(V1)]},
    {"matches": [pp("/path5")], "backendRefs": [be(V1)]},
    {"matches": [qp(animal="hydra")], "backendRefs": [be(V2)]},
    {"matches": [hdr(version="four")], "backendRefs": [be(V3)]}]})
QMO = r_of("query-param-matching")
case("httproute-query-param-matching", "httproute-query-param-matching: exact values, more "
     "parameters first, names case-sensitive, headers over parameters",
     base() + [gateway(), QM],
     {"resolve": [res("/?animal=whale", QMO, V1), res("/?animal=dolphin", QMO, V2),
                  res("/?animal=dolphin&color=blue", QMO, V3), res("/?ANIMAL=Whale", QMO, V3),
                  res("/?animal=whale&otherparam=irrelevant", QMO, V1),
                  res("/?animal=dolphin&color=yellow", QMO, V2),
                  res("/?color=blue", None), res("/?animal=dog", None),
                  res("/?animal=whaledolphin", None), res("/", None),
                  res("/path1?animal=whale", QMO, V1),
                  res("/?animal=whale", QMO, V2, headers={"version": "one"}),
                  res("/path2?animal=whale", QMO, V3, headers={"version": "two"}),
                  res("/path3?animal=shark", QMO, V1),
                  res("/path4?animal=kraken", QMO, V1, headers={"version": "three"}),
                  res("/?animal=shark", None), res("/path4?animal=kraken", None),
                  res("/path5?animal=hydra", QMO, V1),
                  res("/?animal=hydra", QMO, V3, headers={"version": "four"})]},
     config=NOROUTE)
QRE = route("query-regex", {"rules": [
    {"matches": [{"queryParams": [{"type": "RegularExpression", "name": "id",
                                   "value": "[0-9]+"}]}], "backendRefs": [be(V2)]},
    {"backendRefs": [be(V1)]}]})
case("httproute-query-param-regex", "a RegularExpression query match is anchored",
     base() + [gateway(), QRE],
     {"resolve": [res("/?id=42", r_of("query-regex"), V2), res("/?id=42x", r_of("query-regex"), V1),
                  res("/?id=x42", r_of("query-regex"), V1)]})

# ---------------------------------------------------------------- hostnames
HI_GW = gateway("httproute-hostname-intersection", [
    listener("listener-1", host="very.specific.com"), listener("listener-2", host="*.wildcard.io"),
    listener("listener-3", host="*.anotherwildcard.io")])


def hi_route(name, hosts, path, backend):
    return route(name, {"parentRefs": [{"name": "httproute-hostname-intersection",
                                        "namespace": NS}],
                        "hostnames": hosts,
                        "rules": [{"matches": [pp(path)], "backendRefs": [be(backend)]}]})


HI = [hi_route("specific-host-matches-listener-specific-host",
               ["non.matching.com", "*.nonmatchingwildcard.io", "very.specific.com"], "/s1", V1),
      hi_route("specific-host-matches-listener-wildcard-host",
               ["non.matching.com", "wildcard.io", "foo.wildcard.io", "bar.wildcard.io"], "/s2", V2),
      hi_route("wildcard-host-matches-listener-specific-host",
               ["non.matching.com", "*.specific.com"], "/s3", V3),
      hi_route("wildcard-host-matches-listener-wildcard-host", ["*.anotherwildcard.io"], "/s4", V1),
      hi_route("no-intersecting-hosts", ["specific.but.wrong.com", "wildcard.io"], "/s5", V2)]
case("httproute-hostname-intersection", "httproute-hostname-intersection: the narrower of the "
     "listener's and the route's hostnames; none: NoMatchingListenerHostname",
     base() + [HI_GW] + HI,
     {"statuses": {"HTTPRoute %s/no-intersecting-hosts" % NS: route_status(parent(
         "httproute-hostname-intersection", accepted=(False, "NoMatchingListenerHostname"))),
         "HTTPRoute %s/specific-host-matches-listener-specific-host" % NS: route_status(
             parent("httproute-hostname-intersection"))},
      "resolve": [
          res("http://very.specific.com/s1", r_of(HI[0]["metadata"]["name"]), V1),
          res("http://very.specific.com:1234/s1", r_of(HI[0]["metadata"]["name"]), V1),
          res("http://non.matching.com/s1", None),
          res("http://foo.nonmatchingwildcard.io/s1", None),
          res("http://foo.wildcard.io/s2", r_of(HI[1]["metadata"]["name"]), V2),
          res("http://bar.wildcard.io/s2", r_of(HI[1]["metadata"]["name"]), V2),
          res("http://non.matching.com/s2", None), res("http://wildcard.io/s2", None),
          res("http://very.specific.com/s3", r_of(HI[2]["metadata"]["name"]), V3),
          res("http://non.matching.com/s3", None),
          res("http://foo.anotherwildcard.io/s4", r_of(HI[3]["metadata"]["name"]), V1),
          res("http://anotherwildcard.io/s4", None),
          res("http://specific.but.wrong.com/s5", None), res("http://wildcard.io/s5", None)]},
     config=NOROUTE)
LHM_GW = gateway("httproute-listener-hostname-matching", [
    listener("listener-1", host="bar.com"), listener("listener-2", host="foo.bar.com"),
    listener("listener-3", host="*.bar.com"), listener("listener-4", host="*.foo.com")])


def lhm_route(name, sections, backend):
    return route(name, {"parentRefs": [{"name": "httproute-listener-hostname-matching",
                                        "namespace": NS, "sectionName": s} for s in sections],
                        "rules": [{"backendRefs": [be(backend)]}]})


case("httproute-listener-hostname-matching", "httproute-listener-hostname-matching: "
     "sectionName picks listeners; exact hosts over wildcards; a wildcard covers any number of labels",
     base() + [LHM_GW, lhm_route("backend-v1", ["listener-1"], V1),
               lhm_route("backend-v2", ["listener-2"], V2),
               lhm_route("backend-v3", ["listener-3", "listener-4"], V3)],
     {"resolve": [res("http://bar.com/", r_of("backend-v1"), V1),
                  res("http://foo.bar.com/", r_of("backend-v2"), V2),
                  res("http://baz.bar.com/", r_of("backend-v3"), V3),
                  res("http://boo.bar.com/", r_of("backend-v3"), V3),
                  res("http://prefix.foo.com/", r_of("backend-v3"), V3),
                  res("http://multiple.prefixes.bar.com/", r_of("backend-v3"), V3),
                  res("http://multiple.prefixes.foo.com/", r_of("backend-v3"), V3),
                  res("http://foo.com/", None), res("http://no.matching.host/", None)],
      "statuses": {"HTTPRoute %s/backend-v3" % NS: route_status(
          parent("httproute-listener-hostname-matching", section="listener-3"),
          parent("httproute-listener-hostname-matching", section="listener-4"))}},
     config=NOROUTE)
case("httproute-invalid-parentref-not-matching-section-name", "a sectionName no listener has: NoMatchingParent",
     base() + [gateway(), route("r", {"parentRefs": [{"name": "same-namespace",
                                                      "sectionName": "nope"}],
                                      "rules": [{"backendRefs": [be(V1)]}]})],
     {"statuses": {"HTTPRoute %s/r" % NS: route_status(
         parent(section="nope", accepted=(False, "NoMatchingParent")))},
      "resolve": [res("/", None)]})

# ---------------------------------------------------------------- namespaces
case("httproute-invalid-cross-namespace-parent-ref", "a route in another namespace on a Same listener: "
     "NotAllowedByListeners",
     base(True) + [gateway(), route("r", {"parentRefs": [{"name": "same-namespace",
                                                          "namespace": NS}],
                                          "rules": [{"backendRefs": [be("web-backend")]}]}, ns=WEB)],
     {"statuses": {"HTTPRoute %s/r" % WEB: route_status(
         parent(accepted=(False, "NotAllowedByListeners")))}, "resolve": [res("/", None)]})
case("httproute-cross-namespace", "from All: a route of another namespace attaches",
     base(True) + [gateway("all-namespaces", [listener(frm="All")]),
                   route("r", {"parentRefs": [{"name": "all-namespaces", "namespace": NS}],
                               "rules": [{"backendRefs": [be("web-backend")]}]}, ns=WEB)],
     {"statuses": {"HTTPRoute %s/r" % WEB: route_status(parent("all-namespaces"))},
      "resolve": [res("/", WEB + "/r", [WEB + "/web-backend"])]})
case("httproute-selector-namespaces", "from Selector: the route's namespace labels decide",
     base(True) + [gateway("backend-namespaces", [listener(frm="Selector", allowedRoutes={
         "namespaces": {"from": "Selector", "selector": {"matchLabels": {
             "gateway-conformance": "web-backend"}}}})]),
         route("r", {"parentRefs": [{"name": "backend-namespaces", "namespace": NS}],
                     "rules": [{"backendRefs": [be("web-backend")]}]}, ns=WEB),
         route("r2", {"parentRefs": [{"name": "backend-namespaces"}],
                      "hostnames": ["infra.test"],
                      "rules": [{"backendRefs": [be(V1)]}]})],
     {"statuses": {"HTTPRoute %s/r" % WEB: route_status(parent("backend-namespaces")),
                   "HTTPRoute %s/r2" % NS: route_status(parent(
                       "backend-namespaces", accepted=(False, "NotAllowedByListeners")))},
      "resolve": [res("/", WEB + "/r", [WEB + "/web-backend"])]})

# ----------------------------------------------------------- backends, refs
case("httproute-weight", "httproute-weight: 70/30/0 split (weight 0 gets nothing)",
     base() + [gateway(), route("weighted-backends", {"rules": [{"backendRefs": [
         be(V1, 70), be(V2, 30), be(V3, 0)]}]})],
     {"resolve": [res("/", r_of("weighted-backends"),
                      {NS + "/" + V1: 0.7, NS + "/" + V2: 0.3})]})
GRANT = {"apiVersion": G + "/v1beta1", "kind": "ReferenceGrant",
         "metadata": {"namespace": WEB, "name": "reference-grant"},
         "spec": {"from": [{"group": G, "kind": "HTTPRoute", "namespace": NS}],
                  "to": [{"group": "", "kind": "Service", "name": "web-backend"}]}}
RG_ROUTE = route("reference-grant", {"rules": [{"backendRefs": [
    be("web-backend", namespace=WEB)]}]})
case("httproute-reference-grant", "httproute-reference-grant: a ReferenceGrant lets a route "
     "use a Service of another namespace; without it: RefNotPermitted and 500",
     base(True) + [gateway(), RG_ROUTE],
     {}, steps=[
         {"inputs": [GRANT], "expect": {
             "statuses": {"HTTPRoute %s/reference-grant" % NS: route_status(parent())},
             "resolve": [res("/", r_of("reference-grant"), [WEB + "/web-backend"])]}},
         {"delete": ["ReferenceGrant %s/reference-grant" % WEB], "expect": {
             "statuses": {"HTTPRoute %s/reference-grant" % NS: route_status(
                 parent(refs=(False, "RefNotPermitted")))},
             "resolve": [res("/", r_of("reference-grant"), action="static", status=500)]}}])
CASES[-1].pop("expect")
CASES[-1]["steps"][0]["inputs"] = base(True) + [gateway(), RG_ROUTE, GRANT]
CASES[-1].pop("inputs")
GRANT_V1 = copy.deepcopy(GRANT)
GRANT_V1["apiVersion"] = G + "/v1"
case("reference-grant-v1", "ReferenceGrant applied as v1 works the same",
     base(True) + [gateway(), RG_ROUTE, GRANT_V1],
     {"resolve": [res("/", r_of("reference-grant"), [WEB + "/web-backend"])]},
     feature="ReferenceGrant")
GRANT_OTHER = copy.deepcopy(GRANT)
GRANT_OTHER["spec"]["to"][0]["name"] = "not-web-backend"
case("reference-grant-wrong-name", "a ReferenceGrant for another Service name does not allow it",
     base(True) + [gateway(), RG_ROUTE, GRANT_OTHER],
     {"statuses": {"HTTPRoute %s/reference-grant" % NS: route_status(
         parent(refs=(False, "RefNotPermitted")))},
      "resolve": [res("/", r_of("reference-grant"), action="static", status=500)]},
     feature="ReferenceGrant")
case("httproute-invalid-cross-namespace-backend-ref", "httproute-invalid-cross-namespace-"
     "backend-ref: RefNotPermitted, 500",
     base(True) + [gateway(), route("invalid-cross-namespace-backend-ref", {"rules": [
         {"backendRefs": [be("web-backend", namespace=WEB)]}]})],
     {"statuses": {"HTTPRoute %s/invalid-cross-namespace-backend-ref" % NS: route_status(
         parent(refs=(False, "RefNotPermitted")))},
      "resolve": [res("/", r_of("invalid-cross-namespace-backend-ref"), action="static",
                      status=500)]})
case("httproute-invalid-backendref-unknown-kind", "httproute-invalid-backendref-unknown-kind: "
     "InvalidKind, 500",
     base() + [gateway(), route("invalid-backend-ref-unknown-kind", {"rules": [
         {"backendRefs": [be(V1, group="unknownkind.example.com", kind="NonExistent")]}]})],
     {"statuses": {"HTTPRoute %s/invalid-backend-ref-unknown-kind" % NS: route_status(
         parent(refs=(False, "InvalidKind")))},
      "resolve": [res("/v2", r_of("invalid-backend-ref-unknown-kind"), action="static",
                      status=500)]})
case("httproute-invalid-nonexistent-backendref", "httproute-invalid-nonexistent-backendref: "
     "BackendNotFound, 500",
     base() + [gateway(), route("invalid-backend-ref-nonexistent", {"rules": [
         {"backendRefs": [be("nonexistent")]}]})],
     {"statuses": {"HTTPRoute %s/invalid-backend-ref-nonexistent" % NS: route_status(
         parent(refs=(False, "BackendNotFound")))},
      "resolve": [res("/", r_of("invalid-backend-ref-nonexistent"), action="static",
                      status=500)]})
case("httproute-partially-invalid-backends", "one valid and one missing backend: the valid one "
     "serves, ResolvedRefs False BackendNotFound",
     base() + [gateway(), route("r", {"rules": [{"backendRefs": [be(V1), be("nonexistent")]}]})],
     {"statuses": {"HTTPRoute %s/r" % NS: route_status(parent(refs=(False, "BackendNotFound")))},
      "resolve": [res("/", r_of("r"), V1)]})

# ---------------------------------------------------------------- filters
RHM = route("request-header-modifier", {"rules": [
    {"matches": [pp("/set")], "filters": [{"type": "RequestHeaderModifier",
                                           "requestHeaderModifier": {"set": [
                                               {"name": "X-Header-Set", "value": "set-overwrites-values"}]}}],
     "backendRefs": [be(V1)]},
    {"matches": [pp("/remove")], "filters": [{"type": "RequestHeaderModifier",
                                              "requestHeaderModifier": {"remove": ["X-Header-Remove"]}}],
     "backendRefs": [be(V1)]},
    {"matches": [pp("/add")], "filters": [{"type": "RequestHeaderModifier",
                                           "requestHeaderModifier": {"add": [
                                               {"name": "X-Header-Add", "value": "add-appends-values"}]}}],
     "backendRefs": [be(V1)]}]})
RHMO = r_of("request-header-modifier")
case("httproute-request-header-modifier", "httproute-request-header-modifier: set, add and "
     "remove become the proxy's setRequestHeader / appendRequestHeader / removeRequestHeader",
     base() + [gateway(), RHM],
     {"resolve": [
         res("/set", RHMO, V1, filters=['setRequestHeader("X-Header-Set", "set-overwrites-values")']),
         res("/remove", RHMO, V1, filters=['removeRequestHeader("X-Header-Remove")']),
         res("/add", RHMO, V1, filters=['appendRequestHeader("X-Header-Add", "add-appends-values")'])],
      "statuses": {"HTTPRoute %s/request-header-modifier" % NS: {"status": {"parents": [{
          "conditions": [{"type": "Accepted", "status": "True"}, {"type": "ResolvedRefs"}]}]}}}})
RSM = route("response-header-modifier", {"rules": [
    {"matches": [pp("/set")], "filters": [{"type": "ResponseHeaderModifier",
                                           "responseHeaderModifier": {"set": [
                                               {"name": "X-Header-Set", "value": "set-overwrites-values"}]}}],
     "backendRefs": [be(V1)]},
    {"matches": [pp("/remove")], "filters": [{"type": "ResponseHeaderModifier",
                                              "responseHeaderModifier": {"remove": ["X-Header-Remove"]}}],
     "backendRefs": [be(V1)]}]})
case("httproute-response-header-modifier", "httproute-response-header-modifier: set and remove",
     base() + [gateway(), RSM],
     {"resolve": [
         res("/set", r_of("response-header-modifier"), V1, filters=[
             'setResponseHeader("X-Header-Set", "set-overwrites-values")']),
         res("/remove", r_of("response-header-modifier"), V1, filters=[
             'removeResponseHeader("X-Header-Remove")'])]})


def redirect_route(name, rr, match=None, hosts=None):
    spec = {"rules": [{"matches": [match or pp("/", "Exact")],
                       "filters": [{"type": "RequestRedirect", "requestRedirect": rr}]}]}
    if hosts:
        spec["hostnames"] = hosts
    return route(name, spec)


case("httproute-redirect-host-and-status", "httproute-redirect-host-and-status: hostname and "
     "301/302 on exact paths",
     base() + [gateway(), route("redirect-host-and-status", {"rules": [
         {"matches": [pp("/hostname-redirect", "Exact")], "filters": [
             {"type": "RequestRedirect", "requestRedirect": {"hostname": "example.org"}}]},
         {"matches": [pp("/host-and-status", "Exact")], "filters": [
             {"type": "RequestRedirect", "requestRedirect": {"hostname": "example.org",
                                                             "statusCode": 301}}]}]})],
     {"resolve": [res("/hostname-redirect", r_of("redirect-host-and-status"), action="redirect",
                      status=302, location="http://example.org/hostname-redirect"),
                  res("/host-and-status", r_of("redirect-host-and-status"), action="redirect",
                      status=301, location="http://example.org/host-and-status")]})
case("httproute-redirect-scheme", "httproute-redirect-scheme: https, the scheme's port left out",
     base() + [gateway(), redirect_route("redirect-scheme", {"scheme": "https"},
                                         pp("/scheme", "Exact"), ["example.org"])],
     {"resolve": [res("http://example.org/scheme", r_of("redirect-scheme"), action="redirect",
                      status=302, location="https://example.org/scheme")]})
case("httproute-redirect-port", "httproute-redirect-port: the port given is in the Location",
     base() + [gateway(), redirect_route("redirect-port", {"port": 8083},
                                         pp("/port", "Exact"), ["example.org"])],
     {"resolve": [res("http://example.org/port", r_of("redirect-port"), action="redirect",
                      status=302, location="http://example.org:8083/port")]})
case("httproute-redirect-port-and-scheme", "httproute-redirect-port-and-scheme: https:443 "
     "leaves the port out, https:8443 keeps it",
     base() + [gateway(), route("redirect-port-and-scheme", {"hostnames": ["example.org"], "rules": [
         {"matches": [pp("/scheme-and-port-443", "Exact")], "filters": [
             {"type": "RequestRedirect", "requestRedirect": {"scheme": "https", "port": 443}}]},
         {"matches": [pp("/scheme-and-port-8443", "Exact")], "filters": [
             {"type": "RequestRedirect", "requestRedirect": {"scheme": "https", "port": 8443}}]}]})],
     {"resolve": [res("http://example.org/scheme-and-port-443", r_of("redirect-port-and-scheme"),
                      action="redirect", location="https://example.org/scheme-and-port-443"),
                  res("http://example.org/scheme-and-port-8443", r_of("redirect-port-and-scheme"),
                      action="redirect", location="https://example.org:8443/scheme-and-port-8443")]})
case("httproute-redirect-path", "httproute-redirect-path: ReplaceFullPath (fixed Location); "
     "ReplacePrefixMatch replaces the matched prefix of the request's path, its query kept",
     base() + [gateway(), route("redirect-path", {"hostnames": ["example.org"], "rules": [
         {"matches": [pp("/full")], "filters": [
             {"type": "RequestRedirect", "requestRedirect": {"path": {
                 "type": "ReplaceFullPath", "replaceFullPath": "/full-path-replacement"}}}]},
         {"matches": [pp("/original-prefix")], "filters": [
             {"type": "RequestRedirect", "requestRedirect": {"path": {
                 "type": "ReplacePrefixMatch", "replacePrefixMatch": "/replacement-prefix"}}}]}]})],
     {"resolve": [res("http://example.org/full/path/original", r_of("redirect-path"),
                      action="redirect", status=302,
                      location="http://example.org/full-path-replacement"),
                  res("http://example.org/original-prefix/lemon", r_of("redirect-path"),
                      action="redirect", status=302,
                      location="http://example.org/replacement-prefix/lemon"),
                  res("http://example.org/original-prefix", r_of("redirect-path"),
                      action="redirect", status=302,
                      location="http://example.org/replacement-prefix"),
                  res("http://example.org/original-prefix/a/b?x=1&y=2", r_of("redirect-path"),
                      action="redirect", status=302,
                      location="http://example.org/replacement-prefix/a/b?x=1&y=2")],
      "statuses": {"HTTPRoute %s/redirect-path" % NS: {"status": {"parents": [{"conditions": [
          {"type": "Accepted", "status": "True"}, {"type": "ResolvedRefs", "status": "True"}]}]}}}})
case("httproute-redirect-request-host", "RequestRedirect on a route without hostnames: the "
     "Location takes the request's host (its port cut) and path, the scheme the filter's",
     base() + [gateway(), route("redirect-any-host", {"rules": [
         {"matches": [pp("/secure")], "filters": [
             {"type": "RequestRedirect", "requestRedirect": {"scheme": "https", "statusCode": 301}}]},
         {"matches": [pp("/re/[a-z]+", "RegularExpression")], "filters": [
             {"type": "RequestRedirect", "requestRedirect": {"hostname": "fixed.example",
                                                             "port": 8443, "scheme": "https"}}]}]})],
     {"resolve": [res("http://shop.example/secure/cart?id=7", r_of("redirect-any-host"),
                      action="redirect", status=301,
                      location="https://shop.example/secure/cart?id=7"),
                  res("http://other.example:8080/secure", r_of("redirect-any-host"),
                      action="redirect", status=301, location="https://other.example/secure"),
                  res("http://shop.example/re/abc", r_of("redirect-any-host"), action="redirect",
                      status=302, location="https://fixed.example:8443/re/abc")],
      "statuses": {"HTTPRoute %s/redirect-any-host" % NS: {"status": {"parents": [{"conditions": [
          {"type": "Accepted", "status": "True"}, {"type": "ResolvedRefs", "status": "True"}]}]}}}})
RW = route("rewrite-path", {"rules": [
    {"matches": [pp("/prefix/one")], "filters": [{"type": "URLRewrite", "urlRewrite": {"path": {
        "type": "ReplacePrefixMatch", "replacePrefixMatch": "/one"}}}], "backendRefs": [be(V1)]},
    {"matches": [pp("/full/one")], "filters": [{"type": "URLRewrite", "urlRewrite": {"path": {
        "type": "ReplaceFullPath", "replaceFullPath": "/one"}}}], "backendRefs": [be(V1)]},
    {"matches": [pp("/strip-prefix")], "filters": [{"type": "URLRewrite", "urlRewrite": {"path": {
        "type": "ReplacePrefixMatch", "replacePrefixMatch": "/"}}}], "backendRefs": [be(V1)]},
    {"matches": [pp("/host")], "filters": [{"type": "URLRewrite", "urlRewrite": {
        "hostname": "rewrite.example"}}], "backendRefs": [be(V1)]}]})
case("httproute-rewrite-path", "httproute-rewrite-path: ReplacePrefixMatch, ReplaceFullPath and "
     "hostname become the proxy's path and Host changes",
     base() + [gateway(), RW],
     {"resolve": [res("/prefix/one/two", r_of("rewrite-path"), V1, filters=[
         'replacePrefixMatch("/prefix/one", "/one")']),
         res("/full/one/two", r_of("rewrite-path"), V1, filters=['setPath("/one")']),
         res("/strip-prefix/three", r_of("rewrite-path"), V1, filters=[
             'replacePrefixMatch("/strip-prefix", "/")']),
         res("/host", r_of("rewrite-path"), V1, filters=[
             'setRequestHeader("Host", "rewrite.example")'])]})
case("httproute-request-mirror", "RequestMirror (the suite's HTTPRouteRequestMirror): the "
     "traffic to v1, a copy of every request to v2, its answer dropped",
     base() + [gateway(), route("mirror", {"rules": [{"filters": [
         {"type": "RequestMirror", "requestMirror": {"backendRef": {"name": V2, "port": 8080}}}],
         "backendRefs": [be(V1)]}]})],
     {"resolve": [res("/", r_of("mirror"), {NS + "/" + V1: 1.0}, action="backend", reply={
         "mode": "proxy", "mirrors": [{"share": 1.0, "endpoints": [
             {"address": "198.18.2.2", "port": 3000, "service": NS + "/" + V2}]}]})]})


def mirror(backend, **share):
    m = {"backendRef": {"name": backend, "port": 8080}}
    m.update(share)
    return {"type": "RequestMirror", "requestMirror": m}


def mirrored(url, obj, mirrors, **kw):
    return res(url, obj, {NS + "/" + V1: 1.0}, action="backend", reply={"mirrors": mirrors}, **kw)


case("httproute-request-multiple-mirrors", "RequestMirror twice in a rule (the suite's "
     "HTTPRouteRequestMultipleMirrors): the traffic to v1, every request copied to v2 and to v3",
     base() + [gateway(), route("multi-mirror", {"rules": [
         {"filters": [mirror(V2), mirror(V3)], "backendRefs": [be(V1)]}]})],
     {"resolve": [mirrored("/multi", r_of("multi-mirror"), [
         {"share": 1.0, "endpoints": [{"address": "198.18.2.2", "port": 3000,
                                       "service": NS + "/" + V2}]},
         {"share": 1.0, "endpoints": [{"address": "198.18.2.3", "port": 3000,
                                       "service": NS + "/" + V3}]}])]})
case("httproute-request-percentage-mirror", "RequestMirror with percent and fraction (the "
     "suite's HTTPRouteRequestPercentageMirror): 20 %, 1/2, and 35 % beside a "
     "RequestHeaderModifier",
     base() + [gateway(), route("percent-mirror", {"rules": [
         {"matches": [pp("/percent-mirror")], "filters": [mirror(V2, percent=20)],
          "backendRefs": [be(V1)]},
         {"matches": [pp("/percent-mirror-fraction")],
          "filters": [mirror(V2, fraction={"numerator": 1, "denominator": 2})],
          "backendRefs": [be(V1)]},
         {"matches": [pp("/percent-mirror-and-modify-headers")], "filters": [
             {"type": "RequestHeaderModifier", "requestHeaderModifier": {"set": [
                 {"name": "X-Header-Set", "value": "set-overwrites-values"}]}},
             mirror(V2, percent=35)], "backendRefs": [be(V1)]}]})],
     {"resolve": [
         mirrored("/percent-mirror", r_of("percent-mirror"), [{"share": 0.2}]),
         mirrored("/percent-mirror-fraction", r_of("percent-mirror"), [{"share": 0.5}]),
         mirrored("/percent-mirror-and-modify-headers", r_of("percent-mirror"), [{"share": 0.35}],
                  filters=['setRequestHeader("X-Header-Set", "set-overwrites-values")'])]})
case("httproute-request-mirror-invalid", "RequestMirror with percent 101: refused at apply, "
     "naming the field",
     base() + [gateway(), route("bad", {"rules": [
         {"filters": [mirror(V2, percent=101)], "backendRefs": [be(V1)]}]})],
     {"statuses": {"HTTPRoute %s/bad" % NS: {"rejected": [
         "HTTPRoute %s/bad: spec\\.rules\\[0\\]\\.filters\\[0\\]\\.requestMirror\\.percent: "
         "must be an integer from 0 to 100" % NS]}}})

# ---------------------------------------------------------------- precedence
OLD = route("aaa-old", {"hostnames": ["prec.test"], "rules": [
    {"matches": [pp("/p")], "backendRefs": [be(V1)]}]})
OLD["metadata"]["creationTimestamp"] = "2020-01-01T00:00:00Z"
NEW = route("aaa-new", {"hostnames": ["prec.test"], "rules": [
    {"matches": [pp("/p")], "backendRefs": [be(V2)]}]})
NEW["metadata"]["creationTimestamp"] = "2021-01-01T00:00:00Z"
case("httproute-precedence-oldest", "equal matches across routes: the oldest route wins",
     base() + [gateway(), NEW, OLD],
     {"resolve": [res("http://prec.test/p", r_of("aaa-old"), V1)]})
A = route("b-route", {"hostnames": ["prec.test"], "rules": [
    {"matches": [pp("/p")], "backendRefs": [be(V1)]}]})
B = route("a-route", {"hostnames": ["prec.test"], "rules": [
    {"matches": [pp("/p")], "backendRefs": [be(V2)]}]})
for o in (A, B):
    o["metadata"]["creationTimestamp"] = "2020-01-01T00:00:00Z"
case("httproute-precedence-alphabetical", "equal matches and ages: {namespace}/{name} "
     "alphabetical wins",
     base() + [gateway(), A, B],
     {"resolve": [res("http://prec.test/p", r_of("a-route"), V2)]})
case("httproute-precedence-rule-order", "equal matches in one route: the first rule wins",
     base() + [gateway(), route("r", {"rules": [
         {"matches": [pp("/x")], "backendRefs": [be(V1)]},
         {"matches": [pp("/x")], "backendRefs": [be(V2)]}]})],
     {"resolve": [res("/x", r_of("r"), V1)]})
case("httproute-exact-over-prefix", "an Exact path beats a prefix of the same path across routes",
     base() + [gateway(), route("p", {"rules": [{"matches": [pp("/e")], "backendRefs": [be(V1)]}]}),
               route("e", {"rules": [{"matches": [pp("/e", "Exact")], "backendRefs": [be(V2)]}]})],
     {"resolve": [res("/e", r_of("e"), V2), res("/e/x", r_of("p"), V1)]})

# ------------------------------------------------------- more of the suite
PMO = route("path-matching-order", {"rules": [
    {"matches": [pp("/match", "Exact")], "backendRefs": [be(V1)]},
    {"matches": [pp("/match/exact", "Exact")], "backendRefs": [be(V2)]},
    {"matches": [pp("/match/exact/one", "Exact")], "backendRefs": [be(V3)]},
    {"matches": [pp("/match/")], "backendRefs": [be(V3)]},
    {"matches": [pp("/match/prefix/")], "backendRefs": [be(V1)]},
    {"matches": [pp("/match/prefix/one")], "backendRefs": [be(V2)]}]})
PMOO = r_of("path-matching-order")
case("httproute-path-match-order", "httproute-path-match-order: exact before prefix, the "
     "longest prefix first",
     base() + [gateway(), PMO],
     {"resolve": [res("/match/exact/one", PMOO, V3), res("/match/exact", PMOO, V2),
                  res("/match", PMOO, V1), res("/match/prefix/one/any", PMOO, V2),
                  res("/match/prefix/any", PMOO, V1), res("/match/any", PMOO, V3)]})
case("httproute-omitted-backendrefs", "httproute-omitted-backendrefs: a rule without "
     "backendRefs (omitted or empty) answers 500",
     base() + [gateway(), route("omitted-backendrefs", {"rules": [
         {"matches": [pp("/omitted-no-forward", "Exact")]},
         {"matches": [pp("/empty-no-forward", "Exact")], "backendRefs": []},
         {"matches": [pp("/")], "backendRefs": [be(V1)]}]})],
     {"resolve": [res("/forward", r_of("omitted-backendrefs"), V1),
                  res("/omitted-no-forward", r_of("omitted-backendrefs"), action="static",
                      status=500),
                  res("/empty-no-forward", r_of("omitted-backendrefs"), action="static",
                      status=500)]})
case("httproute-invalid-parentref-not-matching-listener-port", "httproute-invalid-parentref-"
     "not-matching-listener-port: parentRef port 81: NoMatchingParent",
     base() + [gateway(), route("httproute-listener-not-matching-route-port", {
         "parentRefs": [{"name": "same-namespace", "namespace": NS, "port": 81}],
         "rules": [{"backendRefs": [be(V1, kind="Service")]}]})],
     {"statuses": {"HTTPRoute %s/httproute-listener-not-matching-route-port" % NS: {"status": {
         "parents": [{"parentRef": {"name": "same-namespace", "port": 81}, "conditions": [
             cond("Accepted", False, "NoMatchingParent"),
             cond("ResolvedRefs", True, "ResolvedRefs")]}]}}},
      "resolve": [res("/", None)]})
case("httproute-invalid-parentref-section-name-not-matching-port", "httproute-invalid-"
     "parentref-section-name-not-matching-port: sectionName and port of different "
     "listeners: NoMatchingParent",
     base() + [gateway(), route("r", {"parentRefs": [{"name": "same-namespace",
                                                      "sectionName": "http", "port": 81}],
                                      "rules": [{"backendRefs": [be(V1)]}]})],
     {"statuses": {"HTTPRoute %s/r" % NS: {"status": {"parents": [{"conditions": [
         cond("Accepted", False, "NoMatchingParent"), cond("ResolvedRefs", True, "ResolvedRefs")]}]}}}})
case("httproute-disallowed-kind", "httproute-disallowed-kind: an HTTPRoute on a listener for "
     "TLSRoutes only: NotAllowedByListeners",
     base() + [gateway("tlsroutes-only", [listener("tls", 443, "TLS", tls={"mode": "Passthrough"},
                                                   allowedRoutes={"namespaces": {"from": "Same"},
                                                                  "kinds": [{"kind": "TLSRoute"}]})]),
               route("disallowed-kind", {"parentRefs": [{"name": "tlsroutes-only", "namespace": NS}],
                                         "rules": [{"backendRefs": [be(V1)]}]})],
     {"statuses": {"HTTPRoute %s/disallowed-kind" % NS: route_status(
         parent("tlsroutes-only", accepted=(False, "NotAllowedByListeners")))}})
RH = route("rewrite-host", {"hostnames": ["rewrite.example"], "rules": [
    {"matches": [pp("/one")], "filters": [{"type": "URLRewrite", "urlRewrite": {
        "hostname": "one.example.org"}}], "backendRefs": [be(V1)]},
    {"filters": [{"type": "URLRewrite", "urlRewrite": {"hostname": "example.org"}}],
     "backendRefs": [be(V2)]},
    {"matches": [pp("/rewrite-host-and-modify-headers")], "filters": [
        {"type": "URLRewrite", "urlRewrite": {"hostname": "test.example.org"}},
        {"type": "RequestHeaderModifier", "requestHeaderModifier": {
            "set": [{"name": "X-Header-Set", "value": "set-overwrites-values"}],
            "add": [{"name": "X-Header-Add", "value": "header-val-1"}],
            "remove": ["X-Header-Remove"]}}], "backendRefs": [be(V2)]}]})
case("httproute-rewrite-host", "httproute-rewrite-host: the Host the backend gets, with header "
     "set, remove and add on the same rule",
     base() + [gateway(), RH],
     {"resolve": [res("http://rewrite.example/one", r_of("rewrite-host"), V1,
                      filters=['setRequestHeader("Host", "one.example.org")']),
                  res("http://rewrite.example/two", r_of("rewrite-host"), V2,
                      filters=['setRequestHeader("Host", "example.org")']),
                  res("http://rewrite.example/rewrite-host-and-modify-headers",
                      r_of("rewrite-host"), V2, filters=[
                          'setRequestHeader("Host", "test.example.org")',
                          'setRequestHeader("X-Header-Set", "set-overwrites-values")',
                          'removeRequestHeader("X-Header-Remove")',
                          'appendRequestHeader("X-Header-Add", "header-val-1")'])]})
case("httproute-simple-same-namespace", "httproute-simple-same-namespace: Accepted, "
     "ResolvedRefs, served",
     base() + [gateway(), route("gateway-conformance-infra-test", {"rules": [
         {"backendRefs": [be(V1)]}]})],
     {"statuses": {"HTTPRoute %s/gateway-conformance-infra-test" % NS: route_status(parent())},
      "resolve": [res("/", r_of("gateway-conformance-infra-test"), V1)]})
WRONG_GRANTS = []
for gname, frm, to, gns in [
        ("wrong-namespace", {"group": G, "kind": "HTTPRoute", "namespace": NS},
         {"group": "", "kind": "Service", "name": "web-backend"}, NS),
        ("wrong-from-group", {"group": "not-the-group", "kind": "HTTPRoute", "namespace": NS},
         {"group": "", "kind": "Service", "name": "web-backend"}, WEB),
        ("wrong-from-kind", {"group": G, "kind": "Gateway", "namespace": NS},
         {"group": "", "kind": "Service", "name": "web-backend"}, WEB),
        ("wrong-from-namespace", {"group": G, "kind": "HTTPRoute", "namespace": "elsewhere"},
         {"group": "", "kind": "Service", "name": "web-backend"}, WEB),
        ("wrong-to-group", {"group": G, "kind": "HTTPRoute", "namespace": NS},
         {"group": "not-the-group", "kind": "Service", "name": "web-backend"}, WEB),
        ("wrong-to-kind", {"group": G, "kind": "HTTPRoute", "namespace": NS},
         {"group": "", "kind": "Secret", "name": "web-backend"}, WEB),
        ("wrong-to-name", {"group": G, "kind": "HTTPRoute", "namespace": NS},
         {"group": "", "kind": "Service", "name": "not-the-service"}, WEB)]:
    WRONG_GRANTS.append({"apiVersion": G + "/v1", "kind": "ReferenceGrant",
                         "metadata": {"namespace": gns, "name": "reference-grant-" + gname},
                         "spec": {"from": [frm], "to": [to]}})
case("httproute-invalid-reference-grant", "httproute-invalid-reference-grant: seven "
     "ReferenceGrants each wrong in one field: RefNotPermitted, 500",
     base(True) + WRONG_GRANTS + [gateway(), RG_ROUTE],
     {"statuses": {"HTTPRoute %s/reference-grant" % NS: route_status(
         parent(refs=(False, "RefNotPermitted")))},
      "resolve": [res("/", r_of("reference-grant"), action="static", status=500)]})
APP = "gateway-conformance-app-backend"
case("httproute-partially-invalid-via-invalid-reference-grant", "httproute-partially-invalid-"
     "via-invalid-reference-grant: the permitted rule serves, the other answers 500",
     base() + [namespace(APP)] + svc("app-backend-v1", "198.18.2.21", APP) +
     svc("app-backend-v2", "198.18.2.22", APP) +
     [{"apiVersion": G + "/v1", "kind": "ReferenceGrant",
       "metadata": {"namespace": APP, "name": "invalid-reference-grant"},
       "spec": {"from": [{"group": G, "kind": "HTTPRoute", "namespace": NS}],
                "to": [{"group": "", "kind": "Service", "name": "app-backend-v1"}]}},
      gateway(), route("invalid-reference-grant", {"rules": [
          {"matches": [pp("/v2")], "backendRefs": [be("app-backend-v2", namespace=APP)]},
          {"backendRefs": [be("app-backend-v1", namespace=APP)]}]})],
     {"statuses": {"HTTPRoute %s/invalid-reference-grant" % NS: route_status(
         parent(refs=(False, "RefNotPermitted")))},
      "resolve": [res("/v2", r_of("invalid-reference-grant"), action="static", status=500),
                  res("/", r_of("invalid-reference-grant"), [APP + "/app-backend-v1"])]})
ISO_GW = gateway("http-listener-isolation", [
    listener("empty-hostname", frm="All"),
    listener("wildcard-example-com", frm="All", host="*.example.com"),
    listener("wildcard-foo-example-com", frm="All", host="*.foo.example.com"),
    listener("abc-foo-example-com", frm="All", host="abc.foo.example.com")])


def iso_route(section):
    return route("attaches-to-" + section, {
        "parentRefs": [{"name": "http-listener-isolation", "namespace": NS,
                        "sectionName": section}],
        "rules": [{"matches": [pp("/" + section)], "backendRefs": [be(V1)]}]})


ISO_SECTIONS = ["empty-hostname", "wildcard-example-com", "wildcard-foo-example-com",
                "abc-foo-example-com"]
ISO_EXPECT = []
for host, served in [("bar.com", "empty-hostname"), ("bar.example.com", "wildcard-example-com"),
                     ("bar.foo.example.com", "wildcard-foo-example-com"),
                     ("abc.foo.example.com", "abc-foo-example-com")]:
    for sec in ISO_SECTIONS:
        ISO_EXPECT.append(res("http://%s/%s" % (host, sec),
                              r_of("attaches-to-" + sec) if sec == served else None,
                              V1 if sec == served else None))
case("gateway-http-listener-isolation", "gateway-http-listener-isolation: a request is served "
     "only by the routes of the most specific listener for its host",
     base() + [ISO_GW] + [iso_route(sec) for sec in ISO_SECTIONS],
     {"resolve": ISO_EXPECT}, config=NOROUTE, feature="Gateway")
PM_GW = gateway("httproute-listener-port-matching", [
    listener("listener-1", host="foo.com"), listener("listener-2", 8080, host="foo.com"),
    listener("listener-3", 8080, host="bar.com")])


def pm_route(name, backend, **ref):
    r = {"name": "httproute-listener-port-matching", "namespace": NS}
    r.update(ref)
    return route(name, {"parentRefs": [r], "rules": [{"backendRefs": [be(backend)]}]})


case("httproute-listener-port-matching", "httproute-listener-port-matching: parentRef port "
     "picks listeners; those on ports routerd does not serve take no route",
     base() + [PM_GW, pm_route("backend-v1", V1, port=80), pm_route("backend-v2", V2, port=8080)],
     {"resolve": [res("http://foo.com/", r_of("backend-v1"), V1), res("http://bar.com/", None)],
      "statuses": {"HTTPRoute %s/backend-v1" % NS: {"status": {"parents": [{"conditions": [
          cond("Accepted", True, "Accepted"), cond("ResolvedRefs", True, "ResolvedRefs")]}]}},
          "HTTPRoute %s/backend-v2" % NS: {"status": {"parents": [{"conditions": [
              cond("Accepted", False, "NotAllowedByListeners"),
              cond("ResolvedRefs", True, "ResolvedRefs")]}]}}}}, config=NOROUTE)
case("gateway-with-attached-routes", "gateway-with-attached-routes: attachedRoutes counts the "
     "routes per listener (two on one, none on the other)",
     base() + [gateway("gateway-with-two-listeners-and-one-attached-route", [
         listener("http-unattached", host="unattached.test"),
         listener("http", host="attached.test")]),
         route("r1", {"parentRefs": [{"name": "gateway-with-two-listeners-and-one-attached-route",
                                      "sectionName": "http"}],
                      "rules": [{"backendRefs": [be(V1)]}]}),
         route("r2", {"parentRefs": [{"name": "gateway-with-two-listeners-and-one-attached-route",
                                      "sectionName": "http"}],
                      "rules": [{"matches": [pp("/two")], "backendRefs": [be(V2)]}]})],
     {"statuses": {"Gateway %s/gateway-with-two-listeners-and-one-attached-route" % NS: {
         "status": {"listeners": [{"name": "http-unattached", "attachedRoutes": 0},
                                  {"name": "http", "attachedRoutes": 2}]}}},
      "resolve": [res("http://attached.test/two", r_of("r2"), V2),
                  res("http://attached.test/", r_of("r1"), V1)]}, feature="Gateway")
case("gateway-modify-listeners", "gateway-modify-listeners: a listener added later takes the "
     "routes that name it",
     [], {}, feature="Gateway", config=NOROUTE, steps=[
         {"inputs": base() + [gateway("gateway-add-listener", [listener("http", host="one.test")]),
                              route("r", {"parentRefs": [{"name": "gateway-add-listener",
                                                          "sectionName": "added"}],
                                          "hostnames": ["two.test"],
                                          "rules": [{"backendRefs": [be(V1)]}]})],
          "expect": {"statuses": {"HTTPRoute %s/r" % NS: {"status": {"parents": [{
              "conditions": [cond("Accepted", False, "NoMatchingParent"),
                             cond("ResolvedRefs", True, "ResolvedRefs")]}]}}},
              "resolve": [res("http://two.test/", None)]}},
         {"inputs": [gateway("gateway-add-listener", [listener("http", host="one.test"),
                                                       listener("added", host="*.test")])],
          "expect": {"statuses": {"HTTPRoute %s/r" % NS: {"status": {"parents": [{
              "conditions": [cond("Accepted", True, "Accepted"),
                             cond("ResolvedRefs", True, "ResolvedRefs")]}]}},
              "Gateway %s/gateway-add-listener" % NS: {"status": {"listeners": [
                  {"name": "http", "attachedRoutes": 0}, {"name": "added", "attachedRoutes": 1}]}}},
              "resolve": [res("http://two.test/", r_of("r"), V1)]}}])
CASES[-1].pop("inputs")
CASES[-1].pop("expect")
SECRET_GW = tls_gw("gateway-secret-ref", {"name": "tls-validity-checks-certificate",
                                          "namespace": WEB}, OTHER_NS_SECRET)
for cid, grant, ok in [
        ("gateway-secret-missing-reference-grant", None, False),
        ("gateway-secret-invalid-reference-grant",
         {"from": [{"group": G, "kind": "Gateway", "namespace": "elsewhere"}],
          "to": [{"group": "", "kind": "Secret", "name": "tls-validity-checks-certificate"}]},
         False),
        ("gateway-secret-reference-grant-specific",
         {"from": [{"group": G, "kind": "Gateway", "namespace": NS}],
          "to": [{"group": "", "kind": "Secret", "name": "tls-validity-checks-certificate"}]},
         True),
        ("gateway-secret-reference-grant-all-in-namespace",
         {"from": [{"group": G, "kind": "Gateway", "namespace": NS}],
          "to": [{"group": "", "kind": "Secret"}]}, True)]:
    objs = base(True) + SECRET_GW
    if grant:
        objs.append({"apiVersion": G + "/v1beta1", "kind": "ReferenceGrant",
                     "metadata": {"namespace": WEB, "name": "grant"}, "spec": grant})
    case(cid, cid + ": a certificateRef across namespaces %s" % (
        "is allowed by the ReferenceGrant" if ok else "without a matching ReferenceGrant: "
        "RefNotPermitted"), objs,
         {"statuses": {"Gateway %s/gateway-secret-ref" % NS: {"status": {"listeners": [{
             "name": "https", "conditions": [
                 cond("Accepted", True, "Accepted"),
                 cond("Programmed", ok, "Programmed" if ok else "Invalid"),
                 cond("ResolvedRefs", ok, "ResolvedRefs" if ok else "RefNotPermitted")]}]}}}},
         feature="Gateway")
case("httproute-https-listener", "httproute-https-listener: routes on an HTTPS listener with "
     "a hostname are served with TLS terminated; another host is not",
     base() + [GOOD_SECRET, gateway("same-namespace-with-https-listener", [
         listener("https-with-hostname", 443, "HTTPS", host="secure.example.com",
                  tls={"certificateRefs": [{"group": "", "kind": "Secret",
                                            "name": "tls-validity-checks-certificate"}]})]),
         route("https-route", {"parentRefs": [{"name": "same-namespace-with-https-listener"}],
                               "rules": [{"backendRefs": [be(V1)]}]})],
     {"resolve": [res("https://secure.example.com/", r_of("https-route"), V1, tls="edge"),
                  res("https://other.example.com/", None)],
      "statuses": {"HTTPRoute %s/https-route" % NS: route_status(
          parent("same-namespace-with-https-listener"))}}, config=NOROUTE)

case("https-and-http-listeners-share-a-host", "an HTTP listener and an HTTPS listener take "
     "one host: one vhost, TLS terminated with the HTTPS listener's certificate; the rules of "
     "a route attached over HTTP are served over both",
     base() + [GOOD_SECRET, gateway("mixed", [
         listener("http"), listener("https", 443, "HTTPS", host="secure.example.com",
                                    tls={"certificateRefs": [{"name": "tls-validity-checks-certificate"}]})]),
         route("plain", {"parentRefs": [{"name": "mixed", "sectionName": "http"}],
                         "hostnames": ["secure.example.com"],
                         "rules": [{"backendRefs": [be(V1)]}]}),
         route("tls-only", {"parentRefs": [{"name": "mixed", "sectionName": "https"}],
                            "rules": [{"matches": [pp("/s")], "backendRefs": [be(V2)]}]})],
     {"resolve": [res("https://secure.example.com/", r_of("plain"), V1, tls="edge"),
                  res("http://secure.example.com/", r_of("plain"), V1),
                  res("https://secure.example.com/s", r_of("tls-only"), V2, tls="edge")]},
     feature="Gateway")

# ---------------------------------------------------------------- TLSRoute
TLS_GW = gateway("gateway-tlsroute", [listener("tls", 443, "TLS", tls={"mode": "Passthrough"},
                                               allowedRoutes={"namespaces": {"from": "Same"},
                                                              "kinds": [{"kind": "TLSRoute"}]})])
case("tlsroute-passthrough", "tlsroute-simple-same-namespace: SNI to a spliced passthrough backend",
     base() + [TLS_GW, route("gateway-conformance-infra-test", {
         "parentRefs": [{"name": "gateway-tlsroute"}], "hostnames": ["abc.example.com"],
         "rules": [{"backendRefs": [{"name": V1, "port": 443}]}]}, kind="TLSRoute", api="v1alpha2")],
     {"statuses": {"TLSRoute %s/gateway-conformance-infra-test" % NS: route_status(
         parent("gateway-tlsroute"))},
      "resolve": [res("https://abc.example.com/", r_of("gateway-conformance-infra-test"), V1,
                      tls="passthrough")]}, feature="TLSRoute")
case("tlsroute-on-http-listener", "a TLSRoute on an HTTP listener: NotAllowedByListeners",
     base() + [gateway(), route("t", {"hostnames": ["abc.example.com"],
                                      "rules": [{"backendRefs": [{"name": V1, "port": 443}]}]},
                                kind="TLSRoute", api="v1alpha2")],
     {"statuses": {"TLSRoute %s/t" % NS: route_status(
         parent(accepted=(False, "NotAllowedByListeners")))}}, feature="TLSRoute")

case("tlsroute-invalid-backendref-nonexistent", "tlsroute-invalid-backendref-nonexistent: "
     "BackendNotFound",
     base() + [TLS_GW, route("r", {"parentRefs": [{"name": "gateway-tlsroute"}],
                                   "hostnames": ["abc.example.com"],
                                   "rules": [{"backendRefs": [{"name": "nonexistent", "port": 443}]}]},
                             kind="TLSRoute", api="v1alpha2")],
     {"statuses": {"TLSRoute %s/r" % NS: route_status(
         parent("gateway-tlsroute", refs=(False, "BackendNotFound")))},
      "resolve": [res("https://abc.example.com/", None)]}, feature="TLSRoute")
case("tlsroute-invalid-no-matching-listener-hostname", "tlsroute-invalid-no-matching-listener-"
     "hostname: NoMatchingListenerHostname",
     base() + [gateway("gateway-tlsroute", [listener("tls", 443, "TLS", host="*.example.org",
                                                     tls={"mode": "Passthrough"})]),
               route("r", {"parentRefs": [{"name": "gateway-tlsroute"}],
                           "hostnames": ["abc.example.com"],
                           "rules": [{"backendRefs": [{"name": V1, "port": 443}]}]},
                     kind="TLSRoute", api="v1alpha2")],
     {"statuses": {"TLSRoute %s/r" % NS: route_status(
         parent("gateway-tlsroute", accepted=(False, "NoMatchingListenerHostname")))}},
     feature="TLSRoute")

# --------------------------------------------------------------- GRPCRoute
def grpc_route(name, rules, hosts=("grpc.example.com",)):
    return route(name, {"hostnames": list(hosts), "rules": rules}, kind="GRPCRoute")


def gm(service=None, method=None, typ=None):
    m = {}
    if typ:
        m["type"] = typ
    if service:
        m["service"] = service
    if method:
        m["method"] = method
    return {"method": m}


case("grpcroute-exact-method-matching", "grpcroute-exact-method-matching: service and method "
     "Exact pick the backend; the backends speak h2c",
     base() + [gateway(), grpc_route("exact", [
         {"matches": [gm("switchyard.Echo", "Get")], "backendRefs": [be(V1)]},
         {"matches": [gm("switchyard.Echo")], "backendRefs": [be(V2)]},
         {"matches": [gm(method="Put")], "backendRefs": [be(V3)]}])],
     {"statuses": {"GRPCRoute %s/exact" % NS: route_status(parent())},
      "resolve": [res("http://grpc.example.com/switchyard.Echo/Get", r_of("exact"), V1,
                      method="POST", reply={"services": [{"protocol": "h2c"}]}),
                  res("http://grpc.example.com/switchyard.Echo/List", r_of("exact"), V2,
                      method="POST"),
                  res("http://grpc.example.com/other.Svc/Put", r_of("exact"), V3, method="POST"),
                  res("http://grpc.example.com/other.Svc/Get", None, method="POST")]},
     feature="GRPCRoute")
case("grpcroute-regex-and-headers", "GRPCRoute RegularExpression method matches (an absent "
     "part any name) and header matches",
     base() + [gateway(), grpc_route("re", [
         {"matches": [gm("switchyard\\.E.*", typ="RegularExpression")], "backendRefs": [be(V1)]},
         {"matches": [hdr(version="two")], "backendRefs": [be(V2)]}])],
     {"resolve": [res("http://grpc.example.com/switchyard.Echo/Get", r_of("re"), V1,
                      method="POST"),
                  res("http://grpc.example.com/x.Y/Z", r_of("re"), V2, method="POST",
                      headers={"version": "two"}),
                  res("http://grpc.example.com/x.Y/Z", None, method="POST")]},
     feature="GRPCRoute")
case("grpcroute-listener-kinds", "a listener whose allowedRoutes.kinds names HTTPRoute only: "
     "a GRPCRoute is NotAllowedByListeners",
     base() + [gateway(listeners=[listener(allowedRoutes={"namespaces": {"from": "Same"},
                                                          "kinds": [{"kind": "HTTPRoute"}]})]),
               grpc_route("g", [{"backendRefs": [be(V1)]}])],
     {"statuses": {"GRPCRoute %s/g" % NS: route_status(
         parent(accepted=(False, "NotAllowedByListeners")))},
      "resolve": [res("http://grpc.example.com/a.B/C", None, method="POST")]},
     feature="GRPCRoute")
case("bad-grpcroute-method", "a GRPCRoute method match without service or method: refused "
     "naming the field",
     base() + [gateway(), grpc_route("bad", [{"matches": [{"method": {"type": "Exact"}}]}])],
     {"statuses": {"GRPCRoute %s/bad" % NS: {"rejected": [
         r"spec\.rules\[0\]\.matches\[0\]\.method: one of service and method is required"]}}},
     feature="GRPCRoute")

OS_ROUTE = {"apiVersion": "route.openshift.io/v1", "kind": "Route",
            "metadata": {"namespace": NS, "name": "old", "creationTimestamp": "2020-01-01T00:00:00Z"},
            "spec": {"host": "shared.test", "to": {"kind": "Service", "name": V3}}}
case("httproute-host-held-by-older-route", "one host space across kinds: an older OpenShift "
     "Route keeps the host; the HTTPRoute's Accepted message says who has it",
     base() + [OS_ROUTE, gateway(), route("newer", {"hostnames": ["shared.test", "own.test"],
                                                    "rules": [{"backendRefs": [be(V1)]}]})],
     {"resolve": [res("http://shared.test/", NS + "/old", kind="Route"),
                  res("http://own.test/", r_of("newer"), V1)],
      "statuses": {"HTTPRoute %s/newer" % NS: {"status": {"parents": [{"conditions": [
          {"type": "Accepted", "status": "True", "reason": "Accepted",
           "message": "host \"shared.test\" is served by Route.route.openshift.io "
                      "gateway-conformance-infra/old (an older claim)"},
          cond("ResolvedRefs", True, "ResolvedRefs")]}]}}}},
     features=["Route", "HTTPRoute"])

OG_GW1 = gateway("gateway-observed-generation-bump", [listener(host="bar.com", frm="All")])
OG_GW2 = gateway("gateway-observed-generation-bump", [listener(host="bar.com", frm="All"),
                                                      listener("alternate", host="foo.com", frm="All")])


def og(gen, listeners):
    c = lambda t, r: {"type": t, "status": "True", "reason": r, "observedGeneration": gen}
    return {"status": {"conditions": [c("Accepted", "Accepted"), c("Programmed", "Programmed")],
                       "listeners": [{"name": n, "conditions": [
                           c("Accepted", "Accepted"), c("Programmed", "Programmed"),
                           c("ResolvedRefs", "ResolvedRefs")]} for n in listeners]}}


case("gateway-observed-generation-bump", "gateway-observed-generation-bump: metadata.generation "
     "1, one more when spec changes (not when re-applied unchanged); every condition's "
     "observedGeneration follows", [], {}, feature="Gateway", steps=[
         {"inputs": base() + [OG_GW1], "expect": {"statuses": {
             "Gateway %s/gateway-observed-generation-bump" % NS: og(1, ["http"])}}},
         {"inputs": [OG_GW1], "expect": {"statuses": {
             "Gateway %s/gateway-observed-generation-bump" % NS: og(1, ["http"])}}},
         {"inputs": [OG_GW2], "expect": {"statuses": {
             "Gateway %s/gateway-observed-generation-bump" % NS: og(2, ["http", "alternate"])}}}])
CASES[-1].pop("inputs")
CASES[-1].pop("expect")
HOG1 = route("observed-generation-bump", {"rules": [{"backendRefs": [be(V1)]}]})
HOG2 = route("observed-generation-bump", {"rules": [{"backendRefs": [be(V2)]}]})


def hog(gen):
    return {"status": {"parents": [{"conditions": [
        {"type": "Accepted", "status": "True", "observedGeneration": gen},
        {"type": "ResolvedRefs", "status": "True", "observedGeneration": gen}]}]}}


case("httproute-observed-generation-bump", "httproute-observed-generation-bump: the parents' "
     "conditions carry the route's new generation", [], {}, steps=[
         {"inputs": base() + [gateway(), HOG1], "expect": {"statuses": {
             "HTTPRoute %s/observed-generation-bump" % NS: hog(1)}}},
         {"inputs": [HOG2], "expect": {"statuses": {
             "HTTPRoute %s/observed-generation-bump" % NS: hog(2)},
             "resolve": [res("/", r_of("observed-generation-bump"), V2)]}}])
CASES[-1].pop("inputs")
CASES[-1].pop("expect")
case("gatewayclass-observed-generation-bump", "gatewayclass-observed-generation-bump",
     [], {}, feature="GatewayClass", steps=[
         {"inputs": [gc()], "expect": {"statuses": {"GatewayClass default/switchyard": {
             "status": {"conditions": [{"type": "Accepted", "observedGeneration": 1}]}}}}},
         {"inputs": [dict(gc(), spec={"controllerName": CTRL, "description": "changed"})],
          "expect": {"statuses": {"GatewayClass default/switchyard": {
              "status": {"conditions": [{"type": "Accepted", "observedGeneration": 2}]}}}}}])
CASES[-1].pop("inputs")
CASES[-1].pop("expect")

# ---------------------------------------------------------------- bad input
BAD = [
    ("path-type-fuzzy", {"rules": [{"matches": [pp("/x", "Fuzzy")], "backendRefs": [be(V1)]}]},
     r"HTTPRoute %s/bad: spec\.rules\[0\]\.matches\[0\]\.path\.type: \"Fuzzy\"" % NS),
    ("regex-malformed", {"rules": [{"matches": [pp("/x(", "RegularExpression")],
                                    "backendRefs": [be(V1)]}]},
     r"spec\.rules\[0\]\.matches\[0\]\.path\.value: \"/x\(\": not a regular expression"),
    ("header-regex-malformed", {"rules": [{"matches": [{"headers": [
        {"type": "RegularExpression", "name": "a", "value": "[z"}]}]}]},
     r"spec\.rules\[0\]\.matches\[0\]\.headers\[0\]\.value: \"\[z\": not a regular"),
    ("backend-port-missing", {"rules": [{"backendRefs": [{"name": V1}]}]},
     r"spec\.rules\[0\]\.backendRefs\[0\]\.port: required when kind is Service"),
    ("parentref-name-missing", {"parentRefs": [{"namespace": NS}]},
     r"spec\.parentRefs\[0\]\.name: required"),
    ("redirect-status-303", {"rules": [{"filters": [{"type": "RequestRedirect",
                                                     "requestRedirect": {"statusCode": 303}}]}]},
     r"spec\.rules\[0\]\.filters\[0\]\.requestRedirect\.statusCode: must be 301 or 302"),
    ("method-unknown", {"rules": [{"matches": [{"method": "FETCH"}]}]},
     r"spec\.rules\[0\]\.matches\[0\]\.method: \"FETCH\""),
    ("hostname-ip", {"hostnames": ["198.18.0.1"]}, r"spec\.hostnames\[0\]: \"198\.18\.0\.1\""),
    ("replace-prefix-on-exact", {"rules": [{"matches": [pp("/x", "Exact")], "filters": [
        {"type": "URLRewrite", "urlRewrite": {"path": {"type": "ReplacePrefixMatch",
                                                        "replacePrefixMatch": "/y"}}}]}]},
     r"urlRewrite\.path\.type: ReplacePrefixMatch needs the rule to have exactly one match"),
]
for bid, spec, pat in BAD:
    case("bad-" + bid, "refused at apply naming object, field and value: " + bid,
         base() + [gateway(), route("bad", spec)],
         {"statuses": {"HTTPRoute %s/bad" % NS: {"rejected": [pat]}}})
case("bad-gateway-listener", "a Gateway listener without port, an HTTPS one without tls: refused",
     base() + [gateway("bad", [{"name": "a", "protocol": "HTTP"},
                               {"name": "b", "port": 443, "protocol": "HTTPS"}])],
     {"statuses": {"Gateway %s/bad" % NS: {"rejected": [
         r"Gateway %s/bad: spec\.listeners\[0\]\.port: required" % NS,
         r"spec\.listeners\[1\]\.tls: required for protocol HTTPS"]}}}, feature="Gateway")
case("bad-gateway-from", "allowedRoutes.namespaces.from Nearby: refused",
     base() + [gateway("bad", [listener(frm="Nearby")])],
     {"statuses": {"Gateway %s/bad" % NS: {"rejected": [
         r"spec\.listeners\[0\]\.allowedRoutes\.namespaces\.from: \"Nearby\""]}}},
     feature="Gateway")
case("bad-gatewayclass", "GatewayClass without controllerName: refused",
     [{"apiVersion": G + "/v1", "kind": "GatewayClass", "metadata": {"name": "x"}, "spec": {}}],
     {"statuses": {"GatewayClass default/x": {"rejected": [
         r"spec\.controllerName: required"]}}}, feature="GatewayClass")
case("bad-reference-grant", "ReferenceGrant without from[].namespace: refused",
     [{"apiVersion": G + "/v1beta1", "kind": "ReferenceGrant",
       "metadata": {"namespace": WEB, "name": "g"},
       "spec": {"from": [{"group": G, "kind": "HTTPRoute"}],
                "to": [{"group": "", "kind": "Service"}]}}],
     {"statuses": {"ReferenceGrant %s/g" % WEB: {"rejected": [
         r"spec\.from\[0\]: namespace: required"]}}}, feature="ReferenceGrant")

# ---------------------------------------------------------------- updates
case("gateway-listener-change-moves-routes", "a listener's hostname changed: the route's host "
     "moves with it (one-object change rebuilds the old and the new host)",
     [], {}, steps=[
         {"inputs": base() + [gateway(listeners=[listener(host="one.test")]),
                              route("r", {"rules": [{"backendRefs": [be(V1)]}]})],
          "expect": {"resolve": [res("http://one.test/", r_of("r"), V1)]}},
         {"inputs": [gateway(listeners=[listener(host="two.test")])],
          "expect": {"resolve": [res("http://two.test/", r_of("r"), V1),
                                 res("http://one.test/", None)]}}], config=NOROUTE)
CASES[-1].pop("inputs")
CASES[-1].pop("expect")
case("gateway-deleted-detaches", "the Gateway deleted: its routes are not served, their status "
     "has no parent of ours",
     [], {}, steps=[
         {"inputs": base() + [gateway(), route("r", {"rules": [{"backendRefs": [be(V1)]}]})],
          "expect": {"resolve": [res("/", r_of("r"), V1)]}},
         {"delete": ["Gateway %s/same-namespace" % NS],
          "expect": {"resolve": [res("/", None)],
                     "statuses": {"HTTPRoute %s/r" % NS: {"status": {"parents": []}}}}}],
     config=NOROUTE)
CASES[-1].pop("inputs")
CASES[-1].pop("expect")

def dump_case(c):
    """A case with its objects one a line: the file stays readable and small."""
    lines = []
    for k, v in c.items():
        if k == "inputs":
            objs = ",\n    ".join(json.dumps(o, separators=(",", ":")) for o in v)
            lines.append('  "inputs": [\n    %s\n  ]' % objs if v else '  "inputs": []')
        elif k == "steps":
            steps = []
            for st in v:
                inner = []
                for sk, sv in st.items():
                    if sk == "inputs":
                        objs = ",\n      ".join(json.dumps(o, separators=(",", ":")) for o in sv)
                        inner.append('    "inputs": [\n      %s\n    ]' % objs)
                    else:
                        inner.append('    %s: %s' % (json.dumps(sk), json.dumps(sv)))
                steps.append("   {\n" + ",\n".join(inner) + "\n   }")
            lines.append('  "steps": [\n' + ",\n".join(steps) + "\n  ]")
        else:
            lines.append("  %s: %s" % (json.dumps(k), json.dumps(v)))
    return " {\n" + ",\n".join(lines) + "\n }"


sys.stdout.write('{"cases": [\n' + ",\n".join(dump_case(c) for c in CASES) + "\n]}\n")
