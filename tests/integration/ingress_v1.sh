#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# ingress_v1: Kubernetes Ingresses (networking.k8s.io/v1) carry real traffic through routerd
# (curl in the client namespace, the lab's nginx backends a and b): an Ingress of another
# class is not served; Exact before Prefix at equal length and Exact keeping its trailing
# slash; a Prefix path's trailing slash ignored, element-wise matching; a defaultBackend for
# what no rule matches and for hosts no object names; TLS terminated with the Ingress's
# Secret (curl -k --resolve, the certificate's subject checked), plain HTTP to it served, and
# redirected with 308 under switchyard.io/ssl-redirect; status.loadBalancer.ingress naming
# the router's address; routerctl get ingress / ingressclass print kubectl's columns.
T_NAME=ingress_v1
source "$(dirname "$0")/testlib.sh"

for c in openssl curl base64; do
	command -v "$c" >/dev/null || t_skip_all "$c is not installed"
done

t_setup ing 1
t_start_routerd
D=ing.$LAB_DOMAIN
R=$LAB_ROUTER_IP

rctl apply -f "$SY_SRC/config/routes.yaml"
t_expect_rc 0 "apply config/routes.yaml (services demo/a, demo/b)"

# get HOST PATH -> "body code" in T_OUT (newlines folded)
get() {
	t_run lab_client curl -s -m 10 -w ' %{http_code}' --resolve "$1:80:$R" "http://$1$2"
	T_OUT=$(tr '\n' ' ' <<<"$T_OUT" | tr -s ' ')
	T_OUT=${T_OUT% }
}
# expect HOST PATH WANT WHAT
expect() {
	get "$1" "$2"
	[ "$T_OUT" = "$3" ] || t_fail "$4" "GET http://$1$2: want '$3'" "seen: $(t_seen)"
}

# Another controller's class: not served (no rule, no status).
rctl apply -f - <<EOF
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata: {name: nginx}
spec: {controller: k8s.io/ingress-nginx}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: theirs, namespace: demo}
spec:
  ingressClassName: nginx
  rules:
  - host: theirs.$D
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: a, port: {number: 80}}}}
EOF
t_expect_rc 0 "apply an IngressClass of another controller and an Ingress of it"
t_run lab_client curl -s -m 10 -o /dev/null -w '%{http_code}' --resolve "theirs.$D:80:$R" "http://theirs.$D/"
[ "$T_OUT" = 503 ] || t_fail "an Ingress of another class is not served (503)" "seen: $(t_seen)"
rctl get ingress theirs -n demo -o json
t_json_expect "$T_OUT" 'not d.get("status")' "an Ingress of another class gets no status"
t_ok "an Ingress of another controller's class is ignored: 503, no status"

# A self-signed certificate for secure.$D and redir.$D.
C=$LAB_DIR/ingress-tls
mkdir -p "$C"
t_run openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 30 \
	-subj "/CN=ingress-v1-test" -addext "subjectAltName=DNS:secure.$D,DNS:redir.$D" \
	-keyout "$C/tls.key" -out "$C/tls.crt"
t_expect_rc 0 "make a self-signed certificate for secure.$D and redir.$D"

rctl apply -f - <<EOF
apiVersion: networking.k8s.io/v1
kind: IngressClass
metadata:
  name: switchyard
  annotations: {ingressclass.kubernetes.io/is-default-class: "true"}
spec: {controller: switchyard.io/ingress-controller}
---
apiVersion: v1
kind: Secret
metadata: {name: ing-tls, namespace: demo}
type: kubernetes.io/tls
data:
  tls.crt: $(base64 -w0 "$C/tls.crt")
  tls.key: $(base64 -w0 "$C/tls.key")
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: paths, namespace: demo}
spec:
  ingressClassName: switchyard
  rules:
  - host: x.$D
    http:
      paths:
      - {path: /exact, pathType: Exact, backend: {service: {name: a, port: {number: 80}}}}
      - {path: /exact, pathType: Prefix, backend: {service: {name: b, port: {name: http}}}}
      - {path: /, pathType: Prefix, backend: {service: {name: b, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: dflt, namespace: demo}
spec:
  defaultBackend: {service: {name: b, port: {number: 80}}}
  rules:
  - host: y.$D
    http:
      paths:
      - {path: /app/, pathType: Prefix, backend: {service: {name: a, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: secure, namespace: demo}
spec:
  tls: [{hosts: [secure.$D], secretName: ing-tls}]
  rules:
  - host: secure.$D
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: a, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: redir
  namespace: demo
  annotations: {switchyard.io/ssl-redirect: "true"}
spec:
  tls: [{hosts: [redir.$D], secretName: ing-tls}]
  rules:
  - host: redir.$D
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: b, port: {number: 80}}}}
EOF
t_expect_rc 0 "apply our default IngressClass, a TLS Secret and four Ingresses"

expect "x.$D" /exact "backend-a 200" "Exact /exact beats Prefix /exact for /exact"
expect "x.$D" /exact/ "backend-b 200" "Exact /exact does not match /exact/: the Prefix does"
expect "x.$D" /exact/more "backend-b 200" "Prefix /exact matches /exact/more"
expect "x.$D" /exactly "backend-b 200" "Prefix /exact does not match /exactly: Prefix / does"
t_ok "Exact before Prefix at equal length, element-wise Prefix, port by number and by name"

expect "y.$D" /app "backend-a 200" "Prefix /app/ matches /app (trailing slash ignored)"
expect "y.$D" /app/page "backend-a 200" "Prefix /app/ matches /app/page"
expect "y.$D" /apple "backend-b 200" "/apple is not under /app/: the defaultBackend"
expect "y.$D" / "backend-b 200" "/ of the Ingress's host: the defaultBackend"
expect "nobody.$D" /any/thing "backend-b 200" "a host no object names: the defaultBackend"
expect "theirs.$D" / "backend-b 200" "the other class's host is nobody's: the defaultBackend"
t_ok "defaultBackend serves what no rule matches, on its hosts and on unknown hosts"

t_run lab_client curl -sk -m 10 -v -w ' %{http_code}' --resolve "secure.$D:443:$R" "https://secure.$D/"
[ "$T_RC" -eq 0 ] || t_fail "https://secure.$D/" "curl rc $T_RC" "seen: $(t_seen)"
grep -q 'subject: CN=ingress-v1-test' <<<"$T_ERR" ||
	t_fail "TLS: the Ingress's Secret is the certificate served" "seen: $(t_seen)"
T_OUT=$(tr '\n' ' ' <<<"$T_OUT" | tr -s ' ')
[ "${T_OUT% }" = "backend-a 200" ] || t_fail "https://secure.$D/ -> a" "seen: $(t_seen)"
expect "secure.$D" / "backend-a 200" "plain HTTP to a TLS host is served (no redirect by default)"
t_ok "TLS edge termination with the Ingress's Secret; plain HTTP still served"

t_run lab_client curl -s -m 10 -o /dev/null -D - --resolve "redir.$D:80:$R" "http://redir.$D/p?q=1"
grep -Eq '^HTTP/1.1 308' <<<"$T_OUT" || t_fail "ssl-redirect: 308" "seen: $(t_seen)"
grep -Eiq "^location: https://redir.$D/p\?q=1" <<<"$T_OUT" ||
	t_fail "ssl-redirect: Location https://redir.$D/p?q=1" "seen: $(t_seen)"
t_run lab_client curl -sk -m 10 -w ' %{http_code}' --resolve "redir.$D:443:$R" "https://redir.$D/"
T_OUT=$(tr '\n' ' ' <<<"$T_OUT" | tr -s ' ')
[ "${T_OUT% }" = "backend-b 200" ] || t_fail "https://redir.$D/ -> b" "seen: $(t_seen)"
t_ok "switchyard.io/ssl-redirect: plain HTTP gets 308 to https, https is served"

rctl get ingress paths -n demo -o json
t_json_expect "$T_OUT" '"'"$R"'" in [e.get("ip") for e in d["status"]["loadBalancer"]["ingress"]]' \
	"status.loadBalancer.ingress names the router's address $R"
t_ok "status.loadBalancer.ingress: $(t_json "$T_OUT" 'd["status"]["loadBalancer"]["ingress"]')"

rctl get ingress -n demo
t_expect_out '^NAME +CLASS +HOSTS +ADDRESS +PORTS +AGE' "get ingress: kubectl's columns NAME CLASS HOSTS ADDRESS PORTS AGE"
t_expect_out "^secure +<none> +secure\.$D +$R +80, 443 " "get ingress: secure (no class named, TLS: 80, 443)"
t_expect_out "^paths +switchyard +x\.$D +$R +80 " "get ingress: paths (class switchyard, port 80)"
t_expect_out "^theirs +nginx +theirs\.$D +80 " "get ingress: theirs (another class: no address)"
rctl get ingressclass
t_expect_out '^NAME +CONTROLLER +PARAMETERS +AGE' "get ingressclass: NAME CONTROLLER PARAMETERS AGE"
t_expect_out '^switchyard +switchyard\.io/ingress-controller +<none> ' "get ingressclass: ours"
t_ok "routerctl get ingress / ingressclass: kubectl's tables"

t_finish
