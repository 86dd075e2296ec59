// The RBAC objects of a new kubeadm v1.33 cluster: the apiserver's bootstrap policy
// (plugin/pkg/auth/authorizer/rbac/bootstrappolicy, as its testdata/*.yaml list it: the default
// roles, the controllers' roles, the namespaced roles and their bindings) and what kubeadm and its
// CoreDNS addon add. Data only, made once per process and shared by every cluster (frozen).

/** A PolicyRule in the Go struct's field order (the order -o json shows). */
export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

export interface Subject {
  kind: string;
  apiGroup?: string;
  name: string;
  namespace?: string;
}

export interface PolicyObject {
  kind: "ClusterRole" | "ClusterRoleBinding" | "Role" | "RoleBinding";
  namespace?: string;
  name: string;
  /** The bootstrap policy's own objects carry its label and autoupdate annotation; kubeadm's don't. */
  bootstrap: boolean;
  labels?: Record<string, string>;
  rules?: PolicyRule[];
  aggregationRule?: { clusterRoleSelectors: Array<{ matchLabels: Record<string, string> }> };
  subjects?: Subject[] | null;
  roleRef?: { apiGroup: string; kind: string; name: string };
}

const list = (s: string): string[] => s.split(",");
/** A resource rule: comma-separated groups ("" is the core group), resources, verbs, names. */
function r(groups: string, resources: string, verbs: string, names?: string): PolicyRule {
  const rule: PolicyRule = { verbs: list(verbs), apiGroups: list(groups), resources: list(resources) };
  if (names) rule.resourceNames = list(names);
  return rule;
}
/** A non-resource rule. */
function u(urls: string, verbs: string): PolicyRule {
  return { verbs: list(verbs), nonResourceURLs: list(urls) };
}

const RW = "create,delete,deletecollection,patch,update";
const READ = "get,list,watch";
const ALL_RW = "create,delete,deletecollection,get,list,patch,update,watch";
const EVENTS = r(",events.k8s.io", "events", "create,patch,update");

const cr = (name: string, rules: PolicyRule[], labels?: Record<string, string>): PolicyObject => ({ kind: "ClusterRole", name, bootstrap: true, rules, ...(labels ? { labels } : {}) });
const aggregate = (name: string, to: string, labels?: Record<string, string>): PolicyObject => ({
  kind: "ClusterRole",
  name,
  bootstrap: true,
  rules: [],
  aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [`rbac.authorization.k8s.io/aggregate-to-${to}`]: "true" } }] },
  ...(labels ? { labels } : {}),
});
const toAdmin = { "rbac.authorization.k8s.io/aggregate-to-admin": "true" };
const toEdit = { "rbac.authorization.k8s.io/aggregate-to-edit": "true" };
const toView = { "rbac.authorization.k8s.io/aggregate-to-view": "true" };

const RBAC = "rbac.authorization.k8s.io";
const user = (name: string): Subject => ({ kind: "User", apiGroup: RBAC, name });
const group = (name: string): Subject => ({ kind: "Group", apiGroup: RBAC, name });
const sa = (name: string, namespace = "kube-system"): Subject => ({ kind: "ServiceAccount", name, namespace });
const crb = (name: string, role: string, subjects: Subject[] | null, bootstrap = true): PolicyObject => ({
  kind: "ClusterRoleBinding",
  name,
  bootstrap,
  subjects,
  roleRef: { apiGroup: RBAC, kind: "ClusterRole", name: role },
});

/** testdata/cluster-roles.yaml (v1.33, default feature gates). */
const CLUSTER_ROLES: PolicyObject[] = [
  aggregate("admin", "admin"),
  cr("cluster-admin", [r("*", "*", "*"), u("*", "*")]),
  aggregate("edit", "edit", toAdmin),
  cr("system:aggregate-to-admin", [r("authorization.k8s.io", "localsubjectaccessreviews", "create"), r(RBAC, "rolebindings,roles", ALL_RW)], toAdmin),
  cr(
    "system:aggregate-to-edit",
    [
      r("", "pods/attach,pods/exec,pods/portforward,pods/proxy,secrets,services/proxy", READ),
      r("", "serviceaccounts", "impersonate"),
      r("", "pods,pods/attach,pods/exec,pods/portforward,pods/proxy", RW),
      r("", "pods/eviction", "create"),
      r("", "configmaps,events,persistentvolumeclaims,replicationcontrollers,replicationcontrollers/scale,secrets,serviceaccounts,services,services/proxy", RW),
      r("", "serviceaccounts/token", "create"),
      r("apps", "daemonsets,deployments,deployments/rollback,deployments/scale,replicasets,replicasets/scale,statefulsets,statefulsets/scale", RW),
      r("autoscaling", "horizontalpodautoscalers", RW),
      r("batch", "cronjobs,jobs", RW),
      r("extensions", "daemonsets,deployments,deployments/rollback,deployments/scale,ingresses,networkpolicies,replicasets,replicasets/scale,replicationcontrollers/scale", RW),
      r("policy", "poddisruptionbudgets", RW),
      r("networking.k8s.io", "ingresses,networkpolicies", RW),
      r("coordination.k8s.io", "leases", ALL_RW),
    ],
    toEdit,
  ),
  cr(
    "system:aggregate-to-view",
    [
      r("", "configmaps,endpoints,persistentvolumeclaims,persistentvolumeclaims/status,pods,replicationcontrollers,replicationcontrollers/scale,serviceaccounts,services,services/status", READ),
      r("", "bindings,events,limitranges,namespaces/status,pods/log,pods/status,replicationcontrollers/status,resourcequotas,resourcequotas/status", READ),
      r("", "namespaces", READ),
      r("discovery.k8s.io", "endpointslices", READ),
      r("apps", "controllerrevisions,daemonsets,daemonsets/status,deployments,deployments/scale,deployments/status,replicasets,replicasets/scale,replicasets/status,statefulsets,statefulsets/scale,statefulsets/status", READ),
      r("autoscaling", "horizontalpodautoscalers,horizontalpodautoscalers/status", READ),
      r("batch", "cronjobs,cronjobs/status,jobs,jobs/status", READ),
      r("extensions", "daemonsets,daemonsets/status,deployments,deployments/scale,deployments/status,ingresses,ingresses/status,networkpolicies,replicasets,replicasets/scale,replicasets/status,replicationcontrollers/scale", READ),
      r("policy", "poddisruptionbudgets,poddisruptionbudgets/status", READ),
      r("networking.k8s.io", "ingresses,ingresses/status,networkpolicies", READ),
    ],
    toView,
  ),
  cr("system:auth-delegator", [r("authentication.k8s.io", "tokenreviews", "create"), r("authorization.k8s.io", "subjectaccessreviews", "create")]),
  cr("system:basic-user", [r("authorization.k8s.io", "selfsubjectaccessreviews,selfsubjectrulesreviews", "create"), r("authentication.k8s.io", "selfsubjectreviews", "create")]),
  cr("system:certificates.k8s.io:certificatesigningrequests:nodeclient", [r("certificates.k8s.io", "certificatesigningrequests/nodeclient", "create")]),
  cr("system:certificates.k8s.io:certificatesigningrequests:selfnodeclient", [r("certificates.k8s.io", "certificatesigningrequests/selfnodeclient", "create")]),
  cr("system:certificates.k8s.io:kube-apiserver-client-approver", [r("certificates.k8s.io", "signers", "approve", "kubernetes.io/kube-apiserver-client")]),
  cr("system:certificates.k8s.io:kube-apiserver-client-kubelet-approver", [r("certificates.k8s.io", "signers", "approve", "kubernetes.io/kube-apiserver-client-kubelet")]),
  cr("system:certificates.k8s.io:kubelet-serving-approver", [r("certificates.k8s.io", "signers", "approve", "kubernetes.io/kubelet-serving")]),
  cr("system:certificates.k8s.io:legacy-unknown-approver", [r("certificates.k8s.io", "signers", "approve", "kubernetes.io/legacy-unknown")]),
  cr("system:discovery", [u("/api,/api/*,/apis,/apis/*,/healthz,/livez,/openapi,/openapi/*,/readyz,/version,/version/", "get")]),
  cr("system:heapster", [r("", "events,namespaces,nodes,pods", READ), r("extensions", "deployments", READ)]),
  cr("system:kube-aggregator", [r("", "endpoints,services", READ)]),
  cr("system:kube-controller-manager", [
    r(",events.k8s.io", "events", "create,patch,update"),
    r("coordination.k8s.io", "leases", "create"),
    r("coordination.k8s.io", "leases", "get,update", "kube-controller-manager"),
    r("", "secrets,serviceaccounts", "create"),
    r("", "secrets", "delete"),
    r("", "configmaps,namespaces,secrets,serviceaccounts", "get"),
    r("", "secrets,serviceaccounts", "update"),
    r("authentication.k8s.io", "tokenreviews", "create"),
    r("authorization.k8s.io", "subjectaccessreviews", "create"),
    r("*", "*", "list,watch"),
    r("", "serviceaccounts/token", "create"),
  ]),
  cr("system:kube-dns", [r("", "endpoints,services", "list,watch")]),
  cr("system:kube-scheduler", [
    r(",events.k8s.io", "events", "create,patch,update"),
    r("coordination.k8s.io", "leases", "create"),
    r("coordination.k8s.io", "leases", "get,update", "kube-scheduler"),
    r("", "nodes", READ),
    r("", "pods", "delete,get,list,watch"),
    r("", "bindings,pods/binding", "create"),
    r("", "pods/status", "patch,update"),
    r("", "replicationcontrollers,services", READ),
    r("apps,extensions", "replicasets", READ),
    r("apps", "statefulsets", READ),
    r("policy", "poddisruptionbudgets", READ),
    r("", "persistentvolumeclaims,persistentvolumes", READ),
    r("authentication.k8s.io", "tokenreviews", "create"),
    r("authorization.k8s.io", "subjectaccessreviews", "create"),
    r("storage.k8s.io", "csinodes", READ),
    r("", "namespaces", READ),
    r("storage.k8s.io", "csidrivers", READ),
    r("storage.k8s.io", "csistoragecapacities", READ),
  ]),
  cr("system:kubelet-api-admin", [r("", "nodes", READ), r("", "nodes", "proxy"), r("", "nodes/log,nodes/metrics,nodes/proxy,nodes/stats", "*")]),
  cr("system:monitoring", [u("/healthz,/healthz/*,/livez,/livez/*,/metrics,/metrics/slis,/readyz,/readyz/*", "get")]),
  cr("system:node", [
    r("authentication.k8s.io", "tokenreviews", "create"),
    r("authorization.k8s.io", "localsubjectaccessreviews,subjectaccessreviews", "create"),
    r("", "services", READ),
    r("", "nodes", "create,get,list,watch"),
    r("", "nodes/status", "patch,update"),
    r("", "nodes", "patch,update"),
    r("", "events", "create,patch,update"),
    r("", "pods", READ),
    r("", "pods", "create,delete"),
    r("", "pods/status", "patch,update"),
    r("", "pods/eviction", "create"),
    r("", "configmaps,secrets", READ),
    r("", "persistentvolumeclaims,persistentvolumes", "get"),
    r("", "endpoints", "get"),
    r("certificates.k8s.io", "certificatesigningrequests", "create,get,list,watch"),
    r("coordination.k8s.io", "leases", "create,delete,get,patch,update"),
    r("storage.k8s.io", "volumeattachments", "get"),
    r("", "serviceaccounts/token", "create"),
    r("", "persistentvolumeclaims/status", "get,patch,update"),
    r("storage.k8s.io", "csidrivers", READ),
    r("storage.k8s.io", "csinodes", "create,delete,get,patch,update"),
    r("node.k8s.io", "runtimeclasses", READ),
  ]),
  cr("system:node-bootstrapper", [r("certificates.k8s.io", "certificatesigningrequests", "create,get,list,watch")]),
  cr("system:node-problem-detector", [r("", "nodes", "get"), r("", "nodes/status", "patch"), EVENTS]),
  cr("system:node-proxier", [r("", "endpoints,services", "list,watch"), r("", "nodes", READ), EVENTS, r("discovery.k8s.io", "endpointslices", "list,watch")]),
  cr("system:persistent-volume-provisioner", [
    r("", "persistentvolumes", "create,delete,get,list,watch"),
    r("", "persistentvolumeclaims", "get,list,update,watch"),
    r("storage.k8s.io", "storageclasses", READ),
    r("", "events", "watch"),
    EVENTS,
  ]),
  cr("system:public-info-viewer", [u("/healthz,/livez,/readyz,/version,/version/", "get")]),
  cr("system:service-account-issuer-discovery", [u("/.well-known/openid-configuration,/openid/v1/jwks", "get")]),
  cr("system:volume-scheduler", [
    r("", "persistentvolumes", "get,list,patch,update,watch"),
    r("storage.k8s.io", "storageclasses", READ),
    r("", "persistentvolumeclaims", "get,list,patch,update,watch"),
  ]),
  aggregate("view", "view", toEdit),
];

/** testdata/controller-roles.yaml: one role per kube-controller-manager controller, bound to its ServiceAccount. */
const CONTROLLER_ROLES: Array<[string, PolicyRule[]]> = [
  ["attachdetach-controller", [
    r("", "persistentvolumeclaims,persistentvolumes", "list,watch"),
    r("", "nodes", READ),
    r("", "nodes/status", "patch,update"),
    r("", "pods", "list,watch"),
    EVENTS,
    r("storage.k8s.io", "volumeattachments", "create,delete,get,list,watch"),
    r("storage.k8s.io", "csidrivers", READ),
    r("storage.k8s.io", "csinodes", READ),
  ]],
  ["certificate-controller", [
    r("certificates.k8s.io", "certificatesigningrequests", "delete,get,list,watch"),
    r("certificates.k8s.io", "certificatesigningrequests/approval,certificatesigningrequests/status", "update"),
    r("certificates.k8s.io", "signers", "approve", "kubernetes.io/kube-apiserver-client-kubelet"),
    r("certificates.k8s.io", "signers", "sign", "kubernetes.io/kube-apiserver-client,kubernetes.io/kube-apiserver-client-kubelet,kubernetes.io/kubelet-serving,kubernetes.io/legacy-unknown"),
    r("authorization.k8s.io", "subjectaccessreviews", "create"),
    EVENTS,
  ]],
  ["clusterrole-aggregation-controller", [r(RBAC, "clusterroles", "escalate,get,list,patch,update,watch")]],
  ["cronjob-controller", [
    r("batch", "cronjobs", "get,list,update,watch"),
    r("batch", "jobs", "create,delete,get,list,patch,update,watch"),
    r("batch", "cronjobs/status", "update"),
    r("batch", "cronjobs/finalizers", "update"),
    r("", "pods", "delete,list,watch"),
    EVENTS,
  ]],
  ["daemon-set-controller", [
    r("apps,extensions", "daemonsets", READ),
    r("apps,extensions", "daemonsets/status", "update"),
    r("apps,extensions", "daemonsets/finalizers", "update"),
    r("", "nodes", "list,watch"),
    r("", "pods", "create,delete,list,patch,watch"),
    r("", "pods/binding", "create"),
    r("apps", "controllerrevisions", "create,delete,get,list,patch,update,watch"),
    EVENTS,
  ]],
  ["deployment-controller", [
    r("apps,extensions", "deployments", "get,list,update,watch"),
    r("apps,extensions", "deployments/status", "update"),
    r("apps,extensions", "deployments/finalizers", "update"),
    r("apps,extensions", "replicasets", "create,delete,get,list,patch,update,watch"),
    r("", "pods", "get,list,update,watch"),
    EVENTS,
  ]],
  ["disruption-controller", [
    r("apps,extensions", "deployments", READ),
    r("apps,extensions", "replicasets", READ),
    r("", "replicationcontrollers", READ),
    r("policy", "poddisruptionbudgets", READ),
    r("apps", "statefulsets", READ),
    r("policy", "poddisruptionbudgets/status", "update"),
    r("", "pods/status", "patch,update"),
    r("*", "*/scale", "get"),
    EVENTS,
  ]],
  ["endpoint-controller", [
    r("", "pods,services", READ),
    r("", "endpoints", "create,delete,get,list,update,watch"),
    r("", "endpoints/restricted", "create"),
    EVENTS,
  ]],
  ["endpointslice-controller", [
    r("", "nodes,pods,services", READ),
    r("", "services/finalizers", "update"),
    r("discovery.k8s.io", "endpointslices", "create,delete,get,list,update,watch"),
    EVENTS,
  ]],
  ["endpointslicemirroring-controller", [
    r("", "endpoints,services", READ),
    r("", "services/finalizers", "update"),
    r("", "endpoints/finalizers", "update"),
    r("discovery.k8s.io", "endpointslices", "create,delete,get,list,update,watch"),
    EVENTS,
  ]],
  ["ephemeral-volume-controller", [
    r("", "pods", READ),
    r("", "pods/finalizers", "update"),
    r("", "persistentvolumeclaims", "create,get,list,watch"),
    EVENTS,
  ]],
  ["expand-controller", [
    r("", "persistentvolumes", "get,list,patch,update,watch"),
    r("", "persistentvolumeclaims/status", "patch,update"),
    r("", "persistentvolumeclaims", READ),
    EVENTS,
  ]],
  ["generic-garbage-collector", [r("*", "*", "delete,get,list,patch,update,watch"), EVENTS]],
  ["horizontal-pod-autoscaler", [
    r("autoscaling", "horizontalpodautoscalers", READ),
    r("autoscaling", "horizontalpodautoscalers/status", "update"),
    r("*", "*/scale", "get,update"),
    r("", "pods", "list,watch"),
    r("metrics.k8s.io", "pods", "list,watch"),
    r("custom.metrics.k8s.io", "*", READ),
    r("external.metrics.k8s.io", "*", READ),
    EVENTS,
  ]],
  ["job-controller", [
    r("batch", "jobs", "get,list,patch,update,watch"),
    r("batch", "jobs/status", "update"),
    r("batch", "jobs/finalizers", "update"),
    r("", "pods", "create,delete,list,patch,watch"),
    EVENTS,
  ]],
  ["legacy-service-account-token-cleaner", [
    r("", "configmaps", "get", "kube-apiserver-legacy-service-account-token-tracking"),
    r("", "secrets", "delete,patch"),
  ]],
  ["namespace-controller", [
    r("", "namespaces", "delete,get,list,watch"),
    r("", "namespaces/finalize,namespaces/status", "update"),
    r("*", "*", "delete,deletecollection,get,list,watch"),
  ]],
  ["node-controller", [
    r("", "nodes", "delete,get,list,patch,update,watch"),
    r("", "nodes/status", "patch,update"),
    r("", "pods/status", "patch,update"),
    r("", "pods", "delete,get,list,watch"),
    EVENTS,
  ]],
  ["persistent-volume-binder", [
    r("", "persistentvolumes", "create,delete,get,list,update,watch"),
    r("", "persistentvolumes/status", "update"),
    r("", "persistentvolumeclaims", "get,list,update,watch"),
    r("", "persistentvolumeclaims/status", "update"),
    r("", "pods", "create,delete,get,list,watch"),
    r("storage.k8s.io", "storageclasses", READ),
    r("", "nodes", "list,watch"),
    EVENTS,
    r("", "events", "watch"),
  ]],
  ["pod-garbage-collector", [r("", "pods", "delete,list,watch"), r("", "nodes", READ), r("", "pods/status", "patch")]],
  ["pv-protection-controller", [r("", "persistentvolumes", "get,list,update,watch"), EVENTS]],
  ["pvc-protection-controller", [
    r("", "persistentvolumeclaims", "get,list,update,watch"),
    r("", "persistentvolumeclaims/status", "update"),
    r("", "pods", READ),
    EVENTS,
  ]],
  ["replicaset-controller", [
    r("apps,extensions", "replicasets", "get,list,update,watch"),
    r("apps,extensions", "replicasets/status", "update"),
    r("apps,extensions", "replicasets/finalizers", "update"),
    r("", "pods", "create,delete,list,patch,watch"),
    EVENTS,
  ]],
  ["replication-controller", [
    r("", "replicationcontrollers", "get,list,update,watch"),
    r("", "replicationcontrollers/status", "update"),
    r("", "replicationcontrollers/finalizers", "update"),
    r("", "pods", "create,delete,list,patch,watch"),
    EVENTS,
  ]],
  ["resource-claim-controller", [
    r("", "pods", READ),
    r("", "pods/finalizers", "update"),
    r("resource.k8s.io", "resourceclaims", "create,delete,get,list,watch"),
    r("resource.k8s.io", "resourceclaims,resourceclaims/status", "patch,update"),
    r("", "pods/status", "patch,update"),
    EVENTS,
    r("resource.k8s.io", "resourceclaims/binding", "patch,update"),
  ]],
  ["resourcequota-controller", [r("*", "*", "list,watch"), r("", "resourcequotas/status", "update"), EVENTS]],
  ["root-ca-cert-publisher", [r("", "configmaps", "create,update"), EVENTS]],
  ["route-controller", [r("", "nodes", "list,watch"), r("", "nodes/status", "patch"), EVENTS]],
  ["selinux-warning-controller", [
    EVENTS,
    r("", "persistentvolumes", READ),
    r("", "persistentvolumeclaims", READ),
    r("", "pods", READ),
    r("storage.k8s.io", "csidrivers", READ),
  ]],
  ["service-account-controller", [r("", "serviceaccounts", "create"), EVENTS]],
  ["service-cidrs-controller", [
    r("networking.k8s.io", "servicecidrs", "get,list,patch,update,watch"),
    r("networking.k8s.io", "servicecidrs/finalizers", "patch,update"),
    r("networking.k8s.io", "servicecidrs/status", "patch,update"),
    r("networking.k8s.io", "ipaddresses", READ),
    EVENTS,
  ]],
  ["service-controller", [r("", "services", READ), r("", "services/status", "patch,update"), r("", "nodes", "list,watch"), EVENTS]],
  ["statefulset-controller", [
    r("", "pods", "list,watch"),
    r("apps", "statefulsets", READ),
    r("apps", "statefulsets/status", "update"),
    r("apps", "statefulsets/finalizers", "update"),
    r("", "pods", "create,delete,get,patch,update"),
    r("apps", "controllerrevisions", "create,delete,get,list,patch,update,watch"),
    r("", "persistentvolumeclaims", "create,get,list,watch"),
    r("", "persistentvolumeclaims", "delete,update"),
    r("", "pods/finalizers", "update"),
    EVENTS,
  ]],
  ["ttl-after-finished-controller", [r("batch", "jobs", "delete,get,list,watch"), EVENTS]],
  ["ttl-controller", [r("", "nodes", "list,patch,update,watch"), EVENTS]],
  ["validatingadmissionpolicy-status-controller", [
    r("admissionregistration.k8s.io", "validatingadmissionpolicies", READ),
    r("admissionregistration.k8s.io", "validatingadmissionpolicies/status", "get,patch,update"),
    EVENTS,
  ]],
  ["volumeattributesclass-protection-controller", [
    r("", "persistentvolumeclaims", READ),
    r("", "persistentvolumes", READ),
    r("storage.k8s.io", "volumeattributesclasses", "get,list,update,watch"),
    EVENTS,
  ]],
];

/** testdata/cluster-role-bindings.yaml. */
const CLUSTER_ROLE_BINDINGS: PolicyObject[] = [
  crb("cluster-admin", "cluster-admin", [group("system:masters")]),
  crb("system:basic-user", "system:basic-user", [group("system:authenticated")]),
  crb("system:discovery", "system:discovery", [group("system:authenticated")]),
  crb("system:kube-controller-manager", "system:kube-controller-manager", [user("system:kube-controller-manager")]),
  crb("system:kube-dns", "system:kube-dns", [sa("kube-dns")]),
  crb("system:kube-scheduler", "system:kube-scheduler", [user("system:kube-scheduler")]),
  crb("system:monitoring", "system:monitoring", [group("system:monitoring")]),
  crb("system:node", "system:node", null),
  crb("system:node-proxier", "system:node-proxier", [user("system:kube-proxy")]),
  crb("system:public-info-viewer", "system:public-info-viewer", [group("system:authenticated"), group("system:unauthenticated")]),
  crb("system:service-account-issuer-discovery", "system:service-account-issuer-discovery", [group("system:serviceaccounts")]),
  crb("system:volume-scheduler", "system:volume-scheduler", [user("system:kube-scheduler")]),
];

const role = (namespace: string, name: string, rules: PolicyRule[], bootstrap = true): PolicyObject => ({ kind: "Role", namespace, name, bootstrap, rules });
const rb = (namespace: string, name: string, roleName: string, subjects: Subject[], bootstrap = true): PolicyObject => ({
  kind: "RoleBinding",
  namespace,
  name,
  bootstrap,
  subjects,
  roleRef: { apiGroup: RBAC, kind: "Role", name: roleName },
});
const LEADER_LOCKING = [r("coordination.k8s.io", "leases", "create,get,list,update,watch"), r("coordination.k8s.io", "leasecandidates", "create,get,list,update,watch")];

/** testdata/namespace-roles.yaml and namespace-role-bindings.yaml. */
const NAMESPACED: PolicyObject[] = [
  role("kube-public", "system:controller:bootstrap-signer", [r("", "configmaps", READ), r("", "configmaps", "update", "cluster-info"), EVENTS]),
  role("kube-system", "extension-apiserver-authentication-reader", [r("", "configmaps", READ, "extension-apiserver-authentication")]),
  role("kube-system", "system::leader-locking-kube-controller-manager", LEADER_LOCKING),
  role("kube-system", "system::leader-locking-kube-scheduler", LEADER_LOCKING),
  role("kube-system", "system:controller:bootstrap-signer", [r("", "secrets", READ)]),
  role("kube-system", "system:controller:cloud-provider", [r("", "configmaps", "create,get,list,watch")]),
  role("kube-system", "system:controller:token-cleaner", [r("", "secrets", "delete,get,list,watch"), EVENTS]),
  rb("kube-public", "system:controller:bootstrap-signer", "system:controller:bootstrap-signer", [sa("bootstrap-signer")]),
  rb("kube-system", "system::extension-apiserver-authentication-reader", "extension-apiserver-authentication-reader", [user("system:kube-controller-manager"), user("system:kube-scheduler")]),
  rb("kube-system", "system::leader-locking-kube-controller-manager", "system::leader-locking-kube-controller-manager", [user("system:kube-controller-manager"), sa("kube-controller-manager"), sa("leader-election-controller")]),
  rb("kube-system", "system::leader-locking-kube-scheduler", "system::leader-locking-kube-scheduler", [user("system:kube-scheduler"), sa("kube-scheduler")]),
  rb("kube-system", "system:controller:bootstrap-signer", "system:controller:bootstrap-signer", [sa("bootstrap-signer")]),
  rb("kube-system", "system:controller:cloud-provider", "system:controller:cloud-provider", [sa("cloud-provider")]),
  rb("kube-system", "system:controller:token-cleaner", "system:controller:token-cleaner", [sa("token-cleaner")]),
];

/** The kubeadm group every bootstrap token authenticates as (kubeadm's NodeBootstrapTokenAuthGroup). */
const BOOTSTRAPPERS = "system:bootstrappers:kubeadm:default-node-token";

/**
 * What `kubeadm init` adds (phases bootstrap-token, kubelet-start, upload-config, addon): the
 * admin's binding (admin.conf's kubernetes-admin is in kubeadm:cluster-admins since v1.29), the
 * node bootstrap and auto-approval bindings, and CoreDNS's and kube-proxy's roles.
 */
const KUBEADM: PolicyObject[] = [
  { kind: "ClusterRole", name: "kubeadm:get-nodes", bootstrap: false, rules: [r("", "nodes", "get")] },
  { kind: "ClusterRole", name: "system:coredns", bootstrap: false, rules: [r("", "endpoints,services,pods,namespaces", "list,watch"), r("discovery.k8s.io", "endpointslices", "list,watch")] },
  crb("kubeadm:cluster-admins", "cluster-admin", [group("kubeadm:cluster-admins")], false),
  crb("kubeadm:get-nodes", "kubeadm:get-nodes", [group(BOOTSTRAPPERS)], false),
  crb("kubeadm:kubelet-bootstrap", "system:node-bootstrapper", [group(BOOTSTRAPPERS)], false),
  crb("kubeadm:node-autoapprove-bootstrap", "system:certificates.k8s.io:certificatesigningrequests:nodeclient", [group(BOOTSTRAPPERS)], false),
  crb("kubeadm:node-autoapprove-certificate-rotation", "system:certificates.k8s.io:certificatesigningrequests:selfnodeclient", [group("system:nodes")], false),
  crb("kubeadm:node-proxier", "system:node-proxier", [sa("kube-proxy")], false),
  crb("system:coredns", "system:coredns", [sa("coredns")], false),
  role("kube-system", "kube-proxy", [r("", "configmaps", "get", "kube-proxy")], false),
  role("kube-system", "kubeadm:kubelet-config", [r("", "configmaps", "get", "kubelet-config")], false),
  role("kube-system", "kubeadm:nodes-kubeadm-config", [r("", "configmaps", "get", "kubeadm-config")], false),
  rb("kube-system", "kube-proxy", "kube-proxy", [group(BOOTSTRAPPERS)], false),
  rb("kube-system", "kubeadm:kubelet-config", "kubeadm:kubelet-config", [group("system:nodes"), group(BOOTSTRAPPERS)], false),
  rb("kube-system", "kubeadm:nodes-kubeadm-config", "kubeadm:nodes-kubeadm-config", [group(BOOTSTRAPPERS), group("system:nodes")], false),
  role("kube-public", "kubeadm:bootstrap-signer-clusterinfo", [r("", "configmaps", "get", "cluster-info")], false),
  rb("kube-public", "kubeadm:bootstrap-signer-clusterinfo", "kubeadm:bootstrap-signer-clusterinfo", [user("system:anonymous")], false),
];

/** Every policy object of a new cluster, in the order the apiserver and kubeadm create them. */
export const DEFAULT_POLICY: readonly PolicyObject[] = [
  ...CLUSTER_ROLES,
  ...CONTROLLER_ROLES.map(([name, rules]) => cr(`system:controller:${name}`, rules)),
  ...CLUSTER_ROLE_BINDINGS,
  ...CONTROLLER_ROLES.map(([name]) => crb(`system:controller:${name}`, `system:controller:${name}`, [sa(name)])),
  ...NAMESPACED,
  ...KUBEADM,
];
