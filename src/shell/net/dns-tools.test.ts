// The one resolver through every tool: dig/host/nslookup ask the server named and skip
// /etc/hosts; getent/ping/curl read /etc/hosts first; CoreDNS's records (A, SRV for named ports,
// PTR for ClusterIPs and endpoints, `pods insecure`, ExternalName CNAMEs, NXDOMAIN with the
// zone's SOA); dig's sections, columns and wire sizes as BIND 9.18 prints them against CoreDNS.
import { beforeAll, describe, expect, it } from "vitest";
import { Cluster } from "../../engine/cluster.js";
import { type Question, type Reply, wireSize } from "../../engine/dns/message.js";
import { searchNames, parseResolvConf } from "../../engine/dns/resolver.js";
import { Session } from "../session.js";
import "./index.js";

const SVC_YAML = `apiVersion: v1
kind: Service
metadata:
  name: web
spec:
  selector:
    app: web
  ports:
  - name: http
    port: 80
    targetPort: 80
---
apiVersion: v1
kind: Service
metadata:
  name: hl
spec:
  clusterIP: None
  selector:
    app: web
  ports:
  - name: http
    port: 80
---
apiVersion: v1
kind: Service
metadata:
  name: www
spec:
  type: ExternalName
  externalName: www.laoma.cloud
`;

/** The cluster clock as dig's WHEN prints it (strftime "%a %b %d %T %Z %Y"). */
function when(t: number): string {
  const [day, d, mon, y, time] = new Date(t).toUTCString().replace(",", "").split(" ");
  return `${day} ${mon} ${d} ${time} UTC ${y}`;
}

describe("DNS tools on one cluster", () => {
  const c = Cluster.create({ seed: 7 });
  const s = new Session(c);
  const run = async (l: string) => {
    const r = await s.run(l);
    c.runUntilIdle(60000);
    return r;
  };
  let clusterIP = "";
  let podIPs: string[] = [];

  beforeAll(async () => {
    await run("kubectl create deployment web --image=httpd --replicas=2");
    await run(`cat > svc.yaml <<'EOF'\n${SVC_YAML}EOF`);
    await run("kubectl apply -f svc.yaml");
    await run("sleep 20");
    clusterIP = (await run("kubectl get svc web -o jsonpath='{.spec.clusterIP}'")).stdout;
    podIPs = (await run("kubectl get pods -l app=web -o jsonpath='{.items[*].status.podIP}'")).stdout.split(" ").sort();
  });

  it("dig @10.96.0.10 prints BIND 9.18's sections against CoreDNS, with the wire size and a fresh id", async () => {
    const r = await run("dig @10.96.0.10 web.default.svc.cluster.local");
    expect(r.exitCode).toBe(0);
    const out = r.stdout.replace(/id: \d+/, "id: N").replace(/COOKIE: [0-9a-f]{16}/, "COOKIE: C").replace(/Query time: \d msec/, "Query time: T msec");
    expect(out).toBe(`
; <<>> DiG 9.18.28 <<>> @10.96.0.10 web.default.svc.cluster.local
; (1 server found)
;; global options: +cmd
;; Got answer:
;; WARNING: .local is reserved for Multicast DNS
;; You are currently testing what happens when an mDNS query is leaked to DNS
;; ->>HEADER<<- opcode: QUERY, status: NOERROR, id: N
;; flags: qr aa rd; QUERY: 1, ANSWER: 1, AUTHORITY: 0, ADDITIONAL: 1
;; WARNING: recursion requested but not available

;; OPT PSEUDOSECTION:
; EDNS: version: 0, flags:; udp: 1232
; COOKIE: C (echoed)
;; QUESTION SECTION:
;web.default.svc.cluster.local.	IN	A

;; ANSWER SECTION:
web.default.svc.cluster.local. 30 IN	A	${clusterIP}

;; Query time: T msec
;; SERVER: 10.96.0.10#53(10.96.0.10) (UDP)
;; WHEN: ${when(c.now())}
;; MSG SIZE  rcvd: 115

`);
    const ids = new Set<string>();
    for (let i = 0; i < 5; i++) ids.add(/id: (\d+)/.exec((await run("dig @10.96.0.10 web.default.svc.cluster.local")).stdout)![1]);
    expect(ids.size).toBe(5);
  });

  it("NXDOMAIN carries the zone's SOA; names outside the zone are forwarded (ra, capped TTL)", async () => {
    const nx = (await run("dig @10.96.0.10 nosuch.default.svc.cluster.local")).stdout;
    expect(nx).toContain("status: NXDOMAIN");
    expect(nx).toMatch(/\n;; AUTHORITY SECTION:\ncluster\.local\.\t\t30\tIN\tSOA\tns\.dns\.cluster\.local\. hostmaster\.cluster\.local\. \d+ 7200 1800 86400 30\n/);
    expect(nx).toContain(";; MSG SIZE  rcvd: 166\n"); // 12 + 38 question + 93 SOA + 23 OPT with the echoed cookie
    const fw = (await run("dig @10.96.0.10 github.com")).stdout;
    expect(fw).toContain(";; flags: qr rd ra; QUERY: 1, ANSWER: 1");
    expect(fw).not.toContain("recursion requested but not available");
    expect(fw).toMatch(/\ngithub\.com\.\t\t30\tIN\tA\t198\.1[89]\.\d+\.\d+\n/);
    // The node's own resolver answers directly: no cookie, a longer TTL, compressed names.
    const direct = (await run("dig github.com")).stdout;
    expect(direct).toContain(";; SERVER: 10.1.8.2#53(10.1.8.2) (UDP)");
    expect(direct).not.toContain("COOKIE");
    expect(direct).toContain(";; MSG SIZE  rcvd: 55\n");
  });

  it("SRV for named ports, PTR for ClusterIPs and endpoints, pods insecure, ExternalName", async () => {
    expect((await run("dig @10.96.0.10 _http._tcp.web.default.svc.cluster.local SRV +short")).stdout).toBe("0 100 80 web.default.svc.cluster.local.\n");
    const hl = (await run("dig @10.96.0.10 _http._tcp.hl.default.svc.cluster.local SRV")).stdout;
    for (const ip of podIPs) {
      const ep = ip.replace(/\./g, "-");
      expect(hl).toContain(`_http._tcp.hl.default.svc.cluster.local. 30 IN SRV 0 50 80 ${ep}.hl.default.svc.cluster.local.\n`);
      expect(hl).toContain(`${ep}.hl.default.svc.cluster.local. 30 IN A ${ip}\n`);
    }
    expect((await run("dig @10.96.0.10 _nope._tcp.web.default.svc.cluster.local SRV")).stdout).toContain("status: NXDOMAIN");
    expect((await run(`dig @10.96.0.10 -x ${clusterIP} +short`)).stdout).toBe("web.default.svc.cluster.local.\n");
    const ep = podIPs[0].replace(/\./g, "-");
    expect((await run(`dig @10.96.0.10 -x ${podIPs[0]} +short`)).stdout.split("\n").sort().join("\n")).toBe(`\n${ep}.hl.default.svc.cluster.local.\n${ep}.web.default.svc.cluster.local.`);
    expect((await run(`dig @10.96.0.10 ${ep}.web.default.svc.cluster.local +short`)).stdout).toBe(`${podIPs[0]}\n`);
    expect((await run("dig @10.96.0.10 1-2-3-4.default.pod.cluster.local +short")).stdout).toBe("1.2.3.4\n");
    expect((await run("dig @10.96.0.10 1-2-3-4.nosuchns.pod.cluster.local")).stdout).toContain("status: NXDOMAIN");
    expect((await run("dig @10.96.0.10 www.default.svc.cluster.local +short")).stdout).toBe("www.laoma.cloud.\n");
    expect((await run("dig @10.96.0.10 kube-dns.kube-system.svc.cluster.local +short")).stdout).toBe("10.96.0.10\n");
    expect((await run("dig @10.96.0.10 dns-version.cluster.local TXT +short")).stdout).toBe('"1.1.0"\n');
  });

  it("host and nslookup ask the server named; a server that does not answer times out in each tool's words", async () => {
    expect((await run("host web.default.svc.cluster.local 10.96.0.10")).stdout).toBe(`Using domain server:\nName: 10.96.0.10\nAddress: 10.96.0.10#53\nAliases: \n\nweb.default.svc.cluster.local has address ${clusterIP}\n`);
    expect((await run("host www.default.svc.cluster.local 10.96.0.10")).stdout).toContain("www.default.svc.cluster.local is an alias for www.laoma.cloud.\n");
    expect((await run(`host ${clusterIP} 10.96.0.10`)).stdout).toContain(`${clusterIP.split(".").reverse().join(".")}.in-addr.arpa domain name pointer web.default.svc.cluster.local.\n`);
    expect((await run("nslookup web.default.svc.cluster.local 10.96.0.10")).stdout).toBe(`Server:\t\t10.96.0.10\nAddress:\t10.96.0.10#53\n\nName:\tweb.default.svc.cluster.local\nAddress: ${clusterIP}\n\n`);
    // The node's resolv.conf has no cluster search domains, and the node's resolver knows no such name.
    const nx = await run("nslookup web.default.svc.cluster.local");
    expect(nx.stdout).toBe("Server:\t\t10.1.8.2\nAddress:\t10.1.8.2#53\n\n** server can't find web.default.svc.cluster.local: NXDOMAIN\n\n");
    expect(nx.exitCode).toBe(1);
    const dead = await run("dig @10.1.2.3 web.default.svc.cluster.local");
    expect(dead.stdout).toBe(";; communications error to 10.1.2.3#53: timed out\n".repeat(3) + "\n; <<>> DiG 9.18.28 <<>> @10.1.2.3 web.default.svc.cluster.local\n; (1 server found)\n;; global options: +cmd\n;; no servers could be reached\n\n");
    expect(dead.exitCode).toBe(9);
    expect((await run("nslookup web 10.1.2.3")).stdout).toBe(";; communications error to 10.1.2.3#53: timed out\n".repeat(3) + ";; no servers could be reached\n\n");
    expect((await run("host web 10.1.2.3")).exitCode).toBe(1);
    // A pod that does not serve DNS answers with ICMP port unreachable.
    expect((await run(`dig @${podIPs[0]} web.default.svc.cluster.local`)).stdout).toContain(`;; communications error to ${podIPs[0]}#53: connection refused\n`);
  });

  it("/etc/hosts: getent and ping read it, nslookup and dig do not", async () => {
    expect((await run("getent hosts master")).stdout).toBe("10.1.8.30       master\n");
    expect((await run("ping -c 1 node1")).stdout).toMatch(/^PING node1 \(10\.1\.8\.31\) 56\(84\) bytes of data\.\n/);
    expect((await run("nslookup node1")).stdout).toContain("** server can't find node1: NXDOMAIN");
    expect((await run("dig node1 +short")).stdout).toBe("");
    await run("echo '10.1.8.31 web-alias' >> /etc/hosts");
    expect((await run("curl -v web-alias:10250")).stderr).toContain("*   Trying 10.1.8.31:10250...\n");
    expect((await run("getent hosts nosuch")).exitCode).toBe(2);
    expect((await run("getent hosts github.com")).stdout).toMatch(/^198\.1[89]\.\d+\.\d+ +github\.com\n$/);
  });

  it("in a pod: BusyBox nslookup, and wget/ping through the search list with ndots:5", async () => {
    await run("kubectl run bb --image=busybox -- sleep 3600");
    await run("sleep 10");
    const bb = await run("kubectl exec bb -- nslookup hl");
    expect(bb.stdout.startsWith("Server:\t\t10.96.0.10\nAddress:\t10.96.0.10:53\n\n")).toBe(true);
    expect([...bb.stdout.matchAll(/^Address: (10\.244\.\S+)$/gm)].map((m) => m[1]).sort()).toEqual(podIPs);
    expect(bb.stdout).toContain("** server can't find hl.svc.cluster.local: NXDOMAIN\n");
    // A name with a dot is asked as is (BusyBox applies no ndots), so this fails where wget succeeds.
    expect((await run("kubectl exec bb -- nslookup web.default")).stdout).toContain("** server can't find web.default: NXDOMAIN\n");
    expect((await run("kubectl exec bb -- wget -qO- web.default")).stdout).toContain("It works!");
    expect((await run(`kubectl exec bb -- nslookup ${clusterIP}`)).stdout).toContain(`\tname = web.default.svc.cluster.local\n`);
    expect((await run("kubectl exec bb -- nslookup www.default.svc.cluster.local")).stdout).toContain("www.default.svc.cluster.local\tcanonical name = www.laoma.cloud\n");
    // The pod's own /etc/hosts names the pod.
    expect((await run("kubectl exec bb -- ping -c 1 bb")).stdout).toMatch(/^PING bb \(10\.244\.\d+\.\d+\)/);
  });
});

describe("resolver pieces", () => {
  it("orders the search list as res_nsearch does", () => {
    const rc = parseResolvConf("search ns.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n");
    expect(searchNames("web", rc)).toEqual(["web.ns.svc.cluster.local.", "web.svc.cluster.local.", "web.cluster.local.", "web."]);
    expect(searchNames("a.b.c.d.e.f", rc)[0]).toBe("a.b.c.d.e.f.");
    expect(searchNames("web.", rc)).toEqual(["web."]);
  });

  it("sizes messages as they are on the wire", () => {
    // dig -t A myapp.default.svc.cluster.local @10.96.0.10 against CoreDNS: MSG SIZE rcvd: 119.
    const q: Question = { name: "myapp.default.svc.cluster.local.", type: "A" };
    const r: Reply = { rcode: "NOERROR", aa: true, ra: false, answer: [{ name: q.name, ttl: 30, type: "A", data: "10.99.179.210" }], authority: [], additional: [], compressed: false };
    expect(wireSize(q, r, { udp: 1232, cookie: "fd1fdbe4c0177389" })).toBe(119);
    // www.baidu.com through CoreDNS: two CNAMEs and two A records, uncompressed: 204.
    const b: Question = { name: "www.baidu.com.", type: "A" };
    const chain: Reply = {
      ...r,
      answer: [
        { name: "www.baidu.com.", ttl: 30, type: "CNAME", data: "www.a.shifen.com." },
        { name: "www.a.shifen.com.", ttl: 30, type: "CNAME", data: "www.wshifen.com." },
        { name: "www.wshifen.com.", ttl: 30, type: "A", data: "103.235.46.102" },
        { name: "www.wshifen.com.", ttl: 30, type: "A", data: "103.235.46.115" },
      ],
    };
    expect(wireSize(b, chain, { udp: 1232, cookie: "e37cc10b2067fe0a" })).toBe(204);
  });
});
