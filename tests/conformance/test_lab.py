#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The lab mode's own logic without a lab (no root): the mapping of case endpoint addresses
to lab addresses and back, and the comparison of a data-plane answer with a resolve answer
(curl replaced by canned answers), including the disagreements it must report. TAP."""
import os
import shutil
import socket
import subprocess
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.dont_write_bytecode = True
import lab as lab_mode  # noqa: E402

N = 0
FAILED = 0


def ok(cond, what, detail=""):
    global N, FAILED
    N += 1
    print("%sok %d - %s" % ("" if cond else "not ", N, what))
    if not cond:
        FAILED += 1
        print("#   " + str(detail))


EPS = {"apiVersion": "v1", "kind": "Endpoints", "metadata": {"namespace": "a", "name": "s"},
       "subsets": [{"addresses": [{"ip": "198.18.4.8"}, {"ip": "2001:2::1"}],
                    "notReadyAddresses": [{"ip": "198.18.0.9"}],
                    "ports": [{"name": "http", "port": 8080}, {"port": 80}]}]}
RG = {"apiVersion": "zalando.org/v1", "kind": "RouteGroup",
      "metadata": {"namespace": "a", "name": "rg"},
      "spec": {"backends": [{"name": "n", "type": "network", "address": "HTTP://198.18.4.8"},
                            {"name": "l", "type": "lb",
                             "endpoints": ["https://198.18.9.9:8443/x", "http://app.example.invalid"]}]}}

lab = lab_mode.Lab("/nonexistent")
lab.map_cases([{"steps": [{"apply": [EPS, RG]}]}])
ok(sorted(lab.fwd) == ["198.18.0.9", "198.18.4.8", "198.18.9.9"],
   "every IPv4 endpoint address of the inputs is mapped (IPv6 and host names are not)", lab.fwd)
ok(all(a.startswith("198.19.") for a in lab.rev), "lab addresses are in 198.19.0.0/16", lab.rev)
ok(sorted(lab.listen) == [("198.18.0.9", 80), ("198.18.0.9", 8080), ("198.18.4.8", 80),
                          ("198.18.4.8", 8080), ("198.18.9.9", 8443)],
   "a listener per (address, port) the inputs name", sorted(lab.listen))
m = lab.map_objects([EPS, RG])
ok(m[0]["subsets"][0]["addresses"][0]["ip"] == lab.fwd["198.18.4.8"] and
   m[0]["subsets"][0]["addresses"][1]["ip"] == "2001:2::1" and
   m[0]["subsets"][0]["notReadyAddresses"][0]["ip"] == lab.fwd["198.18.0.9"],
   "Endpoints addresses rewritten to lab addresses", m[0])
ok(EPS["subsets"][0]["addresses"][0]["ip"] == "198.18.4.8", "the case's own object is untouched")
ok(m[1]["spec"]["backends"][0]["address"] == "HTTP://" + lab.fwd["198.18.4.8"] and
   m[1]["spec"]["backends"][1]["endpoints"] == ["https://%s:8443/x" % lab.fwd["198.18.9.9"],
                                                "http://app.example.invalid"],
   "RouteGroup URLs rewritten, the rest of each URL kept", m[1]["spec"]["backends"])
t = '{"endpoints":[{"address":"%s","port":8080}],"x":"%s9"}' % (lab.fwd["198.18.4.8"],
                                                                lab.fwd["198.18.4.8"])
ok(lab.unmap_text(t) == '{"endpoints":[{"address":"198.18.4.8","port":8080}],"x":"%s9"}'
   % lab.fwd["198.18.4.8"], "replies mapped back, whole addresses only", lab.unmap_text(t))
try:
    lab_mode.Lab("/x").map_cases([{"steps": [{"apply": [{"kind": "Endpoints", "subsets": [
        {"addresses": [{"ip": "198.19.1.1"}], "ports": [{"port": 80}]}]}]}]}])
    ok(False, "a case address inside the lab's range is refused")
except lab_mode.LabError:
    ok(True, "a case address inside the lab's range is refused")


def verdict(reply, answer, url="http://h.test/p", want=None):
    lab.curl = lambda u, w: answer
    return lab.check(url, want or {}, dict({"ok": True, "scheme": url.split(":")[0]}, **reply))


BE = {"action": "backend", "status": None, "tls": "none", "match": True,
      "endpoints": [{"address": "198.18.4.8", "port": 8080, "share": 1.0}]}
ans = lambda st, **h: {"status": st, "headers": h, "body": ""}  # noqa: E731
ok(verdict(BE, ans(200, **{"x-backend": "198.18.4.8:8080"}))[0] == "agree",
   "backend: a 2xx from a listed endpoint agrees")
ok(verdict(BE, ans(200, **{"x-backend": "198.18.4.8:80"}))[0] == "disagree",
   "backend: another endpoint disagrees")
ok(verdict(BE, ans(302, location="https://h.test/p"))[0] == "disagree",
   "backend: a redirect disagrees (the OpenShift edge Redirect bug)")
ok(verdict(BE, {"error": "no HTTP answer"})[0] == "disagree", "backend: no answer disagrees")
RD = {"action": "redirect", "status": 301, "location": "https://h.test/p", "match": True}
ok(verdict(RD, ans(301, location="https://h.test/p"))[0] == "agree",
   "redirect: same status and Location agrees")
ok(verdict(RD, ans(302, location="https://h.test/p"))[0] == "disagree",
   "redirect: another status disagrees")
ok(verdict(RD, ans(301, location="https://h.test/"))[0] == "disagree",
   "redirect: another Location disagrees")
NONE = {"action": "none", "status": 404, "match": False}
ok(verdict(NONE, ans(404))[0] == "agree" and verdict(NONE, ans(503))[0] == "disagree",
   "none: resolve's status, no other")
ST = {"action": "static", "status": 410, "body": "gone", "match": True}
ok(verdict(ST, dict(ans(410), body="gone\n"))[0] == "agree" and
   verdict(ST, dict(ans(410), body="other"))[0] == "disagree",
   "static: status and body")
PAGE = "<html><body><h1>502 Bad Gateway</h1></body></html>\n"
EMPTY = {"action": "static", "status": 502, "body": "", "match": True}
ok(verdict(EMPTY, ans(502))[0] == "agree" and
   verdict(EMPTY, dict(ans(502, **{"content-type": "text/html"}), body=PAGE))[0] == "disagree",
   "static with an empty body: an empty answer, not the router's page (hp-service-missing)")
OWN = {"action": "static", "status": 502, "body": None, "match": True}
ok(verdict(OWN, dict(ans(502, **{"content-type": "text/html"}), body=PAGE))[0] == "agree" and
   verdict(OWN, dict(ans(502, **{"content-type": "text/plain"})))[0] == "disagree" and
   verdict(OWN, dict(ans(502, **{"content-type": "text/html"}), body=PAGE.replace("502", "503")))[0]
   == "disagree",
   "static without a body: the router's own page for that status")
ok(verdict(OWN, ans(502), want={"method": "HEAD"})[0] == "agree",
   "static without a body, HEAD: the status alone")
MTLS = dict(BE, tls="edge", client_certificate="required")
alert = {"error": "no HTTP answer (curl exit 56: tlsv13 alert certificate required)"}
ok(verdict(MTLS, alert, "https://h.test/")[0] == "agree" and
   verdict(MTLS, ans(200, **{"x-backend": "198.18.4.8:8080"}), "https://h.test/")[0] == "disagree" and
   verdict(MTLS, {"error": "no HTTP answer (curl exit 28: timed out)"}, "https://h.test/")[0]
   == "disagree",
   "client certificate required, none sent: the handshake is refused, nothing else agrees")
cw = {"client_cert": "t/cert", "client_cert_pem": (b"c", b"k")}
ok(verdict(MTLS, ans(200, **{"x-backend": "198.18.4.8:8080"}), "https://h.test/", cw)[0] == "agree"
   and verdict(MTLS, alert, "https://h.test/", cw)[0] == "disagree",
   "client certificate required and sent: compared as any backend answer")
cmd = lab.curl_command("https://h.test/", cw, "h", "b", ("c.pem", "k.pem"))
ok(cmd[cmd.index("--cert") + 1] == "c.pem" and cmd[cmd.index("--key") + 1] == "k.pem",
   "the client certificate is given to curl", cmd)
PT = {"action": "backend", "status": 503, "tls": "passthrough", "match": True, "endpoints": []}
ok(verdict(PT, {"error": "reset"}, "https://h.test/")[0] == "agree" and
   verdict(PT, ans(503), "https://h.test/")[0] == "disagree",
   "passthrough without a backend: no HTTP answer")
ok(verdict(dict(BE, tls="reencrypt"), ans(200), "https://h.test/")[0] == "unchecked",
   "re-encrypt over https is not checked from outside")
ok(verdict(dict(BE, endpoints=[{"address": "2001:2::1", "port": 80}]), ans(200))[0] == "unchecked",
   "an endpoint the lab does not map is not checked from outside")
ok(verdict(dict(BE, services=[{"protocol": "h2c", "endpoints": 1}]), ans(200))[0] == "unchecked" and
   verdict(dict(BE, services=[{"protocol": "http/1.1", "endpoints": 1}]),
           ans(200, **{"x-backend": "198.18.4.8:8080"}))[0] != "unchecked",
   "a backend spoken to in h2c (GRPCRoute) is not checked from outside; HTTP/1.1 is")
SPLIT = dict(BE, split=[{"share": 0.5, "action": "backend", "services": [{"endpoints": 1}]},
                        {"share": 0.5, "action": "backend", "services": [{"endpoints": 0}]}])
ok(verdict(SPLIT, ans(200))[0] == "unchecked",
   "a split with a rule without endpoints is not checked from outside")


def headers_received(want):
    """The request head curl sends with the -H arguments of the lab's command line for want
    (to a one-shot server on 127.0.0.1): what the data plane would see."""
    cmd = lab.curl_command("http://h.test/", want, "/dev/null", "/dev/null")
    hs = [a for i, a in enumerate(cmd) if i > 0 and cmd[i - 1] == "-H"]
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    srv.settimeout(5)
    got = []

    def serve():
        try:
            c, _ = srv.accept()
            c.settimeout(5)
            data = b""
            while b"\r\n\r\n" not in data:
                d = c.recv(4096)
                if not d:
                    break
                data += d
            got.append(data.decode("latin-1"))
            c.sendall(b"HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n")
            c.close()
        except OSError:
            pass
    t = threading.Thread(target=serve)
    t.start()
    args = sum([["-H", h] for h in hs], [])
    subprocess.run(["curl", "-sS", "-m", "5", "-o", "/dev/null"] + args +
                   ["http://127.0.0.1:%d/" % srv.getsockname()[1]],
                   stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    t.join()
    srv.close()
    return [ln.lower() for ln in (got[0] if got else "").split("\r\n")]


if shutil.which("curl"):
    seen = headers_received({"headers": {"x-debug": "", "x-other": "1"}})
    ok("x-debug:" in seen and "x-other: 1" in seen,
       "a header with an empty value is sent (hp-header-present: curl drops \"x-debug: \")", seen)
else:
    ok(True, "# SKIP no curl")
print("1..%d" % N)
sys.exit(1 if FAILED else 0)
