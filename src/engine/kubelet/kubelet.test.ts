import { describe, expect, it } from "vitest";
import { R } from "../api/resources.js";
import type { KObject, Pod } from "../api/types.js";
import type { Cluster } from "../cluster.js";
import { isPodReady } from "../controllers/util.js";
import { testCluster } from "../testing.js";

function pod(c: Cluster, name: string): Pod {
  return c.client.get(R.pods, "default", name) as Pod;
}

function podEvents(c: Cluster, name: string): string[] {
  return c.client
    .list(R.events, "default")
    .items.filter((e) => (e.involvedObject as { name: string }).name === name)
    .sort((a, b) => Number(a.metadata.resourceVersion) - Number(b.metadata.resourceVersion))
    .map((e) => `${e.type} ${e.reason} ${e.message}`);
}

describe("kubelet", () => {
  it("goes Pending/ContainerCreating -> Running with the kubelet's events", () => {
    const c = testCluster();
    c.client.create(R.pods, "default", { metadata: { name: "web" }, spec: { containers: [{ name: "nginx", image: "nginx:1.29" }] } });
    let p = pod(c, "web");
    expect(p.status!.phase).toBe("Pending");
    expect(p.status!.containerStatuses![0].state).toEqual({ waiting: { reason: "ContainerCreating" } });
    expect(p.status!.podIP).toMatch(/^10\.244\.[12]\.\d+$/);
    c.advance(10_000);
    p = pod(c, "web");
    expect(p.status!.phase).toBe("Running");
    expect(isPodReady(p)).toBe(true);
    expect(p.status!.containerStatuses![0]).toMatchObject({ name: "nginx", ready: true, restartCount: 0, started: true, image: "docker.io/library/nginx:1.29" });
    expect(podEvents(c, "web")).toEqual([
      `Normal Scheduled Successfully assigned default/web to ${p.spec.nodeName}`,
      'Normal Pulling Pulling image "nginx:1.29"',
      'Normal Pulled Successfully pulled image "nginx:1.29" in 2.5s (2.5s including waiting). Image size: 72195292 bytes.',
      "Normal Created Created container: nginx",
      "Normal Started Started container nginx",
    ]);
    expect(c.kubelet.filesystem(p)!.read("/usr/share/nginx/html/index.html")).toContain("Welcome to nginx!");
  });

  it("restarts a busybox shell without stdin in CrashLoopBackOff with doubling back-off", () => {
    const c = testCluster();
    c.client.create(R.pods, "default", { metadata: { name: "bb" }, spec: { containers: [{ name: "bb", image: "busybox" }] } });
    c.advance(5_000);
    let st = pod(c, "bb").status!.containerStatuses![0];
    expect(st.state!.waiting?.reason ?? st.state!.terminated?.reason).toMatch(/CrashLoopBackOff|Completed/);
    c.advance(60_000);
    st = pod(c, "bb").status!.containerStatuses![0];
    expect(st.restartCount).toBeGreaterThanOrEqual(2);
    expect(st.lastState!.terminated).toMatchObject({ exitCode: 0, reason: "Completed" });
    expect(podEvents(c, "bb").some((e) => e.startsWith("Warning BackOff Back-off restarting failed container bb in pod bb_default("))).toBe(true);
  });

  it("keeps a busybox that sleeps running and mysql without a password crashing with its message", () => {
    const c = testCluster();
    c.client.create(R.pods, "default", { metadata: { name: "sleeper" }, spec: { containers: [{ name: "s", image: "busybox", command: ["sleep", "3600"] }] } });
    c.client.create(R.pods, "default", { metadata: { name: "db" }, spec: { containers: [{ name: "mysql", image: "mysql" }] } });
    c.advance(20_000);
    expect(pod(c, "sleeper").status!.phase).toBe("Running");
    expect(isPodReady(pod(c, "sleeper"))).toBe(true);
    const db = pod(c, "db");
    expect(db.status!.containerStatuses![0].restartCount).toBeGreaterThan(0);
    expect(c.kubelet.logs(db, "mysql", true)!.map((l) => l.line).join("\n")).toContain("Database is uninitialized and password option is not specified");
  });

  it("restarts a container that exits at the next sync the first time, then after the back-off", () => {
    const c = testCluster();
    c.client.create(R.pods, "default", { metadata: { name: "db" }, spec: { containers: [{ name: "mysql", image: "mysql" }] } });
    const restarts: [number, number, string][] = [];
    let last = -1;
    for (let t = 1; t <= 60; t++) {
      c.advance(1_000);
      const st = pod(c, "db").status!.containerStatuses![0];
      const shown = st.state!.waiting?.reason ?? (st.state!.terminated ? "Error" : "Running");
      if (st.restartCount !== last || restarts[restarts.length - 1][2] !== shown) restarts.push([t, st.restartCount, shown]);
      last = st.restartCount;
    }
    // Error with no restart for about a second (the PLEG's relist), restarted, then each exit
    // waits 10 s, 20 s, 40 s in CrashLoopBackOff (kubectl get pods: Error 0, Error 1, CrashLoopBackOff 1, ...).
    const firstError = restarts.find(([, n, s]) => n === 0 && s === "Error")!;
    const firstRestart = restarts.find(([, n]) => n === 1)!;
    expect(firstRestart[0] - firstError[0]).toBeLessThanOrEqual(1);
    const starts = restarts.filter(([, n], i) => i > 0 && n !== restarts[i - 1][1]).map(([t]) => t);
    expect(starts.slice(1).map((t, i) => t - starts[i])).toEqual([10, 20]);
    expect(podEvents(c, "db").filter((e) => e.startsWith("Warning BackOff")).length).toBeGreaterThan(0);
  });

  it("shows the back-off in a crash-looping container's waiting state for as long as it lasts", () => {
    const c = testCluster();
    c.client.create(R.pods, "default", { metadata: { name: "db" }, spec: { containers: [{ name: "mysql", image: "mysql" }] } });
    const uid = pod(c, "db").metadata.uid;
    const seen = new Set<string>();
    for (let t = 0; t < 900; t++) {
      c.advance(1_000);
      const w = pod(c, "db").status!.containerStatuses![0].state!.waiting;
      // Every second of a back-off, not only the instant the container exited.
      if (w?.reason === "CrashLoopBackOff") seen.add(w.message!);
    }
    // kuberuntime_manager's doBackOff error, with the back-off as Go prints a duration, doubling
    // up to five minutes.
    const backoffs = [...seen].map((m) => {
      expect(m).toMatch(new RegExp(`^back-off \\S+ restarting failed container=mysql pod=db_default\\(${uid}\\)$`));
      return m.split(" ")[1];
    });
    expect(backoffs).toEqual(["10s", "20s", "40s", "1m20s", "2m40s", "5m0s"]);
  });

  it("decides readiness from the app: removing the probed file makes the pod unready", () => {
    const c = testCluster();
    c.client.create(R.pods, "default", {
      metadata: { name: "web" },
      spec: {
        containers: [
          { name: "nginx", image: "nginx", readinessProbe: { httpGet: { path: "/index.html", port: 80 }, initialDelaySeconds: 2, periodSeconds: 5, failureThreshold: 3 } },
        ],
      },
    });
    c.advance(4_500); // started at 4 s, first probe at 6 s
    expect(isPodReady(pod(c, "web"))).toBe(false);
    c.advance(2_000);
    expect(isPodReady(pod(c, "web"))).toBe(true);
    c.kubelet.filesystem(pod(c, "web"))!.remove("/usr/share/nginx/html/index.html");
    c.advance(14_000); // 3 failures x 5 s
    expect(isPodReady(pod(c, "web"))).toBe(true);
    c.advance(1_000);
    expect(isPodReady(pod(c, "web"))).toBe(false);
    expect(pod(c, "web").status!.conditions!.find((x) => x.type === "Ready")).toMatchObject({ reason: "ContainersNotReady", message: "containers with unready status: [nginx]" });
    c.kubelet.filesystem(pod(c, "web"))!.write("/usr/share/nginx/html/index.html", "back\n");
    c.advance(5_000);
    expect(isPodReady(pod(c, "web"))).toBe(true);
  });

  it("records Unhealthy for each failing readiness probe run, counted on one event", () => {
    const c = testCluster();
    c.client.create(R.pods, "default", {
      metadata: { name: "web" },
      spec: {
        containers: [
          { name: "nginx", image: "nginx", readinessProbe: { httpGet: { path: "/index.html", port: 80 }, initialDelaySeconds: 2, periodSeconds: 5, failureThreshold: 3 } },
        ],
      },
    });
    const unhealthy = () => (c.client.list(R.events, "default").items as KObject[]).filter((e) => (e as { reason?: string }).reason === "Unhealthy") as (KObject & { count: number; message: string; type: string; firstTimestamp: string; lastTimestamp: string; involvedObject: { fieldPath?: string } })[];
    c.advance(6_500); // probes at 6 s (passes), 11 s, 16 s...
    expect(unhealthy()).toEqual([]);
    c.kubelet.filesystem(pod(c, "web"))!.remove("/usr/share/nginx/html/index.html");
    c.advance(15_000); // runs at 11, 16 and 21 s fail
    const [e] = unhealthy();
    expect(unhealthy().length).toBe(1);
    expect(e).toMatchObject({ type: "Warning", count: 3, message: "Readiness probe failed: HTTP probe failed with statuscode: 404", involvedObject: { fieldPath: "spec.containers{nginx}" } });
    expect(Date.parse(e.lastTimestamp) - Date.parse(e.firstTimestamp)).toBe(10_000);
    c.kubelet.filesystem(pod(c, "web"))!.write("/usr/share/nginx/html/index.html", "back\n");
    c.advance(30_000);
    expect(unhealthy()[0]!.count).toBe(3);
  });

  it("words tcp, http and exec probe failures as the kubelet's probers do", () => {
    const c = testCluster();
    const mk = (name: string, image: string, readinessProbe: object, command?: string[]) =>
      c.client.create(R.pods, "default", { metadata: { name }, spec: { containers: [{ name: "c", image, command, readinessProbe }] } });
    mk("tcp", "nginx", { tcpSocket: { port: 8080 } });
    mk("http", "busybox", { httpGet: { path: "/healthz", port: 8080 } }, ["sleep", "3600"]);
    mk("bb", "busybox", { exec: { command: ["cat", "/tmp/healthy"] } }, ["sleep", "3600"]);
    mk("deb", "nginx", { exec: { command: ["cat", "/tmp/healthy"] } });
    c.advance(20_000);
    const msg = (name: string) => {
      const ev = (c.client.list(R.events, "default").items as (KObject & { reason?: string; message?: string; involvedObject: { name: string } })[]).find((e) => e.reason === "Unhealthy" && e.involvedObject.name === name);
      return ev?.message;
    };
    const ip = (name: string) => pod(c, name).status!.podIP;
    expect(msg("tcp")).toBe(`Readiness probe failed: dial tcp ${ip("tcp")}:8080: connect: connection refused`);
    expect(msg("http")).toBe(`Readiness probe failed: Get "http://${ip("http")}:8080/healthz": dial tcp ${ip("http")}:8080: connect: connection refused`);
    expect(msg("bb")).toBe("Readiness probe failed: cat: can't open '/tmp/healthy': No such file or directory\n");
    expect(msg("deb")).toBe("Readiness probe failed: cat: /tmp/healthy: No such file or directory\n");
  });

  it("throttles a pod's events as the recorder's spam filter does: 25, then one per 5 minutes", () => {
    const c = testCluster();
    c.client.create(R.pods, "default", { metadata: { name: "p" }, spec: { containers: [{ name: "c", image: "nginx", readinessProbe: { tcpSocket: { port: 81 }, periodSeconds: 1 } }] } });
    c.advance(60_000);
    const kubeletEvents = () => (c.client.list(R.events, "default").items as (KObject & { count: number; source: { component: string } })[]).filter((e) => e.source.component === "kubelet");
    const total = () => kubeletEvents().reduce((n, e) => n + e.count, 0);
    // Pulling, Pulled, Created, Started, then Unhealthy until the 25 tokens are spent.
    expect(total()).toBe(25);
    c.advance(600_000);
    expect(total()).toBe(27);
  });

  it("stops httpd at once but waits the grace period for a shell that ignores SIGTERM", () => {
    const c = testCluster();
    c.client.create(R.pods, "default", { metadata: { name: "web" }, spec: { containers: [{ name: "httpd", image: "httpd" }] } });
    c.client.create(R.pods, "default", { metadata: { name: "bb" }, spec: { containers: [{ name: "bb", image: "busybox", command: ["sleep", "3600"] }] } });
    c.advance(10_000);
    c.client.delete(R.pods, "default", "web");
    c.client.delete(R.pods, "default", "bb");
    expect(pod(c, "web").metadata.deletionTimestamp).toBeTruthy();
    c.advance(1_000);
    expect(() => pod(c, "web")).toThrow('pods "web" not found');
    c.advance(28_000);
    expect(pod(c, "bb").metadata.deletionTimestamp).toBeTruthy();
    c.advance(1_000);
    expect(() => pod(c, "bb")).toThrow('pods "bb" not found');
  });

  it("mounts configMap volumes as files", () => {
    const c = testCluster();
    c.client.create(R.configmaps, "default", { metadata: { name: "web" }, data: { "index28.html": "hello nginx 1.28\n", "index29.html": "hello nginx 1.29\n" } });
    c.client.create(R.pods, "default", {
      metadata: { name: "web" },
      spec: {
        containers: [{ name: "nginx", image: "nginx:1.28", volumeMounts: [{ name: "webcontent", mountPath: "/usr/share/nginx/html" }] }],
        volumes: [{ name: "webcontent", configMap: { name: "web", items: [{ key: "index28.html", path: "index.html" }] } }],
      },
    });
    c.advance(10_000);
    const fs = c.kubelet.filesystem(pod(c, "web"))!;
    expect(fs.read("/usr/share/nginx/html/index.html")).toBe("hello nginx 1.28\n");
    expect(() => fs.write("/usr/share/nginx/html/index.html", "x")).toThrow("EROFS");
  });

  it("reports FailedScheduling when no node fits", () => {
    const c = testCluster();
    c.client.create(R.pods, "default", { metadata: { name: "p" }, spec: { nodeSelector: { disk: "ssd" }, containers: [{ name: "c", image: "nginx" }] } });
    const p = pod(c, "p");
    expect(p.status!.conditions).toEqual([
      {
        type: "PodScheduled",
        status: "False",
        lastProbeTime: null,
        lastTransitionTime: p.status!.conditions![0].lastTransitionTime,
        reason: "Unschedulable",
        message:
          "0/3 nodes are available: 1 node(s) had untolerated taint {node-role.kubernetes.io/control-plane: }, 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
      },
    ]);
  });
});

describe("container logs", () => {
  it("rotate past containerLogMaxSize: kubectl logs reads only the new file, and the size survives a restore", () => {
    const c = testCluster();
    c.client.create(R.pods, "default", { metadata: { name: "web" }, spec: { containers: [{ name: "nginx", image: "nginx:1.29" }] } });
    c.advance(10_000);
    const p = pod(c, "web");
    const line = "x".repeat(1000);
    // About 1046 bytes a line in the CRI file: 10 Mi holds some 10025 of them.
    for (let i = 0; i < 10_000; i++) c.kubelet.appendLog(p, "nginx", [`${i} ${line}`]);
    const before = c.kubelet.logs(p, "nginx")!;
    expect(before[before.length - 1].line).toBe(`9999 ${line}`);
    expect(before.some((l) => l.line.startsWith("0 "))).toBe(true);
    // Restored from a snapshot, the kubelet knows how full the file is.
    const saved = JSON.parse(JSON.stringify(c.kubelet.save()));
    c.kubelet.load(saved);
    for (let i = 10_000; i < 10_200; i++) c.kubelet.appendLog(p, "nginx", [`${i} ${line}`]);
    const after = c.kubelet.logs(p, "nginx")!;
    // The file filled up at line 10025 (10485760 bytes: 10458890 for lines 0-9999, 1047 each after).
    expect(after[0].line).toBe(`10025 ${line}`);
    expect(after.map((l) => Number(l.line.split(" ")[0]))).toEqual(Array.from({ length: 175 }, (_, i) => 10_025 + i));
  });
  it("hands a host each container's log as a stream that only grows until its epoch moves", () => {
    const c = testCluster();
    c.client.create(R.pods, "default", { metadata: { name: "web" }, spec: { containers: [{ name: "nginx", image: "nginx:1.29" }] } });
    c.advance(10_000);
    const p = pod(c, "web");
    const stream = () => c.kubelet.logStreams().find((s) => s.key === "default/web|nginx")!;
    const start = stream();
    // nginx's start-up lines come as one block: a stream's lines are those `kubectl logs` reads.
    expect(start.count).toBeGreaterThan(1);
    for (let i = 0; i < 5; i++) c.kubelet.appendLog(p, "nginx", [`line ${i}`]);
    expect(stream()).toEqual({ ...start, count: start.count + 5 });
    const all = c.kubelet.logLinesFrom("default/web|nginx", 0);
    expect(all.map((l) => l.line)).toEqual(c.kubelet.logs(p, "nginx")!.map((l) => l.line));
    // From any line, inside the block or after it.
    for (let from = 0; from <= all.length; from++) expect(c.kubelet.logLinesFrom("default/web|nginx", from)).toEqual(all.slice(from));
    // Saved without logs, loaded with them put back: the same lines, at epoch 0 ("as loaded").
    const saved = JSON.parse(JSON.stringify(c.kubelet.save({ logs: false })));
    expect(JSON.stringify(saved)).not.toContain("line 4");
    const web = (saved.pods as [string, { containers: { logs?: unknown }[] }][]).find(([k]) => k === "default/web")!;
    expect(web[1].containers[0].logs).toBeUndefined();
    web[1].containers[0].logs = all;
    c.kubelet.load(saved);
    expect(stream()).toEqual({ key: "default/web|nginx", epoch: 0, count: all.length });
    expect(c.kubelet.logLinesFrom("default/web|nginx", 0)).toEqual(all);
    // Rotation past 10 Mi moves the epoch.
    for (let i = 0; i < 11; i++) c.kubelet.appendLog(p, "nginx", ["x".repeat(1 << 20)]);
    expect(stream().epoch).toBeGreaterThan(0);
  });
});

describe("the cluster's container logs", () => {
  it("stay within CLUSTER_LOG_MAX_BYTES: past it the largest current log is rotated", () => {
    const c = testCluster();
    for (const name of ["a", "b", "c", "d"]) c.client.create(R.pods, "default", { metadata: { name }, spec: { containers: [{ name: "nginx", image: "nginx:1.29" }] } });
    c.advance(10_000);
    const mib = "x".repeat(1024 * 1024 - 100);
    // 9 MiB each (under containerLogMaxSize), 36 MiB together; "a" a little more than the others.
    c.kubelet.appendLog(pod(c, "a"), "nginx", Array(9).fill(mib));
    for (const name of ["b", "c"]) c.kubelet.appendLog(pod(c, name), "nginx", Array(8).fill(mib));
    const before = c.kubelet.logLinesFrom("default/a|nginx", 0).length;
    expect(before).toBeGreaterThanOrEqual(9);
    c.kubelet.appendLog(pod(c, "d"), "nginx", Array(8).fill(mib));
    const lines = (name: string) => c.kubelet.logLinesFrom(`default/${name}|nginx`, 0).filter((l) => l.line === mib).length;
    expect(lines("a")).toBe(0);
    expect([lines("b"), lines("c"), lines("d")]).toEqual([8, 8, 8]);
  });
});
