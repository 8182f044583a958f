# SPDX-License-Identifier: BSD-3-Clause
"""Translation of /work/shared/peer-cases.json (each case in its peer's own terms: OpenShift
status conditions and HAProxy internals, Contour status strings and Envoy listeners, Skipper
eskip routes and validation logs) into runnable cases of run.py's internal form:

  {"id", "peer", "fits": bool, "reason", "config", "features", "steps": [
      {"apply": [OBJ...], "each": bool, "delete": ["Kind ns/name"...],
       "expect": {"statuses": {...}, "rejected": {...}, "accepted": [...], "resolve": {...}}}]}

A case that does not fit (needs something Switchyard does not model) gets fits=False and a
reason, and is not run. Adaptations made to fit are listed in the reason of fitting cases.
"""
import copy
import json
import re

PEER_OF = {"openshift": "openshift", "ingressroute": "contour", "httpproxy": "contour",
           "routegroup": "skipper"}

OS_CONFIG = {"routeSuffix": "routing_subdomain", "allowWildcardRoutes": "allow_wildcard_routes"}
IR_CONFIG = {"ingressRouteRootNamespaces": "ingressroute_root_namespaces"}


class NoFit(Exception):
    pass


def translate(doc):
    out = []
    for c in doc.get("cases", []):
        peer = PEER_OF.get(c.get("kind"), c.get("kind"))
        fn = {"openshift": os_case, "ingressroute": ir_case, "httpproxy": hp_case,
              "routegroup": rg_case}.get(c.get("kind"))
        subs = []
        try:
            if fn is None:
                raise NoFit("unknown peer kind %s" % c.get("kind"))
            subs = fn(c)
        except NoFit as e:
            out.append({"id": c["id"], "peer": peer, "fits": False, "reason": str(e),
                        "steps": []})
            continue
        for s in subs:
            s.setdefault("peer", peer)
            s.setdefault("fits", True)
            s.setdefault("reason", "")
            s.setdefault("config", {})
            out.append(s)
    return out


def is_obj(x):
    return isinstance(x, dict) and "apiVersion" in x and "kind" in x


def key(o):
    md = o.get("metadata") or {}
    return "%s %s/%s" % (o["kind"], md.get("namespace") or "default", md.get("name"))


def nsname(o):
    md = o.get("metadata") or {}
    return "%s/%s" % (md.get("namespace") or "default", md.get("name"))


def variants(c):
    """[(id, inputs, expect)] for cases made of variants, else [(id, inputs, expect)]."""
    ins = c["inputs"]
    if ins and all(isinstance(i, dict) and "variant" in i for i in ins):
        return [(v["variant"], v["inputs"], c["expect"].get(v["variant"], {})) for v in ins]
    return [(c["id"], ins, c["expect"])]


def map_config(items, table, what):
    cfg = {}
    for i in items:
        if not (isinstance(i, dict) and "config" in i):
            continue
        for k, v in i["config"].items():
            if k in table:
                cfg[table[k]] = v
            elif k == "disableNamespaceOwnershipCheck" and not v:
                pass
            elif k == "disableNamespaceOwnershipCheck":
                raise NoFit("needs %s --disable-namespace-ownership-check (OldestFirst "
                            "activation), which Switchyard does not model" % what)
            elif k == "deniedDomainSuffix":
                raise NoFit("needs the router's denied/allowed domain lists, not modeled")
            else:
                raise NoFit("needs peer config %s, not modeled" % k)
    return cfg


# ------------------------------------------------------------------- OpenShift --

def os_route(o):
    """Peer test routes often omit spec.to (the test never resolves a backend); ours
    requires it, as the API server does."""
    o = copy.deepcopy(o)
    o.setdefault("spec", {}).setdefault("to", {"kind": "Service", "name": "svc"})
    return o


def os_status(want):
    """{'admitted': b, 'status': {'Admitted','reason','message'|'message_prefix'}}."""
    out = {}
    if "admitted" in want:
        out["admitted"] = want["admitted"]
    st = want.get("status") or {}
    if "Admitted" in st:
        out["admitted"] = st["Admitted"] == "True"
    for f in ("reason", "message", "message_prefix"):
        if f in st:
            out[f] = st[f]
    if out.get("reason") == "InvalidHost":
        # The router-side host check; Switchyard rejects such a host at apply, as
        # today's API server does (PEER-SEMANTICS 1.3). Either answer passes.
        out["or_rejected"] = True
    return out


def os_case(c):
    cid = c["id"]
    if cid == "os-map-order-path-before-root-and-wildcards-last":
        raise NoFit("HAProxy map-file line order is an implementation detail; the behaviour "
                    "it produces is covered by os-request-dispatch-longest-path")
    if cid == "os-hostadmitter-wildcard-subdomain-ownership":
        raise NoFit("needs the router's denied-domains admission list, not modeled")
    out = []
    for vid, ins, exp in variants(c):
        if any(isinstance(i, dict) and i.get("activation") not in (None, "SameNamespace")
               for i in ins):
            raise NoFit("needs OldestFirst activation (namespace ownership check disabled)")
        cfg = map_config(ins, OS_CONFIG, "the OpenShift router's")
        case = {"id": vid if vid != cid else cid, "config": cfg, "features": ["Route"]}
        out.append(case)
        objs = [os_route(i) for i in ins if is_obj(i)]
        note = []
        if any("to" not in (i.get("spec") or {}) for i in ins if is_obj(i)):
            note.append("spec.to added to routes that had none")
        if "after_step" in exp:
            case["steps"] = os_event_steps(ins, exp["after_step"])
        elif "first_admitted" in exp:
            routes = [os_route(i["route"]) for i in ins if isinstance(i, dict) and "route" in i]
            want2 = {"admitted": exp["second_admitted"]}
            if "second_reason" in exp:
                want2["reason"] = exp["second_reason"]
            case["steps"] = [
                {"apply": [routes[0]], "expect": {"statuses": {
                    nsname(routes[0]): {"admitted": exp["first_admitted"]}}}},
                {"apply": [routes[1]], "expect": {"statuses": {
                    nsname(routes[0]): {"admitted": exp["first_admitted"]},
                    nsname(routes[1]): want2}}}]
        elif "step4_error" in exp:
            case["steps"] = os_hostupdate_steps(ins, exp)
        elif "api_validation_errors" in exp:
            ave = exp["api_validation_errors"]
            if isinstance(ave, int):
                ave = {nsname(objs[0]): ave}
            rej = {}
            for k, n in ave.items():
                rej["Route " + k] = bool(n)
            if ave.get(nsname(objs[0])) and exp.get("error_detail_from_code", "valid") != "valid":
                k0 = "Route " + nsname(objs[0])
                detail = exp["error_detail_from_code"]
                m = re.fullmatch(r"Unsupported value \(NotSupported: (.*)\)", detail)
                if m:
                    # The case describes Go's field.NotSupported(); its text is
                    # `Unsupported value: "x": supported values: "A", "B"`.
                    vals = ", ".join('"%s"' % v.strip() for v in m.group(1).split(","))
                    rej[k0] = r'Unsupported value: ".*": supported values: ' + re.escape(vals)
                else:
                    rej[k0] = re.escape(detail)
            case["steps"] = [{"apply": objs, "expect": {"rejected": rej}}]
        elif "active" in exp and isinstance(exp["active"], dict):
            case["steps"] = os_hostindex_steps(ins, exp)
        elif "active" in exp and isinstance(exp["active"], list):
            case["steps"] = os_activation_steps(ins, exp)
        elif "perEndpointServerWeight" in exp:
            case["steps"] = os_weights_steps(vid, ins[0], exp["perEndpointServerWeight"])
            case["features"] = ["Route", "Service", "Endpoints"]
        elif "requests" in exp:
            res = {}
            for hp, who in exp["requests"].items():
                url = "http://" + hp if "/" in hp else "http://" + hp + "/"
                if who.startswith("no route"):
                    res[url] = {"object": None, "status": 503}
                else:
                    res[url] = {"object": who}
            if any((o.get("spec") or {}).get("wildcardPolicy") == "Subdomain" for o in objs):
                cfg["allow_wildcard_routes"] = True
                note.append("router run with allow_wildcard_routes")
            case["steps"] = [{"apply": objs, "expect": {"resolve": res}}]
        elif "regex" in exp:  # per-route match/nomatch, one route at a time
            steps = []
            prev = None
            for o in objs:
                want = exp.get(nsname(o)) or {}
                res = {}
                for hp in want.get("match", []):
                    res["http://" + hp] = {"object": nsname(o)}
                for hp in want.get("nomatch", []):
                    res["http://" + hp] = {"object": None}
                steps.append({"delete": [key(prev)] if prev else [], "apply": [o],
                              "expect": {"resolve": res}})
                prev = o
            case["steps"] = steps
            note.append("each route applied alone (the test matches one regex at a time)")
        elif "spec.host" in exp:
            case["steps"] = [{"apply": objs, "expect": {"statuses": {
                nsname(objs[0]): {"admitted": True, "host": exp["spec.host"]}}}}]
            note.append("checks status.ingress[].host; the openshift.io/host.generated "
                        "annotation is an API-server write, not modeled")
        elif "valid" in exp and "invalid" in exp:
            case["steps"] = os_insecure_steps(ins, exp)
        elif "admitted" in exp or "status" in exp:
            case["steps"] = [{"apply": objs, "expect": {"statuses": {
                nsname(objs[0]): os_status(exp)}}}]
        elif all(re.match(r"^[^/\s]+/[^/\s]+$", k) for k in exp):
            case["steps"] = [{"apply": objs, "expect": {"statuses": {
                k: os_status(v) for k, v in exp.items()}}}]
        else:
            raise NoFit("expectation shape %s not translated" % sorted(exp))
        case["reason"] = "; ".join(note)
    return out


def os_event_steps(ins, after):
    steps = []
    present = {}
    for ev in ins:
        if not (isinstance(ev, dict) and "event" in ev):
            continue
        r = os_route(ev["route"])
        st = {"apply": [], "delete": []}
        if ev["event"] == "Deleted":
            st["delete"] = [key(r)]
            present.pop(nsname(r), None)
        else:
            st["apply"] = [r]
            present[nsname(r)] = r
        want = after.get(str(ev.get("step", len(steps) + 1))) or {}
        rejected = {x["route"]: x for x in want.get("rejections", [])}
        statuses = {}
        for k in present:
            if k in rejected:
                s = {"admitted": False, "reason": rejected[k]["reason"]}
                if "message" in rejected[k]:
                    s["message"] = rejected[k]["message"]
                statuses[k] = s
            else:
                statuses[k] = {"admitted": True}
        res = {}
        for host, who in (want.get("active") or {}).items():
            res["http://%s/" % host] = {"object": who[0]}
        st["expect"] = {"statuses": statuses, "resolve": res}
        steps.append(st)
    return steps


def os_hostupdate_steps(ins, exp):
    evs = [i for i in ins if isinstance(i, dict) and "event" in i]
    steps = []
    names = {}
    for n, ev in enumerate(evs, 1):
        r = ev["route"]
        st = {"apply": [], "delete": [], "expect": {}}
        if ev["event"] == "Deleted":
            # The peer test names the deleted route by suffix ("route1").
            full = next(k for k in names if k.endswith(r))
            st["delete"] = [key(names[full])]
        else:
            r = os_route(r)
            names[nsname(r)] = r
            st["apply"] = [r]
            if n == 4:
                st["expect"]["statuses"] = {nsname(r): {
                    "admitted": False, "reason": "HostAlreadyClaimed",
                    "message": exp["step4_error"]}}
            if n == len(evs) and exp.get("final_add") == "no error":
                st["expect"]["statuses"] = {nsname(r): {"admitted": True}}
        steps.append(st)
    return steps


def os_hostindex_steps(ins, exp):
    objs = [os_route(i) for i in ins if is_obj(i)]
    by_uid = {o["metadata"].get("uid"): o for o in objs}
    statuses = {}
    for host, uids in exp.get("active", {}).items():
        for u in uids:
            statuses[nsname(by_uid[u])] = {"admitted": True}
    for host, uids in exp.get("inactive", {}).items():
        for u in uids:
            statuses[nsname(by_uid[u])] = {"admitted": False, "reason": "HostAlreadyClaimed"}
    return [{"apply": objs, "expect": {"statuses": statuses}}]


def os_activation_steps(ins, exp):
    objs = []
    for i in ins:
        if isinstance(i, dict) and "active" in i:
            objs += [os_route(o) for o in i["active"]]
        elif isinstance(i, dict) and "add" in i:
            objs.append(os_route(i["add"]))
    statuses = {k: {"admitted": True} for k in exp["active"]}
    statuses.update({k: {"admitted": False, "reason": "HostAlreadyClaimed"}
                     for k in exp.get("displaced", [])})
    return [{"apply": objs, "expect": {"statuses": statuses}}]


def os_weights_steps(vid, inp, want):
    counts = inp["serviceUnitEndpointCounts"]
    weights = inp["serviceWeights"]
    port = inp.get("routePort") or ""
    objs = []
    svcs = list(weights)
    ip = 10
    for s in svcs:
        ns, name = s.split("/")
        eport = int(port) if port else 8080
        objs.append({"apiVersion": "v1", "kind": "Service",
                     "metadata": {"namespace": ns, "name": name},
                     "spec": {"ports": [{"name": "http", "port": eport, "targetPort": eport}]}})
        addrs = []
        for _ in range(counts.get(s, 0)):
            addrs.append({"ip": "198.18.9.%d" % ip})
            ip += 1
        ep = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"namespace": ns, "name": name},
              "subsets": [{"addresses": addrs, "ports": [{"name": "http", "port": eport}]}]
              if addrs else []}
        objs.append(ep)
    ns0, n0 = svcs[0].split("/")
    spec = {"host": "weights.example.test",
            "to": {"kind": "Service", "name": n0, "weight": weights[svcs[0]]},
            "alternateBackends": [{"kind": "Service", "name": s.split("/")[1], "weight": weights[s]}
                                  for s in svcs[1:]]}
    if port:
        spec["port"] = {"targetPort": int(port)}
    objs.append({"apiVersion": "route.openshift.io/v1", "kind": "Route",
                 "metadata": {"namespace": ns0, "name": "weights"}, "spec": spec})
    ew = {s: w for s, w in want.items()}
    for s in svcs:
        if s not in ew:
            ew[s] = None  # services without endpoints are omitted
    return [{"apply": objs, "each": False, "expect": {"resolve": {
        "http://weights.example.test/": {"object": "%s/weights" % ns0, "endpoint_weights": ew}}}}]


def os_insecure_steps(ins, exp):
    objs = []
    rej = {}
    n = 0
    for term, pols in list(exp["valid"].items()) + list(exp["invalid"].items()):
        bad = term in exp["invalid"] and pols is exp["invalid"][term]
        for p in pols:
            n += 1
            name = "%s-%d" % (term, n)
            tls = {"termination": term}
            if p:
                tls["insecureEdgeTerminationPolicy"] = p
            objs.append({"apiVersion": "route.openshift.io/v1", "kind": "Route",
                         "metadata": {"namespace": "ins", "name": name},
                         "spec": {"host": "%s.insecure.test" % name,
                                  "to": {"kind": "Service", "name": "svc"}, "tls": tls}})
            rej["Route ins/" + name] = bad
    return [{"apply": objs, "expect": {"rejected": rej}}]


# ----------------------------------------------------------------------- Contour --

def strip_note(s):
    return re.sub(r"\s*\(.*\)\s*$", "", s)


def cluster_service(cl):
    ns, name = cl.split("/")[:2]
    return "%s/%s" % (ns, name)


def ir_fqdns(objs):
    return sorted({(o.get("spec") or {}).get("virtualhost", {}).get("fqdn")
                   for o in objs if o["kind"] == "IngressRoute"
                   and (o.get("spec") or {}).get("virtualhost", {}).get("fqdn")})


def listener_checks(l80):
    res = {}
    for fqdn, routes in l80.items():
        for r in routes:
            url = "http://%s%s" % (fqdn, r["prefix"])
            want = {}
            if r.get("httpsUpgrade"):
                want.update({"action": "redirect", "status": 301})
            else:
                cls = r.get("clusters") or ([r["cluster"]] if "cluster" in r else [])
                if cls:
                    want["services"] = sorted({cluster_service(x) for x in cls})
                want["action"] = "backend"
            res[url] = want
    return res


def lower_names(c):
    """Contour's Go tests use names like "validChild", which no API server accepts
    (metadata.name is a lowercase RFC 1123 subdomain, and ours checks it). Lowercase them
    everywhere in the case, descriptions included."""
    text = json.dumps({"inputs": c["inputs"], "expect": c["expect"]})
    names = set(re.findall(r'"name": "([^"]*[A-Z][^"]*)"', text))
    if not names:
        return c, False
    for n in sorted(names, key=len, reverse=True):
        text = re.sub(r"(?<![A-Za-z0-9-])%s(?![A-Za-z0-9-])" % re.escape(n), n.lower(), text)
    d = json.loads(text)
    c = dict(c, inputs=d["inputs"], expect=d["expect"])
    return c, True


def ir_case(c):
    c, lowered = lower_names(c)
    cid = c["id"]
    if cid == "ir-matchesPathPrefix":
        raise NoFit("tests an internal helper (matchesPathPrefix) directly; its effect is "
                    "covered by the delegate-prefix status cases")
    if cid == "ir-tls-redirect-and-min-version":
        raise NoFit("needs TLS termination (proxy mode) and valid PEM secrets; minimum TLS "
                    "version is an Envoy listener setting")
    if cid == "ir-permit-insecure":
        raise NoFit("needs --disable-permit-insecure and valid PEM secrets (inputs carry "
                    "placeholders)")
    if cid == "ir-weights-partial":
        return ir_weights(c)
    if cid == "ir-root-namespaces":
        return ir_root_namespaces(c)
    out = []
    for vid, ins, exp in variants(c):
        cfg = map_config(ins, IR_CONFIG, "Contour's")
        objs = [i for i in ins if is_obj(i)]
        note = []
        statuses = {}
        st = exp.get("statuses") or exp.get("status") or {}
        for k, v in st.items():
            statuses["IngressRoute " + k] = {f: v[f] for f in ("currentStatus", "description")
                                             if f in v}
        for k, v in (exp.get("status_from_code") or {}).items():
            s, _, d = v.partition(": ")
            statuses["IngressRoute " + k] = {"currentStatus": s, "description": d}
        res = {}
        if exp.get("listeners") == []:
            for f in ir_fqdns(objs):
                res["http://%s/" % f] = {"match": False}
        if "listener80" in exp:
            res.update(listener_checks(exp["listener80"]))
        for hp, svc in (exp.get("requests") or {}).items():
            res["http://" + hp] = {"services": [strip_note(svc)]}
            if "(" in svc:
                note.append("%s: %s" % (hp, svc[svc.index("("):]))
        if "root_status_from_code" in exp:
            roots = [o for o in objs if (o.get("spec") or {}).get("virtualhost")]
            statuses[key(roots[0])] = {"currentStatus": "valid",
                                       "description": "valid IngressRoute"}
        if not statuses and not res:
            raise NoFit("expectation shape %s not translated" % sorted(exp))
        if "with_both_services" in exp:
            note.append("only the missing-service half is checked")
        if lowered:
            note.append("camelCase object names lowercased")
        out.append({"id": vid, "config": cfg, "features": ["IngressRoute"],
                    "reason": "; ".join(note),
                    "steps": [{"apply": objs, "each": True,
                               "expect": {"statuses": statuses, "resolve": res}}]})
    return out


def ir_weights(c):
    out = []
    for n, (v, want) in enumerate(zip(c["inputs"][0]["variants"],
                                      c["expect"]["weighted_clusters"])):
        objs = []
        services = []
        for i, cl in enumerate(v["clusters"]):
            ns, name, port = cl["svc"].split("/")
            objs.append({"apiVersion": "v1", "kind": "Service",
                         "metadata": {"namespace": ns, "name": name},
                         "spec": {"ports": [{"name": "http", "port": int(port)}]}})
            objs.append({"apiVersion": "v1", "kind": "Endpoints",
                         "metadata": {"namespace": ns, "name": name},
                         "subsets": [{"addresses": [{"ip": "198.18.9.%d" % (10 + i)}],
                                      "ports": [{"name": "http", "port": int(port)}]}]})
            s = {"name": name, "port": int(port)}
            if "weight" in cl:
                s["weight"] = cl["weight"]
            services.append(s)
        objs.append({"apiVersion": "contour.heptio.com/v1beta1", "kind": "IngressRoute",
                     "metadata": {"namespace": "default", "name": "weights"},
                     "spec": {"virtualhost": {"fqdn": "weights.example.com"},
                              "routes": [{"match": "/", "services": services}]}})
        shares = {}
        for cl, w in zip(v["clusters"], want["weights"]):
            shares[cluster_service(cl["svc"])] = w / want["total"]
        out.append({"id": "%s-%d" % (c["id"], n + 1), "features": ["IngressRoute"],
                    "reason": "weighted clusters checked as resolve shares (one endpoint each)",
                    "steps": [{"apply": objs, "each": False, "expect": {"resolve": {
                        "http://weights.example.com/": {"services": shares}}}}]})
    return out


def ir_root_namespaces(c):
    objs = [i for i in c["inputs"] if is_obj(i)]
    irs = {nsname(o): o for o in objs if o["kind"] == "IngressRoute"}
    svcs = {nsname(o): o for o in objs if o["kind"] == "Service"}
    out = []
    for n, (v, want) in enumerate(zip(c["inputs"][0]["variants"], c["expect"]["vhost_counts"])):
        apply = []
        for d in v["objs"]:
            if d == "svcs":
                apply += list(svcs.values())
            elif d.startswith("svc "):
                apply.append(svcs[d[4:]])
            else:
                apply.append(irs[d])
        fq = ir_fqdns(apply)
        cfg = {"ingressroute_root_namespaces": v["rootNamespaces"]} if v["rootNamespaces"] else {}
        statuses = {}
        roots = v["rootNamespaces"] or []
        for o in apply:
            if o["kind"] == "IngressRoute" and roots and o["metadata"]["namespace"] not in roots:
                s, _, d = c["expect"]["status_for_root_outside"].partition(": ")
                statuses[key(o)] = {"currentStatus": s, "description": d}
        out.append({"id": "%s-%d" % (c["id"], n + 1), "config": cfg,
                    "features": ["IngressRoute"], "reason": "vhost count checked by resolve",
                    "steps": [{"apply": apply, "expect": {
                        "statuses": statuses,
                        "match_count": {"urls": ["http://%s/" % f for f in fq],
                                        "count": want}}}]})
    return out


def hp_case(c):
    # cases/httpproxy.json pins the same behaviours in v1.2x's words.
    raise NoFit("pins Contour v1.0's HTTPProxy status strings ('valid HTTPProxy', 'include "
                "creates a delegation cycle'); HTTPProxy here writes v1.2x's (the Valid "
                "condition, cases/httpproxy.json)")


# ----------------------------------------------------------------------- Skipper --

def rg_objs(ins):
    objs = []
    for i in ins:
        if is_obj(i):
            objs.append(i)
        elif isinstance(i, dict) and any(k.startswith("dataclientOptions") for k in i):
            raise NoFit("needs the traffic-segment-predicate data client option, not modeled")
    return objs


def parse_eskip(text):
    text = re.sub(r"(?m)^\s*//[^\n]*", "", text)
    routes = []
    for part in text.split(";"):
        part = part.strip()
        if not part:
            continue
        rid, _, body = part.partition(":")
        segs = [s.strip() for s in re.split(r"\s*->\s*", body.strip())]
        preds = segs[0]
        r = {"id": rid.strip(), "filters": segs[1:-1], "backend": segs[-1]}
        m = re.search(r'Host\(["/]\^\(([^)]*?)\[\.\]\?', preds)
        if m:
            r["host"] = m.group(1).replace("[.]", ".")
        for p in ("Path", "PathSubtree"):
            m = re.search(r'\b%s\("([^"]*)"\)' % p, preds)
            if m:
                r["path"] = m.group(1)
                r["subtree"] = p == "PathSubtree"
        m = re.search(r'Method\("([A-Z]+)"\)', preds)
        if m:
            r["method"] = m.group(1)
        r["traffic"] = "Traffic(" in preds
        r["other"] = [p for p in re.findall(r"\b([A-Z][A-Za-z]*)\(", preds)
                      if p not in ("Host", "Path", "PathSubtree", "Method", "Traffic", "True")]
        routes.append(r)
    return routes


def log_regex(p):
    """Skipper's log lines quote with backslashes (logrus msg="...\"x\"..."); the API
    answer has plain quotes."""
    return p.replace('\\\\"', '"').replace('\\"', '"')


def rg_case(c):
    out = []
    for vid, ins, exp in variants(c):
        objs = rg_objs(ins)
        rg = next(o for o in objs if o["kind"] == "RouteGroup")
        note = []
        expect = {}
        if exp.get("whole_routegroup_rejected") or exp.get("valid") is False:
            pats = [log_regex(p) for p in exp.get("error_log_regexes", [])
                    if p != "[[]routegroup[]]"]
            expect["statuses"] = {key(rg): {"invalid_or_rejected": pats}}
            note.append("the '[routegroup]' log prefix is not part of an API answer")
        elif "eskip" in exp:
            expect["resolve"] = rg_eskip_checks(
                [o for o in objs if o["kind"] == "RouteGroup"], exp, note)
        else:
            raise NoFit("expectation shape %s not translated" % sorted(exp))
        out.append({"id": vid, "features": ["RouteGroup"], "reason": "; ".join(note),
                    "steps": [{"apply": objs, "each": True, "expect": expect}]})
    return out


def rg_eskip_checks(rgs, exp, note):
    routes = parse_eskip(exp["eskip"])
    # kube_rg__<ns>__<name, '-' as '_'>__<method>__<i>_<j> names its group.
    ids = {"kube_rg__%s__%s__" % ((g["metadata"].get("namespace") or "default"),
                                  g["metadata"]["name"].replace("-", "_")): g for g in rgs}
    rg = rgs[0]
    for r in routes:
        g = next((g for p, g in ids.items() if r["id"].startswith(p)), None)
        if g is not None:
            rg = g
            break
    spec = rg.get("spec") or {}
    backends = {b.get("name"): b for b in spec.get("backends") or []}
    res = {}
    by_path = {}
    for r in routes:
        if "catchall" in r["id"]:
            continue
        by_path.setdefault((r.get("host"), r.get("path"), r.get("method")), []).append(r)
    obj = nsname(rg)
    for (host, path, method), rs in by_path.items():
        if any(r["other"] for r in rs):
            note.append("routes with predicates %s not checked" % sorted(
                {p for r in rs for p in r["other"]}))
            continue
        h = host or (spec.get("hosts") or ["any.example.org"])[0]
        url = "http://%s%s" % (h, path or "/")
        want = {"object": obj, "kind": "RouteGroup"}
        if method:
            want["method"] = method
        if len(rs) == 1:
            r = rs[0]
            st = [re.match(r"status\((\d+)\)", f) for f in r["filters"]]
            st = [int(m.group(1)) for m in st if m]
            if st:
                want["status"] = st[-1]
            eps = re.findall(r'"http://([0-9.]+:[0-9]+)"', r["backend"])
            if eps:
                want["endpoints"] = eps
        res[url if not method else "%s#%s" % (url, method)] = dict(want, url=url)
    # The catch-all answers 404 for what no route takes; a PathSubtree("/") or a route
    # without a path takes everything, leaving the catch-all unreachable.
    covered = any("catchall" not in r["id"] and (r.get("path") is None or
                                                 (r.get("subtree") and r["path"] == "/"))
                  for r in routes)
    for r in routes:
        if "catchall" in r["id"] and r.get("host") and not covered:
            url = "http://%s/__no_such_path__/x" % r["host"]
            if url not in res:
                res[url] = {"status": 404, "url": url}
    shares = exp.get("effective_share") or {}
    for path, per in shares.items():
        h = (spec.get("hosts") or ["any.example.org"])[0]
        url = "http://%s%s" % (h, path if path.startswith("/") else "/")
        svc = {}
        for bname, s in per.items():
            b = backends.get(bname) or {}
            if b.get("type") == "service":
                svc["%s/%s" % ((rg["metadata"].get("namespace") or "default"),
                               b.get("serviceName"))] = s
        if svc:
            res.setdefault(url, {"url": url})["services"] = svc
            note.append("effective shares of service backends checked")
    # run.py takes a list when URLs repeat with different methods.
    return [dict(v) for v in res.values()]


def dump(doc):
    return json.dumps(translate(doc), indent=1)
