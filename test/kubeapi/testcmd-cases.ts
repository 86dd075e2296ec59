// Behaviours that Kubernetes' own kubectl command tests (kubernetes/kubernetes test/cmd: apply.sh's
// server-side apply, diff.sh, get.sh, save-config.sh, create.sh, delete.sh, core.sh's secrets,
// apps.sh's cascading deletes) assert for the types ServiceLab serves, written here in our own
// words as checks against a ServiceLab server driven by the REAL kubectl. Each case throws on the
// first assertion that fails. Used by testcmd.e2e.test.ts (one test per case) and by
// `npm run bench kubeapi` (the pass rate).
import { strict as assert } from "node:assert";
import type { Out } from "./harness.js";

export interface Kubectl {
  /** The real kubectl (1.33 through the version dispatcher) with the cluster's kubeconfig. */
  (args: string[], stdin?: string): Promise<Out>;
  /** The same with kubectl 1.27, the oldest supported. */
  v127(args: string[], stdin?: string): Promise<Out>;
}

export interface Case {
  name: string;
  /** Where in test/cmd the behaviour is asserted. */
  from: string;
  run(k: Kubectl, ns: string): Promise<void>;
}

const pod = (name: string, image = "registry.k8s.io/pause:3.10", label = "test-pod-label") =>
  `apiVersion: v1\nkind: Pod\nmetadata:\n  name: ${name}\n  labels:\n    name: ${label}\nspec:\n  containers:\n  - name: kubernetes-pause\n    image: ${image}\n`;

const deploy = (name: string, replicas: number, image = "nginx") =>
  `apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: ${name}\nspec:\n  replicas: ${replicas}\n  selector:\n    matchLabels: {app: ${name}}\n  template:\n    metadata:\n      labels: {app: ${name}}\n    spec:\n      containers:\n      - name: web\n        image: ${image}\n`;

function ok(r: Out, what: string): Out {
  assert.equal(r.code, 0, `${what}: exit ${r.code}: ${r.stderr}`);
  return r;
}

export const CASES: Case[] = [
  {
    name: "apply --server-side creates a missing object, owned by the manager kubectl",
    from: "apply.sh run_kubectl_server_side_apply_tests",
    async run(k, ns) {
      ok(await k(["apply", "--server-side", "-n", ns, "-f", "-"], pod("test-pod")), "apply");
      const label = ok(await k(["get", "pod", "test-pod", "-n", ns, "-o", "jsonpath={.metadata.labels.name}"]), "get");
      assert.equal(label.stdout, "test-pod-label");
      const managers = ok(await k(["get", "pod", "test-pod", "-n", ns, "-o", "jsonpath={.metadata.managedFields[*].manager}"]), "get");
      assert.match(managers.stdout, /\bkubectl\b/);
    },
  },
  {
    name: "apply --server-side --field-manager --force-conflicts records the custom manager",
    from: "apply.sh run_kubectl_server_side_apply_tests",
    async run(k, ns) {
      ok(await k(["apply", "--server-side", "-n", ns, "-f", "-"], pod("test-pod")), "apply");
      ok(await k(["apply", "--server-side", "--field-manager=my-field-manager", "--force-conflicts", "-n", ns, "-f", "-"], pod("test-pod")), "apply again");
      const managers = ok(await k(["get", "pod", "test-pod", "-n", ns, "-o", "jsonpath={.metadata.managedFields[*].manager}"]), "get");
      assert.match(managers.stdout, /my-field-manager/);
    },
  },
  {
    name: "apply --server-side --dry-run=server neither creates nor changes",
    from: "apply.sh run_kubectl_server_side_apply_tests",
    async run(k, ns) {
      ok(await k(["apply", "--server-side", "--dry-run=server", "-n", ns, "-f", "-"], pod("test-pod")), "dry run");
      assert.equal(ok(await k(["get", "pods", "-n", ns, "-o", "name"]), "get").stdout, "");
      ok(await k(["apply", "--server-side", "-n", ns, "-f", "-"], pod("test-pod")), "apply");
      // The pod's status moves on its own (it runs): what the apply owns must not.
      const mf = ok(await k(["get", "pod", "test-pod", "-n", ns, "-o", "jsonpath={.metadata.managedFields[?(@.manager==\"kubectl\")]}"]), "managedFields").stdout;
      ok(await k(["apply", "--server-side", "--dry-run=server", "-n", ns, "-f", "-"], pod("test-pod", undefined, "changed")), "dry run change");
      assert.equal(ok(await k(["get", "pod", "test-pod", "-n", ns, "-o", "jsonpath={.metadata.labels.name}"]), "get").stdout, "test-pod-label");
      assert.equal(ok(await k(["get", "pod", "test-pod", "-n", ns, "-o", "jsonpath={.metadata.managedFields[?(@.manager==\"kubectl\")]}"]), "managedFields").stdout, mf);
    },
  },
  {
    name: "apply --server-side over a client-side apply conflicts on a changed field, and --force-conflicts takes it",
    from: "apply.sh (server-side apply conflicts)",
    async run(k, ns) {
      ok(await k(["apply", "-n", ns, "-f", "-"], deploy("web", 1)), "client-side apply");
      const r = await k(["apply", "--server-side", "-n", ns, "-f", "-"], deploy("web", 3));
      assert.equal(r.code, 1);
      assert.match(r.stderr, /^error: Apply failed with 1 conflict: conflict with "kubectl-client-side-apply" using apps\/v1: \.spec\.replicas\n/);
      assert.match(r.stderr, /--force-conflicts/);
      ok(await k(["apply", "--server-side", "--force-conflicts", "-n", ns, "-f", "-"], deploy("web", 3)), "forced");
      assert.equal(ok(await k(["get", "deploy", "web", "-n", ns, "-o", "jsonpath={.spec.replicas}"]), "get").stdout, "3");
    },
  },
  {
    name: "diff --server-side: a missing object is a difference (exit 1) and is not created",
    from: "diff.sh (kubectl diff with server-side apply)",
    async run(k, ns) {
      const r = await k(["diff", "--server-side", "-n", ns, "-f", "-"], pod("test-pod"));
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stdout, /test-pod/);
      assert.equal(ok(await k(["get", "pods", "-n", ns, "-o", "name"]), "get").stdout, "");
    },
  },
  {
    name: "diff --server-side: nothing right after apply (exit 0), the changed image after a change (exit 1)",
    from: "diff.sh (kubectl diff with server-side apply)",
    async run(k, ns) {
      ok(await k(["apply", "--server-side", "-n", ns, "-f", "-"], pod("test-pod")), "apply");
      const same = await k(["diff", "--server-side", "-n", ns, "-f", "-"], pod("test-pod"));
      assert.equal(same.code, 0, same.stdout + same.stderr);
      const changed = await k(["diff", "--server-side", "-n", ns, "-f", "-"], pod("test-pod", "registry.k8s.io/pause:3.4"));
      assert.equal(changed.code, 1, changed.stderr);
      assert.match(changed.stdout, /\+ {2}- image: registry\.k8s\.io\/pause:3\.4/);
    },
  },
  {
    name: "get -o yaml hides managedFields; --show-managed-fields shows kubectl-create's Update entry",
    from: "get.sh (--show-managed-fields)",
    async run(k, ns) {
      ok(await k(["create", "configmap", "cm1", "-n", ns, "--from-literal=a=b"]), "create");
      const plain = ok(await k(["get", "cm", "cm1", "-n", ns, "-o", "yaml"]), "get");
      assert.doesNotMatch(plain.stdout, /managedFields/);
      const shown = ok(await k(["get", "cm", "cm1", "-n", ns, "-o", "yaml", "--show-managed-fields"]), "get");
      assert.match(shown.stdout, /managedFields:\n {2}- apiVersion: v1\n {4}fieldsType: FieldsV1\n {4}fieldsV1:\n {6}f:data:\n {8}\.: \{\}\n {8}f:a: \{\}\n {4}manager: kubectl-create\n {4}operation: Update\n {4}time: /);
    },
  },
  {
    name: "label and patch are recorded as their own managers",
    from: "apply.sh / get.sh (managedFields managers)",
    async run(k, ns) {
      ok(await k(["create", "configmap", "cm1", "-n", ns, "--from-literal=a=b"]), "create");
      ok(await k(["label", "cm", "cm1", "-n", ns, "x=y"]), "label");
      ok(await k(["patch", "cm", "cm1", "-n", ns, "-p", '{"data":{"c":"d"}}']), "patch");
      const m = ok(await k(["get", "cm", "cm1", "-n", ns, "-o", "jsonpath={.metadata.managedFields[*].manager}"]), "get");
      assert.equal(m.stdout, "kubectl-create kubectl-label kubectl-patch");
    },
  },
  {
    name: "create --save-config writes the last-applied-configuration annotation",
    from: "save-config.sh",
    async run(k, ns) {
      ok(await k(["create", "--save-config", "-n", ns, "-f", "-"], pod("test-pod")), "create");
      const a = ok(await k(["get", "pod", "test-pod", "-n", ns, "-o", "go-template={{index .metadata.annotations \"kubectl.kubernetes.io/last-applied-configuration\"}}"]), "get");
      assert.match(a.stdout, /"name":"test-pod"/);
    },
  },
  {
    name: "kubectl 1.27 create -f and apply -f (client-side validation reads /openapi/v2)",
    from: "create.sh (create -f), apply.sh",
    async run(k, ns) {
      ok(await k.v127(["create", "-n", ns, "-f", "-"], pod("test-pod")), "1.27 create");
      ok(await k.v127(["apply", "-n", ns, "-f", "-"], deploy("web", 1)), "1.27 apply");
      ok(await k.v127(["apply", "-n", ns, "-f", "-"], deploy("web", 1, "nginx:1.27")), "1.27 apply change");
      assert.equal(ok(await k(["get", "deploy", "web", "-n", ns, "-o", "jsonpath={.spec.template.spec.containers[*].name}"]), "get").stdout, "web");
    },
  },
  {
    name: "explain on kubectl 1.27 and 1.33",
    from: "explain (core.sh)",
    async run(k) {
      for (const run of [k, k.v127]) {
        const r = ok(await run(["explain", "deployment.spec.replicas"]), "explain");
        assert.match(r.stdout, /^KIND: +Deployment$/m);
        assert.match(r.stdout, /^FIELD: replicas <integer>$/m);
      }
    },
  },
  {
    name: "a Secret's stringData is merged into data",
    from: "core.sh run_secrets_test (stringData)",
    async run(k, ns) {
      const secret = `apiVersion: v1\nkind: Secret\nmetadata:\n  name: secret-string-data\ndata:\n  k1: djE=\n  k2: djI=\nstringData:\n  k2: v2\n  k3: v3\n`;
      ok(await k(["create", "-n", ns, "-f", "-"], secret), "create");
      const d = ok(await k(["get", "secret", "secret-string-data", "-n", ns, "-o", "jsonpath={.data}"]), "get");
      assert.equal(d.stdout, '{"k1":"djE=","k2":"djI=","k3":"djM="}');
      const sd = ok(await k(["get", "secret", "secret-string-data", "-n", ns, "-o", "jsonpath={.stringData}"]), "get");
      assert.equal(sd.stdout, "");
    },
  },
  {
    name: 'replace with resourceVersion "0" is unconditional',
    from: "core.sh (replace)",
    async run(k, ns) {
      ok(await k(["create", "configmap", "cm1", "-n", ns, "--from-literal=a=b"]), "create");
      ok(await k(["label", "cm", "cm1", "-n", ns, "x=y"]), "label");
      const cm = JSON.parse(ok(await k(["get", "cm", "cm1", "-n", ns, "-o", "json"]), "get").stdout) as { metadata: Record<string, unknown>; data: Record<string, string> };
      cm.metadata.resourceVersion = "0";
      cm.data.a = "changed";
      ok(await k(["replace", "-n", ns, "-f", "-"], JSON.stringify(cm)), "replace");
      assert.equal(ok(await k(["get", "cm", "cm1", "-n", ns, "-o", "jsonpath={.data.a}"]), "get").stdout, "changed");
      cm.metadata.resourceVersion = "1";
      const stale = await k(["replace", "-n", ns, "-f", "-"], JSON.stringify(cm));
      assert.equal(stale.code, 1);
      assert.match(stale.stderr, /the object has been modified; please apply your changes to the latest version and try again/);
    },
  },
  {
    name: "delete --cascade=foreground completes: the Deployment, its ReplicaSet and pods are gone",
    from: "apps.sh / delete.sh (cascading deletion)",
    async run(k, ns) {
      ok(await k(["create", "deployment", "web", "-n", ns, "--image=nginx", "--replicas=2"]), "create");
      ok(await k(["rollout", "status", "deployment/web", "-n", ns, "--timeout=90s"]), "rollout");
      ok(await k(["delete", "deployment", "web", "-n", ns, "--cascade=foreground", "--timeout=90s"]), "delete");
      assert.equal(ok(await k(["get", "deploy,rs,pods", "-n", ns, "-o", "name"]), "get").stdout, "");
    },
  },
  {
    name: "create role, rolebinding, clusterrole and clusterrolebinding (protobuf bodies)",
    from: "rbac (create.sh / core.sh create role tests)",
    async run(k, ns) {
      const sfx = ns.slice(-6);
      ok(await k(["create", "role", "pod-reader", "-n", ns, "--verb=get,list", "--resource=pods"]), "role");
      ok(await k(["create", "rolebinding", "rb", "-n", ns, "--role=pod-reader", "--user=alice"]), "rolebinding");
      ok(await k(["create", "clusterrole", `reader-${sfx}`, "--verb=get", "--resource=nodes"]), "clusterrole");
      ok(await k(["create", "clusterrolebinding", `crb-${sfx}`, `--clusterrole=reader-${sfx}`, "--group=readers"]), "clusterrolebinding");
      const rules = ok(await k(["get", "role", "pod-reader", "-n", ns, "-o", "jsonpath={.rules[0].verbs}"]), "get");
      assert.equal(rules.stdout, '["get","list"]');
      const subj = ok(await k(["get", "clusterrolebinding", `crb-${sfx}`, "-o", "jsonpath={.subjects[0].kind}/{.subjects[0].name}/{.roleRef.name}"]), "get");
      assert.equal(subj.stdout, `Group/readers/reader-${sfx}`);
      ok(await k(["delete", "clusterrole", `reader-${sfx}`]), "cleanup");
      ok(await k(["delete", "clusterrolebinding", `crb-${sfx}`]), "cleanup");
    },
  },
  {
    name: "a malformed JSON body is the apiserver's 400, never a crash",
    from: "bad input (create --raw)",
    async run(k, ns) {
      const r = await k(["create", "--raw", `/api/v1/namespaces/${ns}/configmaps`, "-f", "-"], "{not json");
      assert.notEqual(r.code, 0);
      assert.match(r.stderr, /Error from server \(BadRequest\)/);
    },
  },
  {
    name: "rollout undo moves revision-history onto the ReplicaSet brought back; paused rollbacks refused",
    from: "apps.sh run_deployment_tests (rollback)",
    async run(k, ns) {
      const rsOf = async () => {
        const d = ok(await k(["describe", "deployment", "nginx", "-n", ns]), "describe").stdout;
        return /^NewReplicaSet:\s+(\S+)/m.exec(d)![1];
      };
      const annotations = async (rs: string) => JSON.parse(ok(await k(["get", "rs", rs, "-n", ns, "-o", "jsonpath={.metadata.annotations}"]), "get").stdout) as Record<string, string>;
      const wait = async () => ok(await k(["rollout", "status", "deployment/nginx", "-n", ns, "--timeout=90s"]), "status");
      ok(await k(["apply", "-n", ns, "-f", "-"], deploy("nginx", 1, "nginx:1.27")), "revision 1");
      await wait();
      const r1 = await rsOf();
      ok(await k(["apply", "-n", ns, "-f", "-"], deploy("nginx", 1, "nginx:1.28")), "revision 2");
      await wait();
      const r2 = await rsOf();
      assert.equal(ok(await k(["rollout", "undo", "deployment", "nginx", "-n", ns, "--to-revision=1"]), "undo").stdout, "deployment.apps/nginx rolled back\n");
      await wait();
      assert.equal(await rsOf(), r1);
      assert.deepEqual([(await annotations(r1))["deployment.kubernetes.io/revision"], (await annotations(r1))["deployment.kubernetes.io/revision-history"]], ["3", "1"]);
      const missing = await k(["rollout", "undo", "deployment", "nginx", "-n", ns, "--to-revision=1000000"]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /unable to find specified revision 1000000 in history/);
      ok(await k(["rollout", "undo", "deployment", "nginx", "-n", ns]), "undo to last");
      await wait();
      assert.equal(await rsOf(), r2);
      assert.equal((await annotations(r2))["deployment.kubernetes.io/revision-history"], "2");
      ok(await k(["rollout", "pause", "deployment", "nginx", "-n", ns]), "pause");
      const paused = await k(["rollout", "undo", "deployment", "nginx", "-n", ns]);
      assert.equal(paused.code, 1);
      assert.match(paused.stderr, /you cannot rollback a paused deployment; resume it first/);
      assert.equal((await k(["rollout", "restart", "deployment", "nginx", "-n", ns])).code, 1);
      ok(await k(["rollout", "resume", "deployment", "nginx", "-n", ns]), "resume");
      ok(await k(["rollout", "undo", "deployment", "nginx", "-n", ns]), "undo after resume");
      await wait();
      assert.equal(await rsOf(), r1);
      const a = await annotations(r1);
      assert.deepEqual([a["deployment.kubernetes.io/revision"], a["deployment.kubernetes.io/revision-history"]], ["5", "1,3"]);
      ok(await k(["get", "rs", r1, "-n", ns, "-o", "yaml"]), "yaml").stdout.includes("deployment.kubernetes.io/revision-history: 1,3") || assert.fail("yaml");
      assert.equal((await k(["rollout", "status", "deployment/nginx", "-n", ns, "--revision=3"])).code, 1);
      ok(await k(["rollout", "restart", "deployment/nginx", "-n", ns]), "restart");
      await wait();
      assert.equal((await annotations(await rsOf()))["deployment.kubernetes.io/revision"], "6");
    },
  },
  {
    name: "field managers: kubectl-create, -label, -annotate, -set, -rollout, and kubectl for scale through /scale",
    from: "apps.sh / core.sh (--show-managed-fields managers)",
    async run(k, ns) {
      ok(await k(["create", "deployment", "web", "-n", ns, "--image=nginx"]), "create");
      ok(await k(["label", "deploy", "web", "-n", ns, "tier=front"]), "label");
      ok(await k(["annotate", "deploy", "web", "-n", ns, "note=x"]), "annotate");
      ok(await k(["scale", "deploy", "web", "-n", ns, "--replicas=2"]), "scale");
      ok(await k(["set", "image", "deploy/web", "-n", ns, "nginx=nginx:1.28"]), "set image");
      ok(await k(["rollout", "restart", "deploy/web", "-n", ns]), "restart");
      const got = ok(await k(["get", "deploy", "web", "-n", ns, "--show-managed-fields", "-o", "jsonpath={range .metadata.managedFields[*]}{.manager}/{.operation}/{.subresource};{end}"]), "get").stdout;
      // The same managers the terminal's kubectl records (src/shell/kubectl/field-managers.test.ts),
      // and the deployment controller's (revision annotation, status) as on a kubeadm cluster.
      assert.deepEqual(got.split(";").filter(Boolean).sort(), ["kube-controller-manager/Update/", "kube-controller-manager/Update/status", "kubectl-annotate/Update/", "kubectl-create/Update/", "kubectl-label/Update/", "kubectl-rollout/Update/", "kubectl-set/Update/", "kubectl/Update/scale"]);
    },
  },
];
