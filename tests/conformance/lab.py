# SPDX-License-Identifier: BSD-3-Clause
"""The conformance runner's lab mode (run.py --lab; README.md, "Lab mode"): routerd with
real ports in a namespace lab (tools/lib/lab.sh), and every resolve answer a case checks
sent again through the data plane, from the lab's client namespace with curl, to compare
what the data plane did with what resolve said.

Endpoint addresses in cases are arbitrary (10.x, 172.x, 198.18.x ...). The lab maps each
distinct IPv4 endpoint address of the inputs (Endpoints subsets, RouteGroup network and lb
URLs) to an address of LAB_NET, which it adds to the backend namespace's interface, and
rewrites the objects it applies accordingly; lab_backend.py answers on each such address and
port with `X-Backend: ADDR:PORT` of the case's own address, and every control reply is mapped
back, so that expectations and comparisons are in the case's terms. Only LAB_NET (inside
198.18.0.0/15) is ever a target. Everything is removed on exit (lab_down: the namespaces,
their addresses, every process recorded in the lab's pids file).
"""
import ipaddress
import json
import os
import re
import shlex
import signal
import subprocess
import tempfile
import time
import urllib.parse

LAB_NET = ipaddress.ip_network("198.19.0.0/16")
LAB_ROUTER_BACKEND = "198.19.0.1"       # routerd's backend port
LAB_ROUTER_CLIENT = "198.18.0.1"        # routerd's client port (lab.sh LAB_ROUTER_IP)
LAB_ADDR_RE = re.compile(r"(?<![0-9.])198\.19\.[0-9]{1,3}\.[0-9]{1,3}(?![0-9])")
IPV4_RE = r"[0-9]{1,3}(?:\.[0-9]{1,3}){3}"



def action_protocols(r):
    """The protocols resolve says the answer's services speak (http/1.1 when unsaid)."""
    svcs = list(r.get("services") or [])
    for sp in r.get("split") or []:
        svcs += sp.get("services") or []
    return {v.get("protocol") or "http/1.1" for v in svcs}


def action_speaks_h2(r):
    """A backend answer whose services are not all HTTP/1.1 in the clear."""
    return r.get("action") == "backend" and action_protocols(r) - {"http/1.1"} != set()

class LabError(Exception):
    pass


def _starttime(pid):
    """/proc/PID/stat field 22, as tools/lib/lab.sh records it (lab_down checks it before
    it signals a recorded PID)."""
    try:
        with open("/proc/%d/stat" % pid) as f:
            st = f.read()
    except OSError:
        return "-"
    return st.rsplit(") ", 1)[1].split()[19]


def _is_ipv4(s):
    try:
        return isinstance(ipaddress.ip_address(s), ipaddress.IPv4Address)
    except ValueError:
        return False


def _url_target(url):
    """(address, port) of an http(s):// URL to an IPv4 literal, else None."""
    try:
        u = urllib.parse.urlsplit(url)
        host, port = u.hostname, u.port
    except ValueError:
        return None
    scheme = (u.scheme or "").lower()
    if scheme not in ("http", "https") or not host or not _is_ipv4(host):
        return None
    return host, port or (443 if scheme == "https" else 80)


class Lab:
    def __init__(self, src, verbose=False):
        self.src = src
        self.verbose = verbose
        self.id = "cf%d" % (os.getpid() % 10000000)
        self.env = {}
        self.fwd = {}      # case address -> lab address
        self.rev = {}      # lab address -> case address
        self.listen = set()  # (case address, port)
        self.backend = None
        self.made = False
        self.curl_dir = None

    # ---------------------------------------------------------------- mapping --

    def map_cases(self, cases):
        """Give every IPv4 endpoint address of the cases' inputs a lab address."""
        text = json.dumps([c.get("steps") for c in cases])
        if LAB_ADDR_RE.search(text):
            raise LabError("a case uses an address in %s, the lab's backend range" % LAB_NET)
        addrs = set()
        for c in cases:
            for st in c.get("steps") or []:
                for o in st.get("apply") or []:
                    for a, ports in self._targets(o):
                        addrs.add(a)
                        for p in ports:
                            self.listen.add((a, p))
        first = ipaddress.ip_address("198.19.1.1")  # 198.19.0.x is the router's side
        if len(addrs) > 60000:
            raise LabError("%d endpoint addresses: more than the lab's range holds" % len(addrs))
        for i, a in enumerate(sorted(addrs, key=lambda x: ipaddress.ip_address(x))):
            lab = str(first + i)
            self.fwd[a] = lab
            self.rev[lab] = a

    @staticmethod
    def _targets(o):
        """[(IPv4 address, [ports])] an object sends traffic to."""
        out = []
        if o.get("kind") == "Endpoints":
            for s in o.get("subsets") or []:
                if not isinstance(s, dict):
                    continue
                ports = [p.get("port") for p in s.get("ports") or []
                         if isinstance(p, dict) and isinstance(p.get("port"), int)
                         and 0 < p.get("port") < 65536]
                for a in (s.get("addresses") or []) + (s.get("notReadyAddresses") or []):
                    if isinstance(a, dict) and _is_ipv4(str(a.get("ip"))):
                        out.append((a["ip"], ports))
        elif o.get("kind") == "RouteGroup":
            for b in (o.get("spec") or {}).get("backends") or []:
                if not isinstance(b, dict):
                    continue
                urls = [b.get("address")] if b.get("type") == "network" else \
                    b.get("endpoints") if b.get("type") == "lb" else []
                for u in urls if isinstance(urls, list) else []:
                    t = _url_target(u) if isinstance(u, str) else None
                    if t:
                        out.append((t[0], [t[1]]))
        return out

    def map_objects(self, objs):
        """The objects with their endpoint addresses replaced by lab addresses."""
        out = []
        for o in objs:
            if o.get("kind") == "Endpoints":
                o = json.loads(json.dumps(o))
                for s in o.get("subsets") or []:
                    if not isinstance(s, dict):
                        continue
                    for a in (s.get("addresses") or []) + (s.get("notReadyAddresses") or []):
                        if isinstance(a, dict) and a.get("ip") in self.fwd:
                            a["ip"] = self.fwd[a["ip"]]
            elif o.get("kind") == "RouteGroup":
                o = json.loads(json.dumps(o))
                for b in (o.get("spec") or {}).get("backends") or []:
                    if not isinstance(b, dict):
                        continue
                    if isinstance(b.get("address"), str):
                        b["address"] = self._map_url(b["address"])
                    if isinstance(b.get("endpoints"), list):
                        b["endpoints"] = [self._map_url(u) if isinstance(u, str) else u
                                          for u in b["endpoints"]]
            out.append(o)
        return out

    def _map_url(self, url):
        t = _url_target(url)
        if not t or t[0] not in self.fwd:
            return url
        return re.sub(r"(?<=[/@])%s(?=[:/?#]|$)" % re.escape(t[0]), self.fwd[t[0]], url, count=1)

    def unmap_text(self, text):
        """A control reply with lab addresses put back to the case's."""
        return LAB_ADDR_RE.sub(lambda m: self.rev.get(m.group(0), m.group(0)), text)

    # -------------------------------------------------------------- the lab --

    def _bash(self, script):
        env = dict(os.environ, SY_SRC=self.src, SY_LOG_TAG="[conformance-lab]")
        return subprocess.run(
            ["bash", "-c", 'source "$SY_SRC/tools/lib/lab.sh" && lab_init "$0" 1 && ' + script,
             self.id], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def up(self):
        """Namespaces and veths (lab.sh lab_up), the lab addresses on the backend
        namespace's interface, lab_backend.py on each (address, port)."""
        self.made = True
        r = self._bash('lab_up && cat "$LAB_ENV"')
        if r.returncode != 0:
            raise LabError("lab_up failed: " + (r.stderr or r.stdout)[-1500:])
        for line in r.stdout.splitlines():
            if "=" in line and not line.startswith("#"):
                k, v = line.split("=", 1)
                self.env[k] = shlex.split(v)[0] if v else ""
        ns, dev, d = self.env["LAB_NS_BACKEND"], self.env["LAB_IF_BACKEND_PEER"], self.env["LAB_DIR"]
        batch = "".join("addr add %s/%d dev %s\n" % (lab, LAB_NET.prefixlen, dev)
                        for lab in sorted(self.rev))
        if batch:
            r = subprocess.run(["ip", "-n", ns, "-batch", "-"], input=batch, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            if r.returncode != 0:
                raise LabError("adding the lab addresses in %s: %s" % (ns, r.stdout))
        # The backends' certificate names every lab address: routerd is given it as
        # tls.backend_ca, so https:// URL backends (TLS to the backend, verified for the
        # URL's host) are checked too.
        cert, key = os.path.join(d, "backend.crt"), os.path.join(d, "backend.key")
        san = ",".join(["DNS:conformance-lab-backend"] + ["IP:" + a for a in sorted(self.rev)])
        r = subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                            "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2",
                            "-subj", "/CN=conformance-lab-backend", "-addext",
                            "subjectAltName=" + san, "-keyout", key,
                            "-out", cert], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            raise LabError("openssl: %s" % r.stdout[-500:])
        spec = {"cert": cert, "key": key,
                "listen": [{"address": self.fwd[a], "port": p, "answer": "%s:%d" % (a, p)}
                           for a, p in sorted(self.listen)]}
        path = os.path.join(d, "backends.json")
        with open(path, "w") as f:
            json.dump(spec, f, indent=1)
        self.backend_log = open(os.path.join(d, "backends.log"), "w")
        self.backend = subprocess.Popen(
            ["ip", "netns", "exec", ns, "/usr/bin/python3",
             os.path.join(os.path.dirname(os.path.abspath(__file__)), "lab_backend.py"), path],
            stdout=subprocess.PIPE, stderr=self.backend_log, text=True, start_new_session=True)
        self.track(self.backend.pid, "backends")
        line = self.backend.stdout.readline()
        if not line.startswith("ready"):
            self.backend_log.flush()
            with open(os.path.join(d, "backends.log")) as f:
                raise LabError("lab_backend.py did not start: " + f.read()[-1500:])
        self.curl_dir = tempfile.mkdtemp(prefix="curl-", dir=d)

    def track(self, pid, name):
        """Record a process we started in the lab's pids file: lab_down stops it (by PID
        and start time) if we could not."""
        with open(self.env["LAB_DIR"] + "/pids", "a") as f:
            f.write("%d %s %s\n" % (pid, name, _starttime(pid)))

    def routerd_config(self):
        """routerd's ports on the lab's root veth ends (config/lab.routerd.json's shape)."""
        return {
            "ports": [
                {"name": "client", "devargs": "net_af_packet0,iface=%s" % self.env["LAB_IF_CLIENT"],
                 "ipv4": ["%s/24" % LAB_ROUTER_CLIENT], "mtu": 1500},
                {"name": "backend", "devargs": "net_af_packet1,iface=%s" % self.env["LAB_IF_BACKEND"],
                 "ipv4": ["%s/%d" % (LAB_ROUTER_BACKEND, LAB_NET.prefixlen)], "mtu": 1500},
            ],
            "listen": {"addresses": [LAB_ROUTER_CLIENT], "http": 80, "https": 443},
            "drain_s": 0,
            "tls": {"backend_ca": os.path.join(self.env["LAB_DIR"], "backend.crt")},
        }

    def down(self):
        if self.backend is not None and self.backend.poll() is None:
            self.backend.send_signal(signal.SIGTERM)
            try:
                self.backend.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.backend.kill()
                self.backend.wait()
        self.backend = None
        if self.made:
            r = self._bash("lab_down")
            if r.returncode != 0:
                print("run.py: lab_down: %s" % r.stderr[-800:])
            self.made = False

    # ---------------------------------------------------------- from outside --

    def expected(self, url, want, r):
        """What the data plane should do for this resolve answer: a dict, or a string
        saying why it cannot be checked from outside."""
        scheme = (r.get("scheme") or url.split(":", 1)[0]).lower()
        if scheme not in ("http", "https"):
            return "scheme %s" % scheme
        if scheme == "https":
            tls = r.get("tls")
            if not r.get("match") and tls in (None, "none"):
                return "https:// to a host no TLS vhost has (what the handshake gets is not a resolve answer)"
            if tls == "reencrypt":
                return "re-encrypt: the lab backend's certificate is not the route's destination CA"
            if tls not in ("edge", "passthrough"):
                return "https:// to a vhost without TLS (tls %s)" % tls
            if r.get("client_certificate") == "required" and not want.get("client_cert"):
                # Without a certificate the handshake fails: no HTTP answer at all.
                return {"no_http": True, "why": "a client certificate is required, none sent",
                        "error_re": r"certificate|alert|handshake"}
        if action_speaks_h2(r):
            return "a backend spoken to in h2 or TLS (protocol %s: a GRPCRoute, an " \
                "upstream-protocol annotation): the lab's echo backends speak HTTP/1.1" % \
                ", ".join(sorted(action_protocols(r)))
        split = [s for s in r.get("split") or [] if (s.get("share") or 0) > 0]
        if len(split) > 1:
            # One request shows one of the rules: checked when each of them is a backend
            # with endpoints (any of theirs may answer); resolve gives no answer of its own
            # for a rule whose pool is empty or that answers itself.
            for s in split:
                if s.get("action") != "backend" or \
                        not sum(v.get("endpoints") or 0 for v in s.get("services") or []):
                    return "a traffic split with a rule that is not a backend with endpoints " \
                        "(resolve gives no status for it)"
        action = r.get("action")
        if action == "redirect":
            return {"status": r.get("status"), "location": r.get("location")}
        if action == "static":
            e = {"status": r.get("status")}
            if r.get("body") is not None:
                e["body"] = r.get("body")
            elif (want.get("method") or "GET").upper() != "HEAD":
                # No body of the rule's: the router's own page for the status.
                e["own_page"] = True
            return e
        if action == "none":
            return {"status": r.get("status")}
        if action == "backend":
            if r.get("status") is not None and r.get("tls") == "passthrough" and scheme == "https":
                # The router cannot answer inside the client's TLS: no HTTP answer at all.
                return {"no_http": True, "why": "passthrough: the router cannot answer inside "
                        "the client's TLS"}
            if r.get("status") is not None:
                return {"status": r.get("status")}
            eps = r.get("endpoints") or []
            if eps and any("share" in e for e in eps):
                eps = [e for e in eps if (e.get("share") or 0) > 0]
            if not eps:
                return "a backend with no endpoint and no status"
            names = ["%s:%s" % (e.get("address"), e.get("port")) for e in eps]
            unmapped = [n for n in names if n.rsplit(":", 1)[0] not in self.fwd]
            if unmapped:
                return "endpoints the lab does not map (not an IPv4 address of the inputs): %s" % \
                    ", ".join(unmapped)
            return {"backend": sorted(set(names))}
        return "action %s" % action

    def curl_command(self, url, want, hfile, bfile, cert=None):
        """The curl command line for the request (run in the client namespace); cert:
        (certificate file, key file) to present when the server asks for one."""
        u = urllib.parse.urlsplit(url)
        scheme = u.scheme.lower()
        port = 443 if scheme == "https" else 80
        cmd = ["ip", "netns", "exec", self.env.get("LAB_NS_CLIENT", "?"), "curl", "-sS", "-g",
               "--path-as-is", "-m", "5", "-k", "-D", hfile, "-o", bfile, "-w", "%{http_code}"]
        host = u.hostname or ""
        if re.fullmatch(r"[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?", host) and \
                not re.fullmatch(IPV4_RE, host) and u.port in (None, port):
            cmd += ["--resolve", "%s:%d:%s" % (host, port, LAB_ROUTER_CLIENT)]
        else:  # an IP literal or another port in the URL: the Host header keeps it
            cmd += ["--connect-to", "::%s:%d" % (LAB_ROUTER_CLIENT, port)]
        method = (want.get("method") or "GET").upper()
        if method == "HEAD":
            cmd.append("-I")
        elif method != "GET":
            cmd += ["-X", method]
        if cert:
            cmd += ["--cert", cert[0], "--key", cert[1]]
        for k, v in (want.get("headers") or {}).items():
            # curl drops a header given as "Name:" or "Name: " (that form removes one
            # of its own); "Name;" sends it with an empty value.
            cmd += ["-H", "%s: %s" % (k, v) if str(v).strip() else "%s;" % k]
        cmd.append(url)
        return cmd

    def curl(self, url, want):
        """Send the request from the client namespace to routerd's client address.
        Returns {"status", "headers": {lower name: value}, "body"} or {"error"}."""
        hfile, bfile = os.path.join(self.curl_dir, "h"), os.path.join(self.curl_dir, "b")
        for f in (hfile, bfile):
            if os.path.exists(f):
                os.unlink(f)
        cert = None
        if want.get("client_cert_pem"):
            # run.py put the PEMs of the case's Secret here (want["client_cert"])
            cert = (os.path.join(self.curl_dir, "client.crt"),
                    os.path.join(self.curl_dir, "client.key"))
            for path, pem in zip(cert, want["client_cert_pem"]):
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
                with os.fdopen(fd, "wb") as f:
                    f.write(pem)
        cmd = self.curl_command(url, want, hfile, bfile, cert)
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        code = p.stdout.strip()
        if p.returncode != 0 or not code.isdigit() or code == "000":
            return {"error": "no HTTP answer (curl exit %d: %s)" % (
                p.returncode, p.stderr.strip().replace("\n", " ")[:200])}
        headers = {}
        try:
            with open(hfile, "rb") as f:
                for line in f.read().decode("latin-1").split("\r\n")[1:]:
                    if ":" in line:
                        k, v = line.split(":", 1)
                        headers.setdefault(k.strip().lower(), v.strip())
        except OSError:
            pass
        body = b""
        if os.path.exists(bfile):
            with open(bfile, "rb") as f:
                body = f.read()
        return {"status": int(code), "headers": headers, "body": body.decode("utf-8", "replace")}

    def check(self, url, want, r):
        """Compare the data plane with resolve's answer r (case addresses).
        Returns ("agree"|"disagree"|"unchecked", text)."""
        full = url if "://" in url else "http://" + url
        exp = self.expected(full, want, r)
        if isinstance(exp, str):
            return "unchecked", exp
        got = self.curl(full, want)
        said = self._said(r)
        if exp.get("no_http"):
            if "error" in got and re.search(exp.get("error_re", ""), got["error"]):
                return "agree", "resolve said %s (%s); the data plane gave %s" % (
                    said, exp["why"], got["error"])
            return "disagree", "resolve said %s (%s: no HTTP answer); the data plane " \
                "answered %s" % (said, exp["why"], got.get("error") or got.get("status"))
        if "error" in got:
            return "disagree", "resolve said %s; the data plane gave %s" % (said, got["error"])
        did = "%d" % got["status"]
        if got["headers"].get("location"):
            did += " Location %s" % got["headers"]["location"]
        if got["headers"].get("x-backend"):
            did += " from %s" % got["headers"]["x-backend"]
        elif exp.get("body") is not None or "backend" in exp:
            did += " body %r" % got["body"][:80]
        ok = True
        if "status" in exp and got["status"] != exp["status"]:
            ok = False
        if "location" in exp and got["headers"].get("location") != exp["location"]:
            ok = False
        if "body" in exp and got["body"] != exp["body"] and \
                got["body"].rstrip("\n") != exp["body"].rstrip("\n"):
            ok = False
        if exp.get("own_page") and not (
                got["headers"].get("content-type", "").startswith("text/html") and
                "<h1>%d " % got["status"] in got["body"]):
            did += " %s body %r" % (got["headers"].get("content-type"), got["body"][:80])
            ok = False
        if "backend" in exp:
            if not 200 <= got["status"] < 300 or got["headers"].get("x-backend") not in exp["backend"]:
                ok = False
        text = "resolve said %s; the data plane answered %s" % (said, did)
        return ("agree" if ok else "disagree"), text

    @staticmethod
    def _said(r):
        a = r.get("action")
        s = "action %s" % a
        if r.get("status") is not None:
            s += " status %s" % r.get("status")
        if r.get("location"):
            s += " location %s" % r.get("location")
        if a == "backend" and r.get("status") is None:
            s += " endpoints %s" % ",".join("%s:%s" % (e.get("address"), e.get("port"))
                                            for e in r.get("endpoints") or [])
        if a == "static" and r.get("body") is not None:
            s += " body %r" % r.get("body")
        elif a == "static":
            s += " body null (the router's own page)"
        return s
