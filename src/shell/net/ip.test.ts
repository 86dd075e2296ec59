// The node's interfaces as iproute2 prints them (ip link, ip -br addr/link), iptables' version.
import { describe, expect, it } from "vitest";
import { testCluster } from "../../engine/testing.js";
import { Session } from "../session.js";

describe("ip link, ip -br, iptables --version", () => {
  it("prints the node's interfaces in iproute2's layouts", async () => {
    const s = new Session(testCluster());
    expect((await s.run("ip link")).stdout).toBe(
      "1: lo: <LOOPBACK,UP,LOWER_UP> mtu 65536 qdisc noqueue state UNKNOWN mode DEFAULT group default qlen 1000\n    link/loopback 00:00:00:00:00:00 brd 00:00:00:00:00:00\n" +
        "2: eth0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc fq_codel state UP mode DEFAULT group default qlen 1000\n    link/ether 00:0c:29:00:08:30 brd ff:ff:ff:ff:ff:ff\n" +
        "3: flannel.1: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1450 qdisc noqueue state UNKNOWN mode DEFAULT group default\n    link/ether ce:1f:0a:f4:00:00 brd ff:ff:ff:ff:ff:ff\n" +
        "4: cni0: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1450 qdisc noqueue state UP mode DEFAULT group default qlen 1000\n    link/ether 0a:58:0a:f4:00:01 brd ff:ff:ff:ff:ff:ff\n",
    );
    // Brief: the name in 16 columns, the state in 14, each item followed by a space (as iproute2).
    expect((await s.run("ip -br a")).stdout).toBe("lo               UNKNOWN        127.0.0.1/8 \neth0             UP             10.1.8.30/24 \nflannel.1        UNKNOWN        10.244.0.0/32 \ncni0             UP             10.244.0.1/24 \n");
    expect((await s.run("ip -br link show dev eth0")).stdout).toBe("eth0             UP             00:0c:29:00:08:30 <BROADCAST,MULTICAST,UP,LOWER_UP> \n");
    expect((await s.run("ip link show cni0")).stdout).toMatch(/^4: cni0: /);
    expect(await s.run("ip link show nope")).toEqual({ stdout: "", stderr: 'Device "nope" does not exist.\n', exitCode: 1 });
    expect(await s.run("ip -x a")).toEqual({ stdout: "", stderr: 'Option "-x" is unknown, try "ip -help".\n', exitCode: 255 });
    expect(await s.run("iptables --version")).toEqual({ stdout: "iptables v1.8.9 (nf_tables)\n", stderr: "", exitCode: 0 });
    expect((await s.run("iptables -V")).stdout).toBe("iptables v1.8.9 (nf_tables)\n");
  });
});
